import ArgumentParser
import Glibc
import KioskCore
import KioskFetch
import KioskService

/// `kiosk manifest DIR --base-url URL`: the manifest content sync reads, made from a folder.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Write a content sync manifest (JSON: names, urls, sizes, sha256) for the media files of a folder.",
        discussion: """
            Files are listed in natural name order (clip2 before clip10); hidden files and files
            that are not media are left out. Each url is --base-url with the file's name.
            """)

    @Argument(help: "The folder whose files the manifest lists.")
    var directory: String

    @Option(name: .customLong("base-url"), help: "Where the files will be served from, like https://media.example.com/lobby/.")
    var baseURL: String

    @Option(name: .shortAndLong, help: "The file to write (default: standard output).")
    var output: String?

    @Option(help: "Also write OUTPUT.minisig, signed with this minisign secret key (minisign -G; one made with -W has no password).")
    var sign: String?

    @Option(name: .customLong("password-file"),
            help: "The password of an encrypted --sign key: the file's first line (else $KIOSK_MINISIGN_PASSWORD; kiosk never prompts).")
    var passwordFile: String?

    /// Where an encrypted key's password comes from when --password-file is not given. kiosk does
    /// not prompt on a tty: it signs from scripts and CI, where no one is there to type.
    static let passwordVariable = "KIOSK_MINISIGN_PASSWORD"

    func validate() throws {
        if passwordFile != nil && sign == nil { throw ValidationError("--password-file is for the key of --sign") }
        if sign != nil && output == nil { throw ValidationError("--sign needs -o: the signature goes beside the file, as OUTPUT.minisig") }
        guard let scheme = baseURL.split(separator: ":").first?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ValidationError("--base-url '\(baseURL)' is not an http(s) URL")
        }
    }

    func run() throws {
        let store = SyncStore(directory: directory)
        var isDirectory = stat()
        guard stat(directory, &isDirectory) == 0, (isDirectory.st_mode & S_IFMT) == S_IFDIR else {
            throw RuntimeFailure("\(directory): not a folder")
        }
        let names = NaturalOrder.sorted(store.names(in: directory).filter {
            !$0.hasPrefix(".") && PlaylistExpander.mediaExtensions.contains(($0.split(separator: ".").last ?? "").lowercased())
                && $0.contains(".")
        })
        let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        var files: [ControlValue] = []
        for name in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let size = SyncStore.size(of: path), let sha = SHA256.hexOfFile(at: path) else {
                throw RuntimeFailure("\(path): cannot read it")
            }
            files.append(.object([("name", .string(name)), ("url", .string(base + Self.percentEncoded(name))),
                                  ("size", .integer(size)), ("sha256", .string(sha))]))
        }
        // One file a line: a diff of two manifests shows what changed.
        let lines = files.map { "    " + $0.json }.joined(separator: ",\n")
        let text = "{\"version\": 1, \"files\": [\n\(lines)\n]}\n"
        guard let output else { print(text, terminator: ""); return }
        var signature: String?
        if let sign {
            guard let keyBytes = SyncStore.readWhole(sign) else { throw RuntimeFailure("\(sign): cannot read the secret key") }
            let name = output.split(separator: "/").last.map(String.init) ?? output
            var key = MinisignSecretKey.parse(String(decoding: keyBytes, as: UTF8.self))
            if case .success(let parsed) = key { key = try unlocked(parsed, keyFile: sign) }
            switch key.flatMap({ Minisign.sign(Array(text.utf8), fileName: name, key: $0, timestamp: Int64(time(nil))) }) {
            case .failure(let error): throw RuntimeFailure("\(sign): \(error)")
            case .success(let text): signature = text
            }
        }
        // Whole or not at all: a server never serves half of it.
        do {
            try AtomicFile.write(text, to: output)
            if let signature { try AtomicFile.write(signature, to: output + ".minisig") }
        } catch {
            throw RuntimeFailure("\(error)")
        }
        writeStandardError("\(output): \(files.count) files" + (signature != nil ? ", signed in \(output).minisig" : ""))
    }

    /// The key itself: an encrypted one is decrypted with the password from --password-file or
    /// the environment; the error names where the password came from, so a wrong one is traced.
    func unlocked(_ key: MinisignSecretKey, keyFile: String) throws -> Result<MinisignSecretKey, MinisignFormatError> {
        guard key.scrypt != nil else { return .success(key) }
        let password: [UInt8]
        let source: String
        if let passwordFile {
            guard let bytes = SyncStore.readWhole(passwordFile) else { throw RuntimeFailure("\(passwordFile): cannot read the password file") }
            password = Self.firstLine(bytes)
            source = "--password-file \(passwordFile)"
        } else if let value = getenv(Self.passwordVariable) {
            password = Self.firstLine(Array(String(cString: value).utf8))
            source = "$\(Self.passwordVariable)"
        } else {
            throw RuntimeFailure("\(keyFile): the secret key is encrypted with a password; give --password-file FILE or set "
                                 + "\(Self.passwordVariable) (kiosk does not prompt)")
        }
        return Minisign.decrypted(key, password: password).mapError {
            $0.description.hasPrefix("wrong password") ? MinisignFormatError("wrong password (from \(source)) for this secret key") : $0
        }
    }

    /// The password as minisign reads it from its prompt: the first line, without "\n" or "\r\n".
    static func firstLine(_ bytes: [UInt8]) -> [UInt8] {
        var line = Array(bytes.prefix { $0 != UInt8(ascii: "\n") })
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }

    /// A name as a URL path segment (RFC 3986 unreserved characters kept).
    static func percentEncoded(_ name: String) -> String {
        name.percentEscaped { scalar in
            !(scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar)))
        }
    }
}
