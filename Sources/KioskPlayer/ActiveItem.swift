import KioskCore
import KioskMedia

/// A playlist entry the presenter is playing or has prepared to play next.
final class ActiveItem {
    /// Position in the playlist; changes when a live reload moves the entry.
    var index: Int
    /// A live reload may change the item's options (gravity, volume) while it plays.
    var entry: PlaylistEntry
    let plan: ItemPlan
    let pipeline: ItemPipeline
    var reference: PlayerItemReference
    /// The pts of the last frame put on screen, and the spacing of frames seen so far.
    var lastPresentedPTS: MediaTime?
    /// How long the file shows the frame on screen (`DecodedFrame.ownDuration`), if it says:
    /// the seam keeps a last frame the file holds (`SeamTiming`).
    var lastPresentedOwnDuration: MediaTime?
    /// The pts of the last frame the pacer dropped as late (a pause then stops on the next).
    var lastDroppedPTS: MediaTime?
    var frameDuration: MediaTime?
    var hasReportedReady = false
    /// Each item scales with its own context, set up while it waits for its seam.
    let scaler = Scaler()
    var isScalerPrepared = false
    /// An armed override's first frame, drawn ahead at the screen's size (`ArmedOverrides`):
    /// put up by a copy when asked for, not converted then. Used once.
    var predrawn: PredrawnPicture?
    /// When the item ran dry (host time); nil while it plays or before it first did.
    var stalledSince: MediaTime?
    /// Added to the video's times since it drifted from the clock (`VideoAlignment`).
    var videoShift = MediaTime.zero
    /// kiosk.conf's `fallback` for a live stream that is away.
    lazy var fallback: LiveFallback? = entry.item.fallback.map(LiveFallback.init)
    /// A live stream's buffer kept within its `latency` (ItemSequencer+LiveLatency.swift).
    lazy var latencySteering = LiveLatencySteering(latency: plan.streamOptions.latency ?? RebufferPolicy.defaultLiveLatency)

    init(index: Int, entry: PlaylistEntry, plan: ItemPlan, pipeline: ItemPipeline, serial: UInt64) {
        self.index = index
        self.entry = entry
        self.plan = plan
        self.pipeline = pipeline
        reference = PlayerItemReference(serial: serial, name: entry.title, source: entry.media.description)
        // Here, not when it begins: an item found unplayable while prepared ahead is recorded too.
        reference.playlist = entry.item.playlist
    }

    /// The frame spacing the stream declares, until frames show the real one.
    var expectedFrameDuration: MediaTime {
        if let frameDuration { return frameDuration }
        if let rate = pipeline.info?.bestVideo?.frameRate, rate.isKnownAndPositive, rate.doubleValue < 1000 {
            return MediaTime(value: 1, timescale: 1) * rate.inverted
        }
        return MediaTime(value: 1, timescale: 30)
    }

    /// The item's length as the user sees it (after trimming), when known.
    var duration: MediaTime? {
        if let still = plan.stillDuration { return still }
        if let loop = plan.animationLoop { return loop.duration }
        // A live stream's `duration` is its length here: the next item is prepared ahead of it.
        if let live = plan.liveDuration, pipeline.progress.isLive { return live }
        var trimmed = entry
        trimmed.item.start = plan.start
        trimmed.item.end = plan.end
        return trimmed.playLength(mediaSeconds: pipeline.info?.durationSeconds, imageDuration: .zero)
    }

    /// The first frame is decoded and waiting: the item can take over without a stall.
    var isPrimed: Bool { firstFrame != nil }

    /// The decoded frame at the head of the queue, if that is a frame.
    var firstFrame: DecodedFrame? {
        if case .frame(let frame, _) = pipeline.frames.peek(timeout: 0) { return frame }
        return nil
    }

    /// What follows the frame on screen in the queue of the timeline in force: the next decoded
    /// frame's pts, or that the video's end comes next (neither: nothing decoded yet).
    var queuedAfterScreen: (head: MediaTime?, endIsNext: Bool) {
        switch pipeline.frames.peek(timeout: 0) {
        case .frame(let frame, let generation)? where generation == pipeline.currentGeneration: (frame.pts, false)
        case .end(_, let generation)? where generation == pipeline.currentGeneration: (nil, true)
        default: (nil, false)
        }
    }

    var failure: MediaError? {
        if case .failed(let error) = pipeline.frames.peek(timeout: 0) { return error }
        return nil
    }

    /// `continuesRun`: the frame follows the one on screen in one run of the clock (not the
    /// first after a start, a seek or a stall).
    func notePresented(_ pts: MediaTime, ownDuration: MediaTime?, continuesRun: Bool) {
        if let spacing = FrameCadence.observed(previous: lastPresentedPTS, current: pts, lastDropped: lastDroppedPTS,
                                               continuesRun: continuesRun) {
            frameDuration = spacing
        }
        lastPresentedPTS = pts
        lastPresentedOwnDuration = ownDuration
    }

    func close() { pipeline.close() }
}

