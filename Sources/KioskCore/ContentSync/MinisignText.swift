import Foundation

/// minisign's public key: "Ed", an 8-byte key id and the 32-byte Ed25519 key, in base64 (the
/// `.pub` file's second line, or kiosk.conf's `public_key` text).
public struct MinisignPublicKey: Sendable, Equatable {
    public var keyID: [UInt8]
    public var key: [UInt8]

    public init(keyID: [UInt8], key: [UInt8]) {
        self.keyID = keyID
        self.key = key
    }

    /// The `.pub` file's text, as minisign writes it.
    public var fileText: String {
        "untrusted comment: minisign public key \(keyIDText)\n\(Data(Array("Ed".utf8) + keyID + key).base64EncodedString())\n"
    }

    public init?(base64 text: String) {
        guard let data = Data(base64Encoded: text.trimmingWhitespace()), data.count == 42,
              data.prefix(2) == Data("Ed".utf8) else { return nil }
        keyID = Array(data[2..<10])
        key = Array(data[10..<42])
    }

    /// From a `.pub` file (an untrusted comment line, then the key) or the key alone.
    public init?(fileText: String) {
        let lines = fileText.split(whereSeparator: \.isNewline).map(String.init)
        guard let line = lines.first(where: { !$0.hasPrefix("untrusted comment:") && !$0.isEmpty }) else { return nil }
        self.init(base64: line)
    }

    /// The key id as minisign prints it (hex, most significant byte first).
    public var keyIDText: String { MinisignSignature.hex(keyID.reversed()) }
}

/// A `.minisig` file: an untrusted comment, the signature ("Ed" over the bytes, or "ED" over
/// their BLAKE2b-512), a trusted comment, and the global signature over signature + comment.
public struct MinisignSignature: Sendable, Equatable {
    /// True for "ED": the signature is over the BLAKE2b-512 of the file (minisign's default).
    public var isPrehashed: Bool
    public var keyID: [UInt8]
    public var signature: [UInt8]
    public var trustedComment: String
    public var globalSignature: [UInt8]

    public init(isPrehashed: Bool, keyID: [UInt8], signature: [UInt8], trustedComment: String, globalSignature: [UInt8]) {
        self.isPrehashed = isPrehashed
        self.keyID = keyID
        self.signature = signature
        self.trustedComment = trustedComment
        self.globalSignature = globalSignature
    }

    /// nil and why, for anything that is not a minisign signature.
    public static func parse(_ text: String) -> Result<MinisignSignature, MinisignFormatError> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        guard lines.count >= 4, lines[0].hasPrefix("untrusted comment:"), lines[2].hasPrefix("trusted comment: ") else {
            return .failure(MinisignFormatError("not a minisign signature (expected 4 lines: untrusted comment, signature, trusted comment, global signature)"))
        }
        guard let body = Data(base64Encoded: lines[1]), body.count == 74 else {
            return .failure(MinisignFormatError("the signature line is not 74 bytes of base64"))
        }
        let algorithm = String(decoding: body.prefix(2), as: UTF8.self)
        guard algorithm == "Ed" || algorithm == "ED" else {
            return .failure(MinisignFormatError("signature algorithm '\(algorithm)' is not Ed or ED"))
        }
        guard let global = Data(base64Encoded: lines[3]), global.count == 64 else {
            return .failure(MinisignFormatError("the global signature line is not 64 bytes of base64"))
        }
        return .success(MinisignSignature(isPrehashed: algorithm == "ED", keyID: Array(body[2..<10]),
                                          signature: Array(body[10..<74]),
                                          trustedComment: String(lines[2].dropFirst("trusted comment: ".count)),
                                          globalSignature: Array(global)))
    }

    /// The four lines of the file.
    public var fileText: String {
        let body = Data(Array((isPrehashed ? "ED" : "Ed").utf8) + keyID + signature).base64EncodedString()
        return "untrusted comment: signature from kiosk manifest --sign\n\(body)\n"
            + "trusted comment: \(trustedComment)\n\(Data(globalSignature).base64EncodedString())\n"
    }

    public var keyIDText: String { Self.hex(keyID.reversed()) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).count == 1 ? "0" + String($0, radix: 16, uppercase: true)
                                                                   : String($0, radix: 16, uppercase: true) }.joined()
    }
}

