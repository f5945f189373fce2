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

    @Test func anEncryptedSecretKeyIsRefusedWithItsReason() {
        // A key made without -W: kdf "Sc" (scrypt) in bytes 2-3.
        var bytes = Array("Ed".utf8) + Array("Sc".utf8) + Array("B2".utf8) + [UInt8](repeating: 0, count: 152)
        bytes[0] = UInt8(ascii: "E")
        let text = "untrusted comment: x\n" + Data(bytes).base64EncodedString() + "\n"
        guard case .failure(let error) = MinisignSecretKey.parse(text) else { Issue.record("accepted"); return }
        #expect(error.description.contains("encrypted with a password"))
    }
}
