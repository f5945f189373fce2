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

    /// The key of an encrypted secret key file (`minisign -G` without -W), as minisign's
    /// decrypt_key does: scrypt of the password with the file's salt and limits, XORed over id, key
    /// and checksum; a checksum that then does not match is a wrong password (or a damaged file,
    /// which minisign cannot tell apart either). A key without a password is returned as it is.
    public static func decrypted(_ key: MinisignSecretKey, password: [UInt8]) -> Result<MinisignSecretKey, MinisignFormatError> {
        guard let scrypt = key.scrypt else { return .success(key) }
        guard ready else { return .failure(MinisignFormatError("libsodium could not start")) }
        // minisign writes 1 GiB (its SENSITIVE limit); far more is a damaged file, not a key to try.
        guard scrypt.memLimit <= 16 << 30, scrypt.opsLimit <= UInt64(UInt32.max) else {
            return .failure(MinisignFormatError("the key's scrypt limits (\(scrypt.opsLimit) ops, \(scrypt.memLimit) bytes) are not minisign's (damaged file?)"))
        }
        let sealed = key.sealedPart
        var stream = [UInt8](repeating: 0, count: sealed.count)
        let derived = scryptStream(&stream, password: password, salt: scrypt.salt, opsLimit: scrypt.opsLimit, memLimit: scrypt.memLimit)
        guard derived == 0 else {
            return .failure(MinisignFormatError("scrypt could not derive the key (\(scrypt.memLimit >> 20) MiB of memory needed)"))
        }
        let open = zip(sealed, stream).map { $0 ^ $1 }
        stream.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
        let plain = MinisignSecretKey(scrypt: nil, keyID: Array(open[0..<8]), secretKey: Array(open[8..<72]),
                                      checksum: Array(open[72..<104]))
        guard blake2b(Array("Ed".utf8) + plain.keyID + plain.secretKey, length: 32) == plain.checksum else {
            return .failure(MinisignFormatError("wrong password for this secret key"))
        }
        return .success(plain)
    }

    /// An encrypted secret key file's text for `key` (tests make keys with it; kiosk itself never
    /// writes secret keys): minisign.c's encrypt_key, with limits the caller picks.
    public static func encrypted(_ key: MinisignSecretKey, password: [UInt8], opsLimit: UInt64, memLimit: UInt64) -> MinisignSecretKey? {
        guard ready else { return nil }
        var salt = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&salt, salt.count)
        var plain = key
        plain.scrypt = nil
        plain.checksum = blake2b(Array("Ed".utf8) + key.keyID + key.secretKey, length: 32)
        let sealed = plain.sealedPart
        var stream = [UInt8](repeating: 0, count: sealed.count)
        let derived = scryptStream(&stream, password: password, salt: salt, opsLimit: opsLimit, memLimit: memLimit)
        guard derived == 0 else { return nil }
        let closed = zip(sealed, stream).map { $0 ^ $1 }
        return MinisignSecretKey(scrypt: .init(salt: salt, opsLimit: opsLimit, memLimit: memLimit), keyID: Array(closed[0..<8]),
                                 secretKey: Array(closed[8..<72]), checksum: Array(closed[72..<104]))
    }

    /// A new key pair without a password (tests): its secret key and its public key.
    public static func generated() -> (secret: MinisignSecretKey, publicKey: MinisignPublicKey)? {
        guard ready else { return nil }
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secret = [UInt8](repeating: 0, count: 64)
        crypto_sign_keypair(&publicKey, &secret)
        var id = [UInt8](repeating: 0, count: 8)
        randombytes_buf(&id, id.count)
        let key = MinisignSecretKey(scrypt: nil, keyID: id, secretKey: secret,
                                    checksum: blake2b(Array("Ed".utf8) + id + secret, length: 32))
        return (key, MinisignPublicKey(keyID: id, key: publicKey))
    }

    /// scrypt's output for the password (a C string of its bytes: an empty one is "", not NULL).
    private static func scryptStream(_ stream: inout [UInt8], password: [UInt8], salt: [UInt8], opsLimit: UInt64, memLimit: UInt64) -> Int32 {
        let text = password.map { CChar(bitPattern: $0) } + [0]
        return crypto_pwhash_scryptsalsa208sha256(&stream, UInt64(stream.count), text, UInt64(password.count), salt,
                                                  opsLimit, Int(memLimit))
    }

    /// The `.minisig` text for `message` (prehashed, as minisign makes by default).
    public static func sign(_ message: [UInt8], fileName: String, key: MinisignSecretKey,
                            timestamp: Int64) -> Result<String, MinisignFormatError> {
        guard ready else { return .failure(MinisignFormatError("libsodium could not start")) }
        guard key.scrypt == nil else { return .failure(MinisignFormatError("the secret key is still encrypted (Minisign.decrypted first)")) }
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