public struct MinisignFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A minisign secret key file: "Ed", the kdf ("Sc" for scrypt, or two zero bytes for a key made
/// with `minisign -G -W`), "B2", the scrypt salt and limits, then the key id, the 64-byte Ed25519
/// secret key (seed and public key, libsodium's layout) and their checksum. With a password, those
/// last 104 bytes are XORed with scrypt's output (minisign.c's encrypt_key); Minisign.decrypted
/// undoes that (it needs libsodium, which KioskCore does not link).
public struct MinisignSecretKey: Sendable {
    /// The scrypt parameters of an encrypted key (minisign writes its SENSITIVE limits: 1 GiB).
    public struct Scrypt: Sendable, Equatable {
        public var salt: [UInt8]
        public var opsLimit: UInt64
        public var memLimit: UInt64

        public init(salt: [UInt8], opsLimit: UInt64, memLimit: UInt64) {
            self.salt = salt
            self.opsLimit = opsLimit
            self.memLimit = memLimit
        }
    }
    /// nil once decrypted or when the file has no password.
    public var scrypt: Scrypt?
    public var keyID: [UInt8]
    public var secretKey: [UInt8]
    /// The checksum the file carries: BLAKE2b-256 of "Ed", the id and the key (checked by the
    /// signer, which has BLAKE2b; for an encrypted key it is how a wrong password shows).
    public var checksum: [UInt8]

    public init(scrypt: Scrypt?, keyID: [UInt8], secretKey: [UInt8], checksum: [UInt8]) {
        self.scrypt = scrypt
        self.keyID = keyID
        self.secretKey = secretKey
        self.checksum = checksum
    }

    /// The 104 bytes scrypt's output is XORed with: id, key, checksum.
    public var sealedPart: [UInt8] { keyID + secretKey + checksum }

    public static func parse(_ text: String) -> Result<MinisignSecretKey, MinisignFormatError> {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard let line = lines.first(where: { !$0.hasPrefix("untrusted comment:") && !$0.isEmpty }),
              let data = Data(base64Encoded: line.trimmingWhitespace()), data.count == 158,
              data.prefix(2) == Data("Ed".utf8) else {
            return .failure(MinisignFormatError("not a minisign secret key"))
        }
        let bytes = Array(data)
        guard bytes[4] == UInt8(ascii: "B"), bytes[5] == UInt8(ascii: "2") else {
            return .failure(MinisignFormatError("checksum algorithm is not B2 (BLAKE2b)"))
        }
        var scrypt: Scrypt?
        if bytes[2] == UInt8(ascii: "S"), bytes[3] == UInt8(ascii: "c") {
            func le64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
            scrypt = Scrypt(salt: Array(bytes[6..<38]), opsLimit: le64(38), memLimit: le64(46))
        } else if bytes[2] != 0 || bytes[3] != 0 {
            return .failure(MinisignFormatError("key derivation '\(String(decoding: bytes[2..<4], as: UTF8.self))' is not Sc (scrypt) or none"))
        }
        return .success(MinisignSecretKey(scrypt: scrypt, keyID: Array(bytes[54..<62]), secretKey: Array(bytes[62..<126]),
                                          checksum: Array(bytes[126..<158])))
    }

    /// The file's text (used by tests to make keys, encrypted or not).
    public var fileText: String {
        var bytes = Array("Ed".utf8)
        if let scrypt {
            bytes += Array("Sc".utf8) + Array("B2".utf8) + scrypt.salt
            for limit in [scrypt.opsLimit, scrypt.memLimit] { bytes += (0..<8).map { UInt8(truncatingIfNeeded: limit >> (8 * UInt64($0))) } }
        } else {
            bytes += [0, 0] + Array("B2".utf8) + [UInt8](repeating: 0, count: 48)
        }
        bytes += sealedPart
        return "untrusted comment: minisign encrypted secret key\n\(Data(bytes).base64EncodedString())\n"
    }
}
