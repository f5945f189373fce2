import Foundation

/// What `kiosk compose` knows of one input before it reads a frame: the probe's answers.
public struct ComposeClip: Sendable, Equatable {
    public var path: String
    /// Coded size of the picture (before the sample aspect and the rotation tag).
    public var codedSize: PixelSize
    public var sampleAspect: Rational
    /// The display matrix's rotation, to turn the picture upright.
    public var rotation: Rotation
    /// Frames per second as the container says (nil: unknown).
    public var frameRate: Rational?
    public var hasAudio: Bool
    /// What must be equal in every input for the video to be copied unchanged: codec, profile,
    /// pixel format, extradata... (the media layer's fingerprint of the codec parameters).
    public var videoCodecKey: String
    /// The same for the audio stream; nil when the clip has no sound.
    public var audioCodecKey: String?

    public init(path: String, codedSize: PixelSize, sampleAspect: Rational = .one, rotation: Rotation = .none,
                frameRate: Rational?, hasAudio: Bool, videoCodecKey: String, audioCodecKey: String? = nil) {
        self.path = path; self.codedSize = codedSize; self.sampleAspect = sampleAspect; self.rotation = rotation
        self.frameRate = frameRate; self.hasAudio = hasAudio; self.videoCodecKey = videoCodecKey
        self.audioCodecKey = audioCodecKey
    }

    /// The picture as a screen shows it at 1:1: the sample aspect applied to the width, then the
    /// rotation tag (a portrait phone clip coded 1920x1080 shows as 1080x1920).
    public var displayedSize: PixelSize {
        let sar = sampleAspect.isKnownAndPositive ? sampleAspect.doubleValue : 1
        let width = Swift.max(1, Int((Double(codedSize.width) * sar).rounded()))
        let upright = PixelSize(width: width, height: codedSize.height)
        return rotation.swapsAxes ? upright.transposed : upright
    }
}

/// What the user asked for on the command line.
public struct ComposeRequest: Sendable, Equatable {
    public var size: PixelSize?
    public var gravity: VideoGravity
    public var frameRate: Rational?
    /// A sound track laid over the whole instead of the clips' own sound.
    public var audioTrack: String?

    public init(size: PixelSize? = nil, gravity: VideoGravity = .fit, frameRate: Rational? = nil, audioTrack: String? = nil) {
        self.size = size; self.gravity = gravity; self.frameRate = frameRate; self.audioTrack = audioTrack
    }
}

/// How `kiosk compose` makes its output: copy every input's packets as they are (a remux), or
/// decode, lay each picture out on the output size with the gravity rules kiosk plays with,
/// and encode once.
public struct ComposePlan: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        /// Every input has the same codec parameters, size, rotation and frame rate, and nothing
        /// asks for a change: packets are copied, no encoder runs.
        case streamCopy
        case encode
    }

    public var mode: Mode
    /// The output picture (even width and height: H.264 in 4:2:0 needs them).
    public var size: PixelSize
    public var gravity: VideoGravity
    public var frameRate: Rational
    /// Whether the output has a sound track (the laid-over one, or the clips' own when any has sound).
    public var hasAudio: Bool
    /// Why packets could not be copied (nil when they are): for the log line.
    public var encodeReason: String?

    /// The frame rate when neither the user nor the first clip says one.
    public static let fallbackFrameRate = Rational(25, 1)

    public init(clips: [ComposeClip], request: ComposeRequest) {
        precondition(!clips.isEmpty, "compose needs a clip")
        let first = clips[0]
        let shown = request.size ?? first.displayedSize
        size = PixelSize(width: Swift.max(2, shown.width & ~1), height: Swift.max(2, shown.height & ~1))
        gravity = request.gravity
        let firstRate = first.frameRate.flatMap { $0.isKnownAndPositive ? $0 : nil } ?? Self.fallbackFrameRate
        frameRate = request.frameRate ?? firstRate
        hasAudio = request.audioTrack != nil || clips.contains { $0.hasAudio }
        encodeReason = Self.reasonToEncode(clips, request: request)
        mode = encodeReason == nil ? .streamCopy : .encode
    }

    /// nil when packets can be copied; else the first thing that differs, in words.
    static func reasonToEncode(_ clips: [ComposeClip], request: ComposeRequest) -> String? {
        let first = clips[0]
        if request.audioTrack != nil { return "--audio lays a new sound track" }
        if let size = request.size, size != first.displayedSize { return "--size \(size) differs from \(first.displayedSize)" }
        if let rate = request.frameRate, rate != first.frameRate { return "--fps \(rate.doubleValue) differs from the clips' rate" }
        if first.rotation != .none { return "\(first.path) has a rotation tag" }
        if first.codedSize.width % 2 != 0 || first.codedSize.height % 2 != 0 { return "\(first.path) has an odd size" }
        for clip in clips.dropFirst() {
            if clip.codedSize != first.codedSize { return "\(clip.path) is \(clip.codedSize), \(first.path) \(first.codedSize)" }
            if clip.sampleAspect != first.sampleAspect { return "\(clip.path) has another sample aspect" }
            if clip.rotation != first.rotation { return "\(clip.path) has a rotation tag" }
            if clip.frameRate != first.frameRate || clip.frameRate == nil { return "\(clip.path) has another frame rate" }
            if clip.videoCodecKey != first.videoCodecKey { return "\(clip.path) has other video codec parameters" }
            if clip.audioCodecKey != first.audioCodecKey { return "\(clip.path) has another sound (or none)" }
        }
        return nil
    }
}

