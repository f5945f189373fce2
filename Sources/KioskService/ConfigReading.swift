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

    /// For `kiosk run`'s start: as `load`, but a web.page_file that cannot be read (edited by
    /// hand, or written by a kiosk with other rules) is set aside with its errors and kiosk.conf's
    /// own playlist plays: a screen must not stay dark for the page's file. (A reload keeps what
    /// plays instead: the page file's errors reject it, as kiosk.conf's do.)
    /// Also the bytes it read, for `LastGoodConfig`.
    package static func loadForStart(_ path: String, logger: Logger) throws -> (config: KioskConfig, contents: Data) {
        do {
            // Unreadable: load(path:) says why (no such file, a directory, permissions).
            guard let contents = FileManager.default.contents(atPath: path) else { return (try ConfigLoader.load(path: path), Data()) }
            return (try ConfigLoader.load(contents: contents, path: path) { problems in
                logPageFileSetAside(problems, of: path, playing: "kiosk.conf's own playlist, schedule and power windows", logger: logger)
            }, contents)
        } catch {
            throw ConfigFailure(text: "\(error)")
        }
    }

    /// The playlist entries; what cannot be expanded now (a missing file, an empty folder) is
    /// logged and skipped, since it may appear later.
    /// `fileSystem` leaves out files of watched folders still being written (`SettledFileSystem`).
    package static func entries(of config: KioskConfig, logger: Logger,
                        fileSystem: any PlaylistFileSystem = LocalFileSystem()) -> [PlaylistEntry] {
        expanded(config, logger: logger, fileSystem: fileSystem).entries
    }

    /// A web.page_file set aside at a start (`ConfigLoader.load`'s `settingPageFileAside`): what
    /// plays instead, then its errors, each on its own line.
    package static func logPageFileSetAside(_ problems: ConfigError, of path: String, playing: String, logger: Logger) {
        let line = "\(path): web.page_file cannot be read, so \(playing) play until it is fixed (the page's next save writes it whole); its errors:"
        logger.error("\(line)")
        for diagnostic in problems.diagnostics { logger.error("\(diagnostic)") }
    }

    /// As `entries`, with the problems said (the folder watcher's next look says only new ones).
    package static func expanded(_ config: KioskConfig, logger: Logger,
                                 fileSystem: any PlaylistFileSystem = LocalFileSystem()) -> (entries: [PlaylistEntry], problems: [String]) {
        let expansion = PlaylistExpander(fileSystem: fileSystem).expand(config.items)
        for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
        return (expansion.entries, expansion.diagnostics.map(\.description))
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
