import Foundation
import KioskCore
import Logging

/// kiosk.conf as it last loaded, kept in the state directory. An edit with an error is refused
/// at its reload and the old configuration plays on, but the file stays broken: at the next
/// boot (a power cut months later) `kiosk run` refused to start and systemd restarted it every
/// 5 s, a dark screen until someone came. Now the start plays this copy with the file's errors
/// logged, and takes the fixed file at once, as a reload. With no copy (a first start) a broken
/// file still stops the start: the installer sees it then.
package struct LastGoodConfig: Sendable {
    package let path: String

    package init(stateDirectory: String) {
        path = stateDirectory + "/last-good.conf"
    }

    /// Keeps `contents`, the bytes of a kiosk.conf that loaded (not rewritten when unchanged:
    /// an SD card's writes). Private: it may hold passwords (mqtt, web). A failure is one line.
    package func save(_ contents: Data, logger: Logger) {
        guard !contents.isEmpty, FileManager.default.contents(atPath: path) != contents else { return }
        do {
            try AtomicFile.write(contents, to: path, mode: 0o600)
        } catch {
            logger.warning("state: cannot keep the last good kiosk.conf (\(error)); a broken kiosk.conf stops the next start")
        }
    }

    /// The kept copy read as `configPath` (its relative paths against that file's directory)
    /// and when it was kept; nil when there is none or it does not load any more (a file it names
    /// may be gone: that only skips the item, but a rule of a newer kiosk may refuse it).
    package func load(as configPath: String) -> (config: KioskConfig, savedAt: Date)? {
        guard let data = FileManager.default.contents(atPath: path),
              let config = try? ConfigLoader.load(contents: data, path: configPath, settingPageFileAside: { _ in }) else {
            return nil
        }
        let savedAt = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        return (config, savedAt)
    }
}
