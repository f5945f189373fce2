/// Keeps the timestamps of one file continuous where the file's own jump. MPEG-TS and PS allow
/// discontinuities: a capture cut and joined, or two recordings concatenated with `cat`, jump
/// by minutes or hours (or back to 0) in the middle. Taken as they are, the clock would wait an
/// hour for the next frame, or every frame would be late, and the playlist would stall. Like
/// ffmpeg (`-dts_delta_threshold`, 10 s), a jump of more than `threshold` from where a stream
/// was expected to go on is taken out by an offset that applies to every stream from then on,
/// so sound and picture keep their relation.
public struct TimestampContinuity: Sendable, Equatable {
    /// Microseconds; ffmpeg's default for formats with discontinuities.
    public static let threshold: Int64 = 10_000_000
    /// A packet's duration is untrusted too: a damaged H.264 header gave every frame of a
    /// transport stream 20.5 s, each packet then looked like a jump back by 20.5 s from where
    /// the stream "should" go on, and each was moved 20.5 s further (issue 12). A video frame
    /// or a sound packet lasts far less than a second; more is taken as a second.
    public static let longestTrustedDuration: Int64 = 1_000_000

    /// Microseconds added to every timestamp read from now on.
    public private(set) var offset: Int64 = 0
    /// Per stream, where its next packet should start (corrected, microseconds).
    private var expected: [Int: Int64] = [:]

    public init() {}

    /// Notes a packet of `stream` whose decode timestamp is `timestamp` and that lasts
    /// `duration` (microseconds, as read); returns the offset to add to its timestamps.
    public mutating func correction(stream: Int, timestamp: Int64, duration: Int64) -> Int64 {
        if let next = expected[stream] {
            let corrected = timestamp &+ offset
            let jump = corrected > next ? corrected - next : next - corrected
            if jump > Self.threshold { offset = offset &+ (next - corrected) }
        }
        expected[stream] = timestamp &+ offset &+ Swift.min(Self.longestTrustedDuration, Swift.max(0, duration))
        return offset
    }

    /// After a seek: the file's timestamps are taken as they are again.
    public mutating func reset() {
        offset = 0
        expected = [:]
    }
}
