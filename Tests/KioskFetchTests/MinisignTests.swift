import Foundation
import Testing
import KioskCore
@testable import KioskFetch

/// Signatures made by minisign 0.11 itself (`minisign -G -W`, `minisign -S -W -t "trusted text"`
/// of "hello kiosk\n"), read and checked by kiosk.
struct MinisignTests {
    static let publicKeyFile = """
        untrusted comment: minisign public key 822CB744D0FC82B9
        RWS5gvzQRLcsgpqVWBH9qRE4JcdW3/Tpr11Pz70ABqfP9tizfH/yfnM9

        """
    static let signature = """
        untrusted comment: signature from minisign secret key
        RUS5gvzQRLcsgjl66XQe9wnzILuxmWx9tMkLwYXnIx3cDpFHUR6Ylt6NR/YLK8eGzpwYcMzJ0Mtv0gSi6leu06Fh+pK+YzB/6gc=
        trusted comment: trusted text
        /sGstjIsUArJFBkB1HKIoQ85FGv9AixjAyUHldZEcBkLy9IEQe312BxTBiR00YemJCs67wdxV60i+FTKXXaJBw==

        """
    static let message = Array("hello kiosk\n".utf8)

    @Test func readsTheKeyAndTheSignature() throws {
        let key = try #require(MinisignPublicKey(fileText: Self.publicKeyFile))
        #expect(key.keyIDText == "822CB744D0FC82B9")   // as minisign prints it
        guard case .success(let signature) = MinisignSignature.parse(Self.signature) else { Issue.record("not parsed"); return }
        #expect(signature.isPrehashed && signature.trustedComment == "trusted text" && signature.keyID == key.keyID)
        #expect(MinisignPublicKey(base64: "RWS5gvzQRLcsgpqVWBH9") == nil)
        #expect(MinisignKeyText.isPublicKey("RWS5gvzQRLcsgpqVWBH9qRE4JcdW3/Tpr11Pz70ABqfP9tizfH/yfnM9"))
    }

    @Test func minisignsSignatureChecksAndAnyChangeFails() throws {
        let key = try #require(MinisignPublicKey(fileText: Self.publicKeyFile))
        #expect(Minisign.problem(verifying: Self.message, signatureText: Self.signature, key: key) == nil)
        #expect(Minisign.problem(verifying: Array("hello kiosk!\n".utf8), signatureText: Self.signature, key: key)
                == "the signature does not match the manifest (changed after signing?)")
        let comment = Self.signature.replacingOccurrences(of: "trusted text", with: "trusted test")
        #expect(Minisign.problem(verifying: Self.message, signatureText: comment, key: key)
                == "the trusted comment's signature does not match")
        #expect(Minisign.problem(verifying: Self.message, signatureText: "<html>", key: key)?.hasPrefix("not a minisign signature") == true)
        var other = key
        other.keyID = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(Minisign.problem(verifying: Self.message, signatureText: Self.signature, key: other)
                == "signed with key 822CB744D0FC82B9, not sync.public_key's 0807060504030201")
    }

    /// A key encrypted as minisign.c's encrypt_key does, made now with libsodium (scrypt at its
    /// smallest limits, so the test takes milliseconds; minisign itself writes 1 GiB ones, which
    /// test_content_sync_trust.py signs with).
    static func encryptedKey(password: String) throws -> (file: String, publicKey: MinisignPublicKey) {
        let pair = try #require(Minisign.generated())
        let sealed = try #require(Minisign.encrypted(pair.secret, password: Array(password.utf8), opsLimit: 32768, memLimit: 16 << 20))
        return (sealed.fileText, pair.publicKey)
    }

    @Test func anEncryptedSecretKeySignsWithItsPasswordOnly() throws {
        let (file, publicKey) = try Self.encryptedKey(password: "correct horse")
        guard case .success(let parsed) = MinisignSecretKey.parse(file) else { Issue.record("not parsed"); return }
        #expect(parsed.scrypt?.opsLimit == 32768 && parsed.scrypt?.memLimit == 16 << 20 && parsed.scrypt?.salt.count == 32)
        // Still sealed: signing with it is refused, not a signature by garbage.
        guard case .failure = Minisign.sign(Self.message, fileName: "m", key: parsed, timestamp: 0) else { Issue.record("signed sealed"); return }
        guard case .failure(let wrong) = Minisign.decrypted(parsed, password: Array("correct horsE".utf8)) else { Issue.record("wrong password taken"); return }
        #expect(wrong.description == "wrong password for this secret key")
        guard case .success(let key) = Minisign.decrypted(parsed, password: Array("correct horse".utf8)),
              case .success(let signature) = Minisign.sign(Self.message, fileName: "m", key: key, timestamp: 7) else {
            Issue.record("the right password did not sign"); return
        }
        #expect(key.keyID == publicKey.keyID)
        #expect(Minisign.problem(verifying: Self.message, signatureText: signature, key: publicKey) == nil)
        #expect(Minisign.problem(verifying: Array("other\n".utf8), signatureText: signature, key: publicKey) != nil)
    }

    @Test func aKeyWithoutPasswordStillSignsAndDecryptingItIsANoOp() throws {
        let pair = try #require(Minisign.generated())
        guard case .success(let parsed) = MinisignSecretKey.parse(pair.secret.fileText) else { Issue.record("not parsed"); return }
        #expect(parsed.scrypt == nil)
        guard case .success(let key) = Minisign.decrypted(parsed, password: []),
              case .success(let signature) = Minisign.sign(Self.message, fileName: "m", key: key, timestamp: 7) else {
            Issue.record("not signed"); return
        }
        #expect(Minisign.problem(verifying: Self.message, signatureText: signature, key: pair.publicKey) == nil)
    }

    @Test func aDamagedOrForeignSecretKeyIsRefusedWithItsReason() throws {
        let (file, _) = try Self.encryptedKey(password: "p")
        func parsed(_ change: (inout [UInt8]) -> Void) -> String {
            let line = file.split(separator: "\n")[1]
            var bytes = Array(Data(base64Encoded: String(line))!)
            change(&bytes)
            guard case .failure(let error) = MinisignSecretKey.parse("untrusted comment: x\n" + Data(bytes).base64EncodedString()) else { return "accepted" }
            return error.description
        }
        #expect(parsed { $0[2] = UInt8(ascii: "A") } == "key derivation 'Ac' is not Sc (scrypt) or none")
        #expect(parsed { $0[5] = UInt8(ascii: "3") } == "checksum algorithm is not B2 (BLAKE2b)")
        #expect(parsed { $0.removeLast() } == "not a minisign secret key")
        // Limits far past minisign's 1 GiB are refused before scrypt tries to take the memory.
        guard case .success(var key) = MinisignSecretKey.parse(file) else { Issue.record("not parsed"); return }
        key.scrypt?.memLimit = 1 << 40
        guard case .failure(let error) = Minisign.decrypted(key, password: []) else { Issue.record("accepted"); return }
        #expect(error.description.contains("are not minisign's (damaged file?)"))
    }
}
