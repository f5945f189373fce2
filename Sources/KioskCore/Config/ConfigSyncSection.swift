import Foundation
import Yams

/// kiosk.conf's `sync` section (model: `SyncConfig`): frame sync's `epoch` and content sync's
/// keys share it; either half may be left out.
extension ConfigWalker {
    static let syncKeys = ["epoch", "manifest", "interval", "dir", "parallel", "max_rate", "min_free", "ca_file", "public_key"]
    static let contentSyncKeys = Array(syncKeys.dropFirst())

    func readSync(_ node: Node?, playback: PlaybackConfig, baseDirectory: String,
                  fileSystem: any PlaylistFileSystem) -> SyncConfig {
        var sync = SyncConfig()
        guard let section = section(node, name: "sync", allowedKeys: Self.syncKeys) else { return sync }
        sync.content = readContentSync(section, baseDirectory: baseDirectory, fileSystem: fileSystem)
        let hasContentKeys = Self.contentSyncKeys.contains { section[$0] != nil }
        guard let text = string(section, "epoch", expected: InstantText.expected) else {
            if section["epoch"] == nil && !hasContentKeys && !section.hasUntakenKeys {
                report(section.node, "the sync section has no 'epoch' (frame sync) nor 'manifest' (content sync); expected "
                       + "epoch: \(InstantText.expected), or manifest: a URL (or leave the section out)")
            }
            return sync
        }
        guard let epoch = InstantText.nanoseconds(parsing: text) else {
            report(section["epoch"], "'epoch' in sync is '\(text)': not a valid instant; expected \(InstantText.expected)")
            return sync
        }
        // The timeline loops; a playlist that stops, or one item repeated, is not a timeline.
        if playback.loop != .playlist {
            report(section.keyNode("epoch"), "sync needs 'playback.loop: playlist' (the timeline loops the whole playlist); "
                   + "loop is '\(playback.loop.rawValue)'")
            return sync
        }
        sync.epoch = epoch
        return sync
    }

    /// Only the directory is needed before the items are read (a `- sync: true` entry lists it).
    func contentSyncDirectory(_ node: Node?, baseDirectory: String) -> String {
        guard let node, let text = node.mapping?["dir"]?.scalar?.string, !text.isEmpty else {
            return ContentSyncConfig.defaultDirectory
        }
        return PathText.resolve(text, against: baseDirectory)
    }

    private func readContentSync(_ section: SectionMap, baseDirectory: String,
                                 fileSystem: any PlaylistFileSystem) -> ContentSyncConfig {
        var content = ContentSyncConfig()
        let urlExpected = "none or the http(s) URL of a manifest, like https://media.example.com/lobby/manifest.json"
        if let text = string(section, "manifest", expected: urlExpected), text.lowercased() != "none" {
            if let scheme = ItemSource.urlScheme(of: text), scheme == "http" || scheme == "https",
               text.count > scheme.count + 3 {
                content.manifest = text
            } else {
                report(section["manifest"], "'manifest' in sync is '\(text)'; expected \(urlExpected)")
            }
        }
        if let interval = seconds(section, "interval", above: MediaTime(value: 1, timescale: 1), allowingMinimum: true) {
            content.interval = interval
        }
        if let folder = string(section, "dir", expected: "the path of a folder of kiosk's own, like /var/lib/kiosk/sync") {
            content.directory = PathText.resolve(folder, against: baseDirectory)
            if content.directory == "/" {
                report(section["dir"], "'dir' in sync is '/'; expected a folder of kiosk's own like /var/lib/kiosk/sync")
            }
        }
        content.parallel = integer(section, "parallel", in: ContentSyncConfig.parallelRange, unit: " (downloads at once)")
            ?? content.parallel
        content.maxRate = byteSize(section, "max_rate", expected: "0 (no limit) or bytes per second like 2M or 500K")
            ?? content.maxRate
        content.minFree = byteSize(section, "min_free", expected: "a size like 512M, 1G or a number of bytes")
            ?? content.minFree
        if let text = string(section, "ca_file", expected: "system or the path of a PEM file"), text != "system" {
            let path = PathText.resolve(text, against: baseDirectory)
            if fileSystem.kind(ofItemAt: path) == .file { content.caFile = path }
            else { report(section["ca_file"], "CA file '\(path)' does not exist; expected system or the path of a PEM file") }
        }
        let keyExpected = "none, a minisign public key (RW...) or the path of a minisign .pub file"
        if let text = string(section, "public_key", expected: keyExpected), text != "none" {
            if MinisignKeyText.isPublicKey(text) {
                content.publicKey = .text(text)
            } else if text.hasPrefix("RW") || !(text.contains("/") || text.hasSuffix(".pub")) {
                report(section["public_key"], "'public_key' in sync is not a minisign public key (56 base64 characters "
                       + "starting with RW); expected \(keyExpected)")
            } else {
                let path = PathText.resolve(text, against: baseDirectory)
                if fileSystem.kind(ofItemAt: path) == .file { content.publicKey = .file(path) }
                else { report(section["public_key"], "public key file '\(path)' does not exist; expected \(keyExpected)") }
            }
        }
        return content
    }

}

/// A minisign public key as its `.pub` file's second line: base64 of "Ed", an 8-byte key id and
/// the 32-byte Ed25519 key (42 bytes, 56 characters).
public enum MinisignKeyText {
    public static func isPublicKey(_ text: String) -> Bool {
        guard text.count == 56, let bytes = Data(base64Encoded: text) else { return false }
        return bytes.count == 42 && bytes.prefix(2) == Data("Ed".utf8)
    }
}
