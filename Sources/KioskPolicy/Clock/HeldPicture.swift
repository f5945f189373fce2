import KioskBasics

/// Whether the picture on screen is held on purpose while the item's sound plays on: a song's
/// cover (one picture for the whole song), or a video stream that ended, or pauses, while its
/// sound goes on (a slideshow exported shorter than its music, a clip with a spoken outro over
/// its last frame). Then a frame queue that runs dry is no slow decoder and no slow link, and
/// the clock goes on with the sound instead of waiting for a frame that is not coming (it
/// waited, the sound stopped with it, and the stall watch skipped the item as frozen).
///
/// The demux thread notes each packet's end per kind since the item's start or its last seek.
/// Once sound is demuxed `lead` past the picture's furthest packet, no picture is coming for
/// that long. Pure: the engine feeds it.
public struct HeldPicture: Sendable, Equatable {
    /// How far sound must be demuxed past the picture: more than ordinary files interleave
    /// (FFmpeg's MP4 reader keeps streams within a second of each other, an AVI's sound comes
    /// in chunks of up to a second, B-frames put a packet's end behind the furthest), less than
    /// the sound queued ahead (512 packets: over 10 s of AAC or MP3).
    public static let lead = MediaTime(value: 2, timescale: 1)
    /// The picture counts as held only once the screen shows one within this of the picture's
    /// end: before that, the frames still to come are the decoder's to deliver, and a dry queue
    /// is a slow decoder as ever (the demuxer reads seconds ahead of the screen).
    public static let shownBar = MediaTime(value: 1, timescale: 4)

    /// The end of the furthest picture packet demuxed; nil before one.
    public private(set) var pictureEnd: MediaTime?
    /// The end of the furthest sound packet demuxed; nil before one.
    public private(set) var soundEnd: MediaTime?
    /// The end of the first sound packet demuxed.
    private var soundBegan: MediaTime?

    public init() {}

    public mutating func notePicture(end: MediaTime) { pictureEnd = Swift.max(pictureEnd ?? end, end) }

    public mutating func noteSound(end: MediaTime) {
        if soundBegan == nil { soundBegan = end }
        soundEnd = Swift.max(soundEnd ?? end, end)
    }

    /// A seek: what was demuxed before it says nothing of the new position.
    public mutating func restart() {
        pictureEnd = nil
        soundEnd = nil
        soundBegan = nil
    }

    /// Whether the sound is demuxed far enough past the picture that none is coming for now:
    /// at once for a cover picture; else `lead` past the picture's furthest packet (or a `lead`
    /// of sound with no picture at all: a seek into the sound after the picture's end).
    public func soundOutruns(isCover: Bool) -> Bool {
        guard let soundEnd, let soundBegan else { return false }
        if isCover { return true }
        return soundEnd - (pictureEnd ?? soundBegan) > Self.lead
    }

    /// Whether the picture on screen (`shown`, nil before one) holds while the sound plays: a
    /// cover always once sound comes; else once the sound outruns the picture and the screen
    /// shows its last frames.
    public func holds(isCover: Bool, shown: MediaTime?) -> Bool {
        guard soundOutruns(isCover: isCover) else { return false }
        if isCover { return true }
        guard let shown else { return false }
        return shown + Self.shownBar >= (pictureEnd ?? .zero)
    }
}
