/// One problem found in a configuration file, printed the way compilers do:
/// `kiosk.conf:12:5: what was wrong; what was expected`.
public struct ConfigDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String

    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    public init(file: String, line: Int, column: Int, message: String) {
        self.init(location: SourceLocation(file: file, line: line, column: column), message: message)
    }

    public var file: String { location.file }
    public var line: Int { location.line }
    public var column: Int { location.column }
    public var description: String { "\(location): \(message)" }
}

/// Every problem of one configuration file (never just the first), in file order.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(diagnostics: [ConfigDiagnostic]) { self.diagnostics = diagnostics }

    /// One diagnostic per line, ready for stderr.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
