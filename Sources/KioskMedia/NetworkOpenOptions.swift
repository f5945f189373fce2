import CFFmpeg
import KioskCore

/// An item's own settings for its URL (`transport`, `latency` in kiosk.conf).
public struct StreamOptions: Sendable, Equatable {
    public var transport: StreamTransport?
    public var latency: MediaTime?

    public init(transport: StreamTransport? = nil, latency: MediaTime? = nil) {
        self.transport = transport
        self.latency = latency
    }

    /// What FFmpeg is told: RTSP's `rtsp_transport`; SRT's `latency`, in microseconds.
    func ffmpegOptions(scheme: String) -> [(String, String)] {
        var options: [(String, String)] = []
        if let transport, scheme == "rtsp" || scheme == "rtsps" { options.append(("rtsp_transport", transport.rawValue)) }
        if let latency, scheme == "srt" { options.append(("latency", "\(Int64((latency.seconds * 1_000_000).rounded()))")) }
        return options
    }
}

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
    static func dictionary(for source: String, _ item: StreamOptions = StreamOptions()) -> OpaquePointer? {
        var options: OpaquePointer? = nil
        av_dict_set(&options, "rw_timeout", "\(socketTimeoutMicroseconds)", 0)
        if let scheme = NetworkURL.scheme(of: source), scheme == "http" || scheme == "https" {
            av_dict_set(&options, "reconnect", "1", 0)
            av_dict_set(&options, "reconnect_streamed", "1", 0)
            av_dict_set(&options, "reconnect_delay_max", "\(reconnectDelayMaxSeconds)", 0)
        }
        if let scheme = NetworkURL.scheme(of: source), LiveSource.liveSchemes.contains(scheme) {
            for (key, value) in liveOptions(scheme: scheme) + item.ffmpegOptions(scheme: scheme) {
                av_dict_set(&options, key, value, 0)
            }
        }
        return options
    }

    /// A live stream's: a picture within a second of joining (half a second of probing rather
    /// than FFmpeg's five: a multicast join showed its first picture after 5.3 s with the
    /// default, 1.2 s with this), no buffering of its own, and a silent socket an error after
    /// 2 s (FFmpeg 5.1 and 7.1 call it `timeout`, in microseconds; `stimeout` is gone). UDP: a
    /// burst that overruns the socket's queue drops packets instead of ending the stream.
    /// HLS is live or not only once opened: it keeps FFmpeg's probing.
    static func liveOptions(scheme: String) -> [(String, String)] {
        var options = [("analyzeduration", "500000"), ("fflags", "nobuffer")]
        switch scheme {
        case "udp", "rtp":
            // fifo_size counts 188-byte packets: 57344 is 10.8 MB, 2 s of 40 Mbit/s (FFmpeg's default half).
            options += [("timeout", "2000000"), ("overrun_nonfatal", "1"), ("fifo_size", "57344")]
        case "rtsp", "rtsps":
            options += [("timeout", "2000000")]
        default:
            break
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
