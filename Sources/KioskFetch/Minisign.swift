import CSodium
import KioskCore

/// Checks and makes minisign signatures of manifests with libsodium (Ed25519, BLAKE2b).
public enum Minisign {
    private static let ready: Bool = sodium_init() >= 0

    static func blake2b(_ message: [UInt8], length: Int) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        crypto_generichash(&digest, length, message, UInt64(message.count), nil, 0)
        return digest
    }

    /// nil when `signatureText` is a signature of `message` by `key`, else why not (one phrase).
    public static func problem(verifying message: [UInt8], signatureText: String, key: MinisignPublicKey) -> String? {
        guard ready else { return "libsodium could not start" }
        let signature: MinisignSignature
        switch MinisignSignature.parse(signatureText) {
        case .failure(let error): return error.description
        case .success(let parsed): signature = parsed
        }
        guard signature.keyID == key.keyID else {
            return "signed with key \(signature.keyIDText), not sync.public_key's \(key.keyIDText)"
        }
        let signed = signature.isPrehashed ? blake2b(message, length: 64) : message
        guard crypto_sign_verify_detached(signature.signature, signed, UInt64(signed.count), key.key) == 0 else {
            return "the signature does not match the manifest (changed after signing?)"
        }
        // The trusted comment is signed too: minisign checks it, so does kiosk.
        let global = signature.signature + Array(signature.trustedComment.utf8)
        guard crypto_sign_verify_detached(signature.globalSignature, global, UInt64(global.count), key.key) == 0 else {
            return "the trusted comment's signature does not match"
        }
        return nil
    }

    /// The `.minisig` text for `message` (prehashed, as minisign makes by default).
    public static func sign(_ message: [UInt8], fileName: String, key: MinisignSecretKey,
                            timestamp: Int64) -> Result<String, MinisignFormatError> {
        guard ready else { return .failure(MinisignFormatError("libsodium could not start")) }
        let expected = blake2b(Array("Ed".utf8) + key.keyID + key.secretKey, length: 32)
        // minisign -W (0.11) leaves the checksum zero in a key without a password.
        guard expected == key.checksum || key.checksum.allSatisfy({ $0 == 0 }) else { return .failure(MinisignFormatError("the secret key's checksum is wrong (damaged file?)")) }
        func detached(_ bytes: [UInt8]) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: 64)
            crypto_sign_detached(&signature, nil, bytes, UInt64(bytes.count), key.secretKey)
            return signature
        }
        let signature = detached(blake2b(message, length: 64))
        let comment = "timestamp:\(timestamp)\tfile:\(fileName)\thashed"
        let global = detached(signature + Array(comment.utf8))
        return .success(MinisignSignature(isPrehashed: true, keyID: key.keyID, signature: signature,
                                          trustedComment: comment, globalSignature: global).fileText)
    }
}
