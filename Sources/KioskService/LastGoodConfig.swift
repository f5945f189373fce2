import Foundation
import KioskCore
import Logging

/// kiosk.conf as it last loaded, kept in the state directory. An edit with an error is refused
/// at its reload and the old configuration plays on, but the file stays broken: at the next
/// boot (a power cut months later) `kiosk run` refused to start and systemd restarted it every
/// 5 s, a dark screen until someone came. Now the start plays this copy with the file's errors
/// logged, and takes the fixed file at once, as a reload. With no copy (a first start) a broken
/// file still stops the start: the installer sees it then.
///
/// The copy's first line names the file it is of: a `kiosk run --config /tmp/test.conf` with the
/// same state directory replaces it, and must not stand in for /etc/kiosk/kiosk.conf later.
package struct LastGoodConfig: Sendable {
    package let path: String

    package init(stateDirectory: String) {
        path = stateDirectory + "/last-good.conf"
    }

    private static func header(of configPath: String) -> Data {
        let absolute = PathText.resolve(configPath, against: FileManager.default.currentDirectoryPath)
        return Data("# kiosk: the last good copy of \(absolute)\n".utf8)
    }

    /// Keeps `contents`, the bytes of `configPath` that loaded (not rewritten when unchanged:
    /// an SD card's writes). Private: it may hold passwords (mqtt, web). A failure is one line.
    package func save(_ contents: Data, of configPath: String, logger: Logger) {
        let copy = Self.header(of: configPath) + contents
        guard !contents.isEmpty, FileManager.default.contents(atPath: path) != copy else { return }
        do {
            try AtomicFile.write(copy, to: path, mode: 0o600)
        } catch where error.code == EROFS {
            // A read-only root (overlayroot, the bed's guests) is a choice: said, not warned.
            logger.notice("state: the state directory is read-only, so no last good kiosk.conf is kept (\(error))")
        } catch {
            logger.warning("state: cannot keep the last good kiosk.conf (\(error)); a broken kiosk.conf stops the next start")
        }
    }

    /// The kept copy of `configPath` read as that file (its relative paths against its
    /// directory) and when it was kept; nil when there is none, it is another file's, or it does
    /// not load any more (a rule of a newer kiosk may refuse it).
    package func load(as configPath: String, logger: Logger) -> (config: KioskConfig, savedAt: Date)? {
        let header = Self.header(of: configPath)
        guard let data = FileManager.default.contents(atPath: path), data.starts(with: header) else { return nil }
        let setAside = { (problems: ConfigError) in
            ConfigReading.logPageFileSetAside(problems, of: configPath, playing: "the last good kiosk.conf's own playlist, schedule and power windows",
                                              logger: logger)
        }
        guard let config = try? ConfigLoader.load(contents: Data(data.dropFirst(header.count)), path: configPath,
                                                  settingPageFileAside: setAside) else { return nil }
        let savedAt = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return (config, savedAt)
    }
}
