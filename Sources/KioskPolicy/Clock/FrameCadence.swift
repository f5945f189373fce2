/// The spacing of an item's frames as the screen learns it: the gap between two frames put up
/// one after the other, each the next the decoder gave. Not across a dropped frame: on a loaded
/// box the pacer drops late frames, and the gap over one is two or three frames long. Not
/// across a seek or a stall either: the frame before it is of another place. Read as one frame
/// by a stall's waiting place, a pause's settling and the seams: CI's starved vkms guest took
/// a 0.12 s gap for the cadence of a 25 fps clip, waited at 0.96 s for 0.88, and a pause there
/// said 0.96 while 0.88 went up and took the clock back to it.
public enum FrameCadence {
    /// - Parameters:
    ///   - previous: the pts of the frame on screen before, if any.
    ///   - current: the pts of the frame just put up.
    ///   - lastDropped: the pts of the last frame the pacer dropped, if any.
    ///   - continuesRun: `current` follows `previous` in one run of the clock (not the first
    ///     frame after a start, a seek or a stall).
    /// - Returns: the frame spacing this pair shows, or nil where it shows none.
    public static func observed(previous: MediaTime?, current: MediaTime, lastDropped: MediaTime?,
                                continuesRun: Bool) -> MediaTime? {
        guard continuesRun, let previous, current > previous else { return nil }
        if let dropped = lastDropped, dropped > previous, dropped < current { return nil }
        return current - previous
    }
}
