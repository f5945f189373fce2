import CFFmpeg
import KioskCore

/// How URLs are opened: FFmpeg's own http reconnect first (a dropped connection is resumed at
/// its byte offset, or reopened for a streamed one, within the same read), and socket
/// timeouts so a silent server turns into an error instead of a thread blocked forever.
/// What FFmpeg's reconnect cannot save is left to `StreamReader`, which reopens the item.
public enum NetworkOpenOptions {
    /// The open and probe of a URL are given up after this long (the item fails, once per pass).
    public static let openTimeoutSeconds = 10.0
    /// A socket that gives no byte for this long is an error (FFmpeg's `rw_timeout`); HLS
    /// passes it on to the connections for its segments.
    public static let socketTimeoutMicroseconds = 5_000_000
    /// The longest wait between FFmpeg's own http reconnects (its delays go 0, 1, 3 s ...).
    public static let reconnectDelayMaxSeconds = 2

    private static let networkInit: Void = { _ = avformat_network_init() }()

    /// `avformat_network_init` once per process (TLS libraries want it before threads use them).
    static func initializeNetworkOnce() { _ = networkInit }

    /// The options for `avformat_open_input`, owned by the caller (`av_dict_free`).
    static func dictionary(for source: String) -> OpaquePointer? {
        var options: OpaquePointer? = nil
        av_dict_set(&options, "rw_timeout", "\(socketTimeoutMicroseconds)", 0)
        if let scheme = NetworkURL.scheme(of: source), scheme == "http" || scheme == "https" {
            av_dict_set(&options, "reconnect", "1", 0)
            av_dict_set(&options, "reconnect_streamed", "1", 0)
            av_dict_set(&options, "reconnect_delay_max", "\(reconnectDelayMaxSeconds)", 0)
        }
        return options
    }

    /// After the open: FFmpeg's http reconnects on network errors too (a reset connection
    /// mid-file). Not at the open, where it would retry a refused connection for a second or
    /// more; kiosk's own reopen with backoff covers that, and a dead URL is skipped at once.
    static func enableReconnectOnErrors(_ context: UnsafeMutablePointer<AVFormatContext>, source: String) {
        guard let scheme = NetworkURL.scheme(of: source), scheme == "http" || scheme == "https",
              let io = context.pointee.pb else { return }
        _ = av_opt_set(UnsafeMutableRawPointer(io), "reconnect_on_network_error", "1", AV_OPT_SEARCH_CHILDREN)
    }
}
