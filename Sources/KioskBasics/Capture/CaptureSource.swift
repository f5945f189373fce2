/// A live capture item: `v4l2:///dev/video0`, a webcam or an HDMI capture card read through
/// FFmpeg's v4l2 device demuxer (libavdevice). It has no duration: it plays until a schedule,
/// a trigger or a command moves on, and a device that disappears is a failed item, tried again
/// with the playlist's backoff like any other. Not a network source: no reconnect options, and
/// the stall guard ends it when its frames stop.
public struct CaptureSource: Sendable, Equatable {
    /// FFmpeg's input format name for the device.
    public var format: String
    /// The device node, e.g. /dev/video0.
    public var device: String

    /// The schemes that name a capture device, and FFmpeg's demuxer for each.
    package static let formats = ["v4l2": "v4l2"]

    public init(format: String, device: String) {
        self.format = format
        self.device = device
    }

    /// The capture device `source` names, nil when it names none. `v4l2:///dev/video0` and
    /// `v4l2:/dev/video0` both name /dev/video0; a relative or empty device is none.
    public init?(_ source: String) {
        guard let colon = source.firstIndex(of: ":") else { return nil }
        let scheme = source[..<colon].lowercased()
        guard let format = Self.formats[scheme] else { return nil }
        var rest = source[source.index(after: colon)...]
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        guard rest.hasPrefix("/"), rest.count > 1 else { return nil }
        self.format = format
        device = String(rest)
    }

    /// Whether `source` is written as a capture item (a scheme of `formats`), well formed or not.
    public static func isCapture(_ source: String) -> Bool {
        guard let colon = source.firstIndex(of: ":") else { return false }
        return formats[source[..<colon].lowercased()] != nil
    }
}
