import KioskCore
import KioskMedia
import Logging

/// The items the presenter holds: the one on screen, the one prepared to follow it (opened
/// before the seam so its first frame is decoded in time), and those that handed over at a
/// seam, closed once the next picture is up (closing frees decoders and threads, work that must
/// not delay the incoming item's first frame). The sound feeder plays the current item's
/// sound, then the prepared one's.
final class PlayingItems {
    /// The engine's display's wishes for its decoders' device frames, given to each item.
    var primeHandOn: PrimeHandOn?
    private(set) var current: ActiveItem?
    private(set) var upcoming: ActiveItem?
    private var retiring: [ActiveItem] = []
    /// Named overrides' items opened ahead, parked until asked for.
    let armed = ArmedOverrides()
    /// Stamped on each opened item's sound so the clock knows whose samples it hears.
    private var serial: UInt64 = 0
    private let audio: AudioPath?
    /// The output's size: a large JPEG still is decoded no larger than covering it.
    private let screen: PixelSize?
    /// The screen as its viewer sees it (a portrait display's turned): a text card's size.
    private let viewer: PixelSize?
    private let logger: Logger

    init(audio: AudioPath?, screen: PixelSize? = nil, viewer: PixelSize? = nil, logger: Logger) {
        self.audio = audio
        self.screen = screen
        self.viewer = viewer
        self.logger = logger
    }

    /// Opens `entry` (playlist `index`); its threads start at once (a large decoder waits for
    /// `decoderAfter`).
    func open(_ entry: PlaylistEntry, index: Int, settings: PlayerSettings, rate: Rational,
              decoderAfter: DecoderHandOff? = nil) -> ActiveItem {
        serial += 1
        return ActiveItem.open(entry, index: index, settings: settings, audioFormat: audio?.format, rate: rate,
                               serial: serial, screen: screen, viewer: viewer, decoderAfter: decoderAfter,
                               primeHandOn: primeHandOn, logger: logger)
    }

    /// `entry` at `index` goes on screen next: the prepared item when it is that entry and
    /// `mayUsePrepared`, else one `open` makes (the prepared one is closed). Returns it and
    /// the item it replaces, which the caller retires or closes.
    func makeCurrent(_ index: Int, entry: PlaylistEntry, mayUsePrepared: Bool,
                     open: () -> ActiveItem) -> (next: ActiveItem, outgoing: ActiveItem?) {
        let next: ActiveItem
        if mayUsePrepared, let prepared = upcoming, prepared.index == index, prepared.entry.media == entry.media {
            next = prepared
        } else {
            upcoming?.close()
            next = open()
        }
        upcoming = nil
        next.pipeline.cameOnScreen()
        // On screen now: nothing to wait for (the outgoing item was skipped before its end).
        next.plan.decoderAfter?.release(.onScreen)
        let outgoing = current
        current = next
        return (next, outgoing)
    }

    /// `item` follows the current one.
    func prepare(_ item: ActiveItem) {
        upcoming?.close()
        upcoming = item
        updateAudioOrder()
    }

    /// An armed override's item goes on screen next, in place of what was prepared (closed
    /// once the next picture is up, like a seam's outgoing item: not while the override waits).
    /// The sound's order is the caller's to set, after it flushed the outgoing sound: here the
    /// feeder could start on the override's sound and lose it to that flush.
    func putAhead(_ item: ActiveItem) {
        if let prepared = upcoming {
            // One still waiting to create its large decoder would make it for nothing once the
            // playing item closes: closed now.
            if prepared.plan.decoderAfter?.isReleased == false { prepared.close() } else { retiring.append(prepared) }
        }
        upcoming = item
    }

    /// What was prepared no longer follows (a switch, a reload, the end).
    func dropUpcoming() {
        guard let prepared = upcoming else { return }
        upcoming = nil
        prepared.close()
        updateAudioOrder()
    }

    /// The prepared item when it failed while opening or decoding, taken out and closed.
    func takeFailedUpcoming() -> (item: ActiveItem, error: MediaError)? {
        guard let prepared = upcoming, let error = prepared.failure else { return nil }
        dropUpcoming()
        return (prepared, error)
    }

    /// The outgoing item of a seam: closed once the next picture is up (`closeRetired`).
    func retire(_ item: ActiveItem) { retiring.append(item) }

    func closeRetired() {
        retiring.forEach { $0.close() }
        retiring.removeAll()
    }

    /// The current item failed or stalled: closed, nothing on screen plays.
    func closeCurrent() {
        current?.close()
        current = nil
    }

    /// Everything closed: the display went off, nothing can play, or the player stops.
    func closeAll() {
        closeRetired()
        armed.closeAll()
        upcoming?.close()
        upcoming = nil
        closeCurrent()
        updateAudioOrder()
    }

    func setRate(_ rate: Rational) {
        current?.pipeline.setRate(rate)
        upcoming?.pipeline.setRate(rate)
        armed.setRate(rate)
    }

    /// The feeder plays the current item's sound, then the prepared one's.
    var audioOrder: [ItemPipeline] { [current, upcoming].compactMap { $0?.pipeline } }

    func updateAudioOrder() {
        audio?.setOrder(audioOrder)
    }
}
