import Foundation
import KioskCore
import Logging

/// Reading kiosk.conf for `run` and `check`.
package enum ConfigReading {
    /// The validated configuration; its errors, one per line with file:line:column, as a
    /// usage failure (exit 2).
    package static func load(_ path: String) throws -> KioskConfig {
        do {
            return try ConfigLoader.load(path: path)
        } catch {
            throw ConfigFailure(text: "\(error)")
        }
    }

    /// The playlist entries; what cannot be expanded now (a missing file, an empty folder) is
    /// logged and skipped, since it may appear later.
    /// `fileSystem` leaves out files of watched folders still being written (`SettledFileSystem`).
    package static func entries(of config: KioskConfig, logger: Logger,
                        fileSystem: any PlaylistFileSystem = LocalFileSystem()) -> [PlaylistEntry] {
        let expansion = PlaylistExpander(fileSystem: fileSystem).expand(config.items)
        for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
        return expansion.entries
    }
}

/// kiosk.conf has errors: exit 2, each on its own line.
package struct ConfigFailure: Error, CustomStringConvertible {
    package let text: String
    package init(text: String) { self.text = text }
    package var description: String { text }
}

/// A failure to report as one line on stderr with exit code 1.
package struct RuntimeFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
