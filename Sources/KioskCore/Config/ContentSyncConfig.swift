/// `sync:`'s content keys: media fetched from an HTTP(S) manifest into a local store
/// (README, "Content sync"). Off while `manifest` is none.
public struct ContentSyncConfig: Sendable, Equatable {
    public static let defaultDirectory = "/var/lib/kiosk/sync"
    public static let parallelRange = 1...8

    /// Where the public key comes from: its text in kiosk.conf, or a minisign `.pub` file.
    public enum PublicKey: Sendable, Equatable {
        case text(String)
        case file(String)
    }

    /// `manifest`: the http(s) URL of the manifest; nil (none) turns content sync off.
    public var manifest: String?
    /// `interval`: seconds between polls of the manifest.
    public var interval = MediaTime(value: 300, timescale: 1)
    /// `dir`: the store (objects/, partial/, sets/, current).
    public var directory = defaultDirectory
    /// `parallel`: downloads at once.
    public var parallel = 4
    /// `max_rate`: bytes per second for all downloads together; 0 is unlimited.
    public var maxRate = 0
    /// `min_free`: bytes that must stay free on the store's file system after a sync.
    public var minFree = 512 << 20
    /// `ca_file`: a PEM bundle to verify servers with; nil is the system's.
    public var caFile: String?
    /// `public_key`: the minisign key manifests must be signed with; nil accepts unsigned ones.
    public var publicKey: PublicKey?

    public init() {}

    public var isEnabled: Bool { manifest != nil }
}
