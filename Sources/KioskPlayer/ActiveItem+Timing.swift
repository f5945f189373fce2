import Foundation
import KioskCore
import KioskMedia
import Logging

/// An item's own timing questions, asked by the presenter: opening it, running dry and
/// refilling, drifting from the clock, and how long a wait for it is believed.
extension ActiveItem {
    /// Opens `entry` at playlist `index` with the engine's settings; its threads start at once.
    /// `screen`: the output's size, for decoding a large JPEG still no larger than it needs;
    /// `viewer`: the same turned as its viewer sees it, the size a text card is drawn at.
    static func open(_ entry: PlaylistEntry, index: Int, settings: PlayerSettings, audioFormat: AudioFormat?,
                     rate: Rational, serial: UInt64, screen: PixelSize?, viewer: PixelSize? = nil,
                     decoderAfter: DecoderHandOff? = nil, primeHandOn: PrimeHandOn? = nil, logger: Logger) -> ActiveItem {
        var plan = ItemPlan(source: entry.media.description)
        plan.start = entry.item.start ?? .zero
        plan.end = entry.item.end
        plan.streamOptions = StreamOptions(transport: entry.item.transport, latency: entry.item.latency)
        if !entry.isStillImage { plan.liveDuration = entry.item.duration }
        // Looped until its `duration`, then cut there as a trim's `end` cuts a video.
        if let loop = entry.animationLoop { plan.animationLoop = loop; plan.end = loop.duration }
        plan.decoderThreads = settings.decoderThreads ?? settings.playback.decoderThreads
        plan.frameMemory = settings.playback.frameMemory
        plan.hwdec = settings.playback.hwdec
        plan.deinterlace = settings.playback.deinterlace
        plan.simulatedPrimeDecoder = settings.playback.simulatedPrimeDecoder
        plan.primeFrames = settings.playback.hwdec != .off && settings.display.videoPlane != .off && !plan.simulatedPrimeDecoder
        plan.primeHandOn = primeHandOn
        if entry.isStillImage { plan.stillDuration = entry.item.duration ?? settings.playback.imageDuration }
        plan.stillScreen = screen
        // The simulated PRIME decoder stands for a device's full-size frames: left as decoded.
        if !plan.simulatedPrimeDecoder { plan.videoScreens = [viewer ?? screen].compactMap { $0 } }
        if case .card(let card) = entry.media { plan.card = card; plan.cardScreen = viewer ?? screen }
        plan.font = settings.overlay?.font ?? .auto
        plan.audioFormat = entry.isStillImage ? nil : audioFormat
        plan.rate = rate
        plan.tag = Int(serial)
        plan.decoderAfter = decoderAfter
        return ActiveItem(index: index, entry: entry, plan: plan, pipeline: ItemPipeline(plan: plan, logger: logger),
                          serial: serial)
    }

    /// The item ran dry (the state is already waiting): remember since when, and say so once
    /// for a stream (a local file that stalls is a slow machine, logged elsewhere if at all).
    func noteRanDry(logger: Logger) {
        guard stalledSince == nil else { return }
        stalledSince = MonotonicClock.hostTime()
        if pipeline.isNetwork {
            logger.warning("\(entry.title): buffering: no frame ready, waiting for data (waitingToPlay)")
        }
    }

    /// Whether `frame`, the first after a start, seek or running dry, may go up now: false
    /// while a stalled network item is still refilling (`RebufferPolicy`).
    func hasRefilled(for frame: DecodedFrame, logger: Logger) -> Bool {
        guard let since = stalledSince else { return true }
        let now = MonotonicClock.hostTime()
        let progress = pipeline.progress
        if progress.isLive {
            guard RebufferPolicy.liveMayResume(queuedFrames: pipeline.frames.count, frameDuration: expectedFrameDuration,
                                               latency: plan.streamOptions.latency ?? RebufferPolicy.defaultLiveLatency,
                                               queueFull: pipeline.frames.isFull, demuxerFinished: progress.finished) else { return false }
        } else {
            let policy = pipeline.isNetwork ? RebufferPolicy.network : RebufferPolicy.local
            guard policy.mayResume(framePTS: frame.pts, demuxedUntil: progress.demuxedUntil,
                                   demuxerFinished: progress.finished, waited: now - since) else { return false }
        }
        stalledSince = nil
        fallback?.isUp = false
        if pipeline.isNetwork && !pipeline.hasLostStream {   // else it fails next
            logger.notice("\(entry.title): buffered, playing again after \(String(format: "%.1f", (now - since).seconds)) s")
        }
        return true
    }

    /// The longest wait for a frame that is believed (`FrameTimeline`'s longest step).
    var longestFrameWait: MediaTime {
        VideoAlignment.longestWait(cadence: expectedFrameDuration, tuning: pipeline.videoTimelineTuning)
    }

    /// A video far from the clock's `position` (its sound's, or the monotonic one) is moved to
    /// it, once per drift and with one log line, instead of being waited for or raced through.
    func alignVideoIfDrifted(head: DecodedFrame, next: DecodedFrame?, position: MediaTime, logger: Logger) {
        guard let shift = VideoAlignment.shift(framePTS: head.pts, position: position, longestWait: longestFrameWait) else { return }
        videoShift = videoShift + shift
        logger.warning("\(entry.title): video and clock \(String(format: "%.1f", abs(shift.seconds))) s apart at \(String(format: "%.1f", head.pts.seconds)) s: the video follows the clock")
        head.applyShift(videoShift)
        next?.applyShift(videoShift)
    }
}
