import KioskBasics

/// Whether the picture on screen is held on purpose while the item's sound plays on: a song's
/// cover (one picture for the whole song), or a video stream that ended, or pauses, while its
/// sound goes on (a slideshow exported shorter than its music, a clip with a spoken outro over
/// its last frame). Then a frame queue that runs dry is no slow decoder and no slow link, and
/// the clock goes on with the sound instead of waiting for a frame that is not coming (it
/// waited, the sound stopped with it, and the stall watch skipped the item as frozen).
///
/// The demux thread notes each packet's end per kind since the item's start or its last seek.
/// Once sound is demuxed `lead` past the picture's last packet, no picture is coming for that
/// long. Pure: the engine feeds it.
public struct HeldPicture: Sendable, Equatable {
    /// How far sound must be demuxed past the last picture: more than the interleaving of an
    /// ordinary file (a muxer writes a stream's packets within half a second of the others'),
    /// less than the sound queued ahead (512 packets: over 10 s of AAC or MP3).
    public static let lead = MediaTime(value: 1, timescale: 1)

    /// The end of the newest picture packet demuxed; nil before one.
    public private(set) var pictureEnd: MediaTime?
    /// The end of the newest sound packet demuxed; nil before one.
    public private(set) var soundEnd: MediaTime?
    /// The end of the first sound packet demuxed.
    private var soundBegan: MediaTime?

    public init() {}

    public mutating func notePicture(end: MediaTime) { pictureEnd = end }
    public mutating func noteSound(end: MediaTime) {
        if soundBegan == nil { soundBegan = end }
        soundEnd = end
    }

    /// A seek: what was demuxed before it says nothing of the new position.
    public mutating func restart() {
        pictureEnd = nil
        soundEnd = nil
        soundBegan = nil
    }

    /// Whether the picture holds while the sound plays: always for a cover picture once sound is
    /// demuxed; else once the sound is `lead` past the last picture (or a `lead` of sound came
    /// with no picture at all: a seek into the sound after the picture's end).
    public func holds(isCover: Bool) -> Bool {
        guard let soundEnd, let soundBegan else { return false }
        if isCover { return true }
        return soundEnd - (pictureEnd ?? soundBegan) > Self.lead
    }
}
