/// `playback.deinterlace`: how frames whose two fields were taken a field's time apart (1080i
/// broadcast masters, MPEG-2 TS recordings, DV tapes) reach a progressive panel.
public enum Deinterlacing: String, Sendable, CaseIterable {
    /// Frames the stream flags interlaced are woven whole (FFmpeg's bwdif); the others, and a
    /// stream that flags none, are shown as decoded at no cost.
    case auto
    /// Every frame of every video goes through bwdif: for a stream flagged progressive whose
    /// pictures are interlaced all the same (a mislabelled encode).
    case on
    /// Frames are shown as decoded, combs and all (as mpv's default).
    case off
}
