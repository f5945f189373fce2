import CSodium
import Foundation
import KioskCore
import Logging

/// The web page's password and the scripts' bearer token (#36). No account ships with kiosk:
/// the password is kiosk.conf's `web.password_hash` (Argon2id, libsodium's `crypto_pwhash_str`,
/// made by `kiosk web-password`), else a random one made at first start in the state directory
/// (mode 0600) and written to the journal once, then never again.
package enum WebPasswordHash {
    /// The Argon2id string for `password` (`kiosk web-password`); nil where libsodium fails.
    package static func make(_ password: String) -> String? { WebPassword.hash(password) }
}

struct WebPassword: Sendable {
    private enum Kind: Sendable {
        case hash(String)
        case plain(String)
    }
    private let kind: Kind

    private static let ready: Bool = sodium_init() >= 0

    /// The password kiosk made and keeps in the state directory (for `web.splash_layer`); nil for
    /// kiosk.conf's hash, whose password kiosk never knows.
    var madePassword: String? {
        if case .plain(let password) = kind { return password }
        return nil
    }

    /// Whether `given` is the password. A wrong guess at an Argon2 hash costs its work (64 MiB,
    /// a fraction of a second): LoginThrottle keeps guesses few.
    func matches(_ given: String) -> Bool {
        switch kind {
        case .plain(let password): return !given.isEmpty && WebSecret.matches(given, password)
        case .hash(let hash):
            guard Self.ready else { return false }
            return crypto_pwhash_str_verify(hash, given, UInt64(given.utf8.count)) == 0
        }
    }

    /// The Argon2id string for `password`, for kiosk.conf's `web.password_hash`.
    static func hash(_ password: String) -> String? {
        guard ready else { return nil }
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        guard crypto_pwhash_str(&out, password, UInt64(password.utf8.count), UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                                Int(crypto_pwhash_MEMLIMIT_INTERACTIVE)) == 0 else { return nil }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// kiosk.conf's hash, else the state directory's password (made now if there is none).
    /// Throws why neither can be had (a state directory that cannot be written).
    static func load(_ config: WebConfig, stateDirectory: String, logger: Logger) throws -> WebPassword {
        if let hash = config.passwordHash { return WebPassword(kind: .hash(hash)) }
        let path = stateDirectory + "/web-password"
        let (password, made) = try secret(at: path, make: { random in
            // 20 letters and digits in groups of five (~100 bits), typed on a phone without a
            // mix-up of 0/o or 1/l.
            let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
            let letters = (0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            return stride(from: 0, to: 20, by: 5).map { String(letters[$0..<$0 + 5]) }.joined(separator: "-")
        })
        if made {
            // Private: the journal has it once; the page's own log never shows it.
            logger.notice("web: the page's password is \(password) (made now, kept in \(path), mode 0600; kiosk.conf's web.password_hash replaces it)",
                          metadata: ["private": "true"])
        }
        return WebPassword(kind: .plain(password))
    }

    /// The bearer token of scripts (`Authorization: Bearer ...`), made at first start beside the password.
    static func token(stateDirectory: String) throws -> String {
        try secret(at: stateDirectory + "/web-token", make: { random in WebSessions.token(using: &random) }).value
    }

    /// The secret in the file at `path` (its first line), or a new one written there with mode
    /// 0600 (made with O_EXCL: two starts never write two). `made`: it was made now.
    private static func secret(at path: String, make: (inout SystemRandomNumberGenerator) -> String) throws -> (value: String, made: Bool) {
        if let text = try? String(contentsOfFile: path, encoding: .utf8),
           let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty {
            return (String(line), false)
        }
        var random = SystemRandomNumberGenerator()
        let value = make(&random)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // Made meanwhile by another start: that one is the secret. (An empty file left by a
            // crash before its write is replaced.)
            if errno == EEXIST, let text = try? String(contentsOfFile: path, encoding: .utf8),
               let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty {
                return (String(line), false)
            }
            if errno == EEXIST, unlink(path) == 0 { return try secret(at: path, make: make) }
            throw WebSecretFileError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let bytes = Array((value + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw WebSecretFileError(path: path, reason: String(cString: strerror(errno)))
        }
        return (value, true)
    }
}

struct WebSecretFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot write \(path): \(reason)" }
}
