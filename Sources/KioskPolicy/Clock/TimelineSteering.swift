/// What a synchronised player (`sync: epoch:`) does at a frame to stay on the shared timeline.
/// Pure: the engine's sequencer acts on the answer.
///
/// The timeline's time is CLOCK_REALTIME, which chrony or linuxptp keep equal on every box, and
/// slew (never step, once synchronised) when they correct it. So the playback clock is tied to
/// it directly at every frame (`follow`): the frame pacer then shows, at each refresh of each
/// screen, the frame due on the shared timeline, repeating or dropping single frames as the
/// screen's own refresh drifts against real time, never jumping in big steps. Only a player
/// that is somewhere else altogether (a start, a restart, a reload, a step of the clock) moves
/// there at once (`jump`).
public enum TimelineSteering {
    public enum Correction: Sendable, Hashable {
        /// On the timeline already.
        case none
        /// Set the clock to show `position` (the current item's trimmed time) now.
        case follow(position: MediaTime)
        /// Play entry `entry` from `offset` (trimmed time within one play of it), as its play
        /// `play` (counted from 0) of a repeated entry (`loop: N`): the plays left follow it.
        case jump(entry: Int, offset: MediaTime, play: Int = 0)
    }

    /// How far the item may be from the timeline and still be steered by the clock alone:
    /// within this, frames are dropped or held to catch up; beyond it a seek is quicker.
    public static let jumpThreshold = MediaTime(value: 1, timescale: 2)
    /// Before its first frame is up an item may still be moved for free (a seek before any
    /// decoding): beyond this it starts at the timeline's position instead of catching up.
    public static let startingThreshold = MediaTime(value: 1, timescale: 20)
    /// Smaller differences are left alone (rounding of the two clocks' readings).
    public static let ignoredDifference = MediaTime(value: 1, timescale: 10_000)

    /// - Parameters:
    ///   - playLengths: one play of each entry (its slot on the timeline is `loop count x` it);
    ///     nil for an entry not on the timeline.
    ///   - entry: the entry playing (an index into the list the timeline was made from).
    ///   - position: where it is now (trimmed time); nil: unknown, go to the timeline's place.
    ///   - isStarting: its first frame is not up yet (`position` is where it will start).
    ///   - realtime: CLOCK_REALTIME now, in nanoseconds.
    public static func decide(timeline: SyncTimeline, playLengths: [MediaTime?], entry: Int, position: MediaTime?,
                              isStarting: Bool = false, realtime: Int64) -> Correction {
        let place = timeline.place(atRealtime: realtime)
        let (placePlay, placeOffset) = play(at: place.offset, entry: place.entry, timeline: timeline, playLengths: playLengths)
        let jump = Correction.jump(entry: place.entry, offset: placeOffset, play: Int(placePlay))
        guard let position, let slotOffset = timeline.offset(ofEntry: entry, atRealtime: realtime, near: position)
        else { return jump }
        // The play of the entry the timeline is in; before its slot the first, past it the last
        // (an item a little longer or shorter than its slot reaches its seam by the clock).
        let (_, target) = play(at: slotOffset, entry: entry, timeline: timeline, playLengths: playLengths)
        let difference = target - position
        let magnitude = difference < .zero ? .zero - difference : difference
        if magnitude > (isStarting ? startingThreshold : jumpThreshold) { return jump }
        return magnitude > ignoredDifference ? .follow(position: target) : .none
    }

    /// Which play of a repeated entry an offset into its slot falls in, and the offset within
    /// that play; offsets before the slot belong to the first play, past it to the last.
    static func play(at slotOffset: MediaTime, entry: Int, timeline: SyncTimeline,
                     playLengths: [MediaTime?]) -> (play: Int64, offset: MediaTime) {
        guard playLengths.indices.contains(entry), let length = playLengths[entry], length > .zero else { return (0, slotOffset) }
        let lengthNanos = length.ticks(in: Rational(1, 1_000_000_000))
        guard lengthNanos > 0, timeline.slots.indices.contains(entry) else { return (0, slotOffset) }
        let plays = Swift.max(1, (timeline.slots[entry] + lengthNanos / 2) / lengthNanos)
        let offsetNanos = slotOffset.ticks(in: Rational(1, 1_000_000_000))
        let play = Swift.min(plays - 1, Swift.max(0, offsetNanos / lengthNanos))
        return (play, slotOffset - length * Rational(play, 1))
    }

    /// The sound plays on the sound card's crystal, tens of parts per million off real time:
    /// seconds a day. A synchronised player stretches or shortens it by that much (swresample's
    /// soft compensation, no audible step) so that it stays on the timeline too. `error` is
    /// what is heard minus where the timeline is: ahead (positive) plays longer. Proportional,
    /// absorbing a difference over about 4 s, at most 1 % (17 cents of pitch, briefly, after a
    /// join); a card 50 ppm off stays 0.2 ms from the timeline.
    public static func soundCompensation(error: MediaTime) -> Int {
        let ppm = (error.seconds / soundCorrectionTime * 1e6).rounded()
        return Int(Swift.max(-maximumSoundCompensation, Swift.min(maximumSoundCompensation, ppm)))
    }

    static let soundCorrectionTime = 4.0
    static let maximumSoundCompensation = 10_000.0

    /// What a live stream on the timeline does: it has no position of its own (it shows what
    /// arrives), so it is never moved within its slot; it gives way once the timeline is out of
    /// its slot (`jump` to the place there), not before: a stream begun by a seam a little
    /// before its slot (the item before it ended early; up to `jumpThreshold`) stays.
    public static func decideLive(timeline: SyncTimeline, playLengths: [MediaTime?], entry: Int, realtime: Int64) -> Correction {
        let place = timeline.place(atRealtime: realtime)
        guard place.entry != entry else { return .none }
        let (placePlay, placeOffset) = play(at: place.offset, entry: place.entry, timeline: timeline, playLengths: playLengths)
        let jump = Correction.jump(entry: place.entry, offset: placeOffset, play: Int(placePlay))
        guard timeline.slots.indices.contains(entry), timeline.slots[entry] > 0 else { return jump }
        let slot = MediaTime(value: timeline.slots[entry], timescale: 1_000_000_000)
        // The play of its slot nearest to its middle: the one under way, just over or about to begin.
        guard let offset = timeline.offset(ofEntry: entry, atRealtime: realtime, near: slot * Rational(1, 2)) else { return jump }
        return offset >= .zero - jumpThreshold && offset < slot ? .none : jump
    }

    /// Whether a player request can be honoured on a synchronised player, or the line that
    /// says why not. The timeline decides what plays where; pausing, the sound's level, the
    /// display's power, triggers and schedules stay with the box (it rejoins afterwards).
    public static func refusal(of request: PlayerRequest) -> String? {
        switch request {
        case .seek, .skip, .nextItem, .previousItem, .goto, .setRate, .setSpeed, .setDefaultRate:
            return "refused on a synchronised player: the shared timeline (sync.epoch) decides the item and position"
        case .play, .pause, .togglePlayPause, .setVolume, .adjustVolume, .setMuted, .toggleMute, .load,
             .switchPlaylist, .playOnce, .setDisplayPower, .layer, .showOverride, .endOverride, .soundCue:
            return nil
        }
    }
}