/// Which output frames a stream of input frames fills, by pts: output frame n (at n / rate from
/// the clip's start) shows the last input frame whose pts is not after it; so a faster input's
/// extra frames are dropped and a slower one's are shown twice or more. Fed one input frame at a
/// time; the answer is how many output frames the previous one covers.
public struct FrameRateMapper: Sendable, Equatable {
    public let rate: Rational
    /// Output frames decided so far for this clip.
    public private(set) var emitted: Int64 = 0
    /// The pts of the frame held until the next one says how long it stays.
    public private(set) var heldPTS: MediaTime?

    public init(rate: Rational) {
        precondition(rate.isKnownAndPositive, "a frame rate")
        self.rate = rate
    }

    /// Output frame n's time in the clip.
    public func time(ofFrame n: Int64) -> MediaTime {
        MediaTime(value: n * rate.denominator, timescale: Int32(clamping: rate.numerator))
    }

    /// Output frames (from `emitted` on) whose time is before `end`.
    private func count(before end: MediaTime) -> Int64 {
        var n = emitted
        while time(ofFrame: n) < end { n += 1 }
        return n - emitted
    }

    /// An input frame at `pts` arrives: returns how many output frames the frame held before it
    /// fills (0 for the first frame, and for a frame dropped because the next came too soon).
    /// A pts that goes backwards counts as the held frame's (untrusted timestamps).
    public mutating func arrive(pts: MediaTime) -> Int64 {
        defer { if heldPTS == nil || pts >= heldPTS! { heldPTS = pts } }
        guard heldPTS != nil else {
            // The clip's first frame stands for its start, whatever its pts.
            return 0
        }
        let frames = count(before: Swift.max(pts, heldPTS!))
        emitted += frames
        return frames
    }

    /// The clip ends at `end` (the last frame's pts plus its duration): how many output frames
    /// the held frame fills up to there (at least one, so no frame of a clip is lost entirely).
    public mutating func finish(end: MediaTime) -> Int64 {
        guard heldPTS != nil else { return 0 }
        var frames = count(before: end)
        if emitted + frames == 0 { frames = 1 }
        emitted += frames
        heldPTS = nil
        return frames
    }

    /// The clip's length in the output: its frames at the output rate.
    public var duration: MediaTime { time(ofFrame: emitted) }
}

/// Sample counts that keep the sound lined up with the pictures over many clips: each clip's
/// sound is cut or padded with silence to end where its pictures end, rounded on the running
/// total so no rounding error adds up.
public struct AudioSpan: Sendable, Equatable {
    public let sampleRate: Int
    public private(set) var samplesSoFar: Int64 = 0

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// The samples the next clip takes, when the output's pictures end at `videoEnd` after it.
    public mutating func samples(untilVideoEnd videoEnd: MediaTime) -> Int64 {
        let total = videoEnd.ticks(in: Rational(1, Int64(sampleRate)))
        let count = Swift.max(0, total - samplesSoFar)
        samplesSoFar += count
        return count
    }
}

/// The progress line: `compose: 12.0 s of 30.0 s (40%)`, at most `perSecond` times a second.
public struct ProgressLine: Sendable {
    public let label: String
    public let total: Double
    public let interval: Double
    private var lastShown: Double?

    public init(label: String, total: Double, perSecond: Double = 4) {
        self.label = label; self.total = total; interval = 1 / perSecond
    }

    /// The text for `done` seconds at monotonic time `now`, or nil when the last one is too recent.
    public mutating func text(done: Double, now: Double, final: Bool = false) -> String? {
        if !final, let lastShown, now - lastShown < interval { return nil }
        lastShown = now
        let percent = total > 0 ? Int((Swift.min(done, total) / total * 100).rounded(.down)) : 100
        return String(format: "%@: %.1f s of %.1f s (%d%%)", label, done, total, final ? 100 : percent)
    }
}
