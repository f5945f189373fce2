import Foundation
import KioskCore
import KioskMedia

/// The demux thread's open of the item's source. A live stream (by its scheme: rtsp, udp, srt
/// ...) that cannot be opened is its sender away, not a bad file: it is tried again on the live
/// schedule (`ReconnectPolicy.live`: 0.1, 0.2, 0.4, then every 0.5 s) until it answers, the item
/// is closed, or its `duration` passed (then it is skipped this pass, as a rotation must go on).
/// A camera still booting, or a join that probed no picture size (mid-GOP), played nothing
/// before: the item was skipped, and `kiosk play` of the URL ended.
extension ItemPipeline {
    /// Whether the source is live by its scheme alone (live HLS is known only once open).
    var isLiveByScheme: Bool { LiveSource.isLiveByScheme(plan.source) }

    /// Since when a live source has not answered its first open (host time); nil once open.
    var awayBeforeOpening: MediaTime? { lock.withLock { unopenedSince } }

    /// The item is on screen now: a live source's `duration` counts from here. (It counted from
    /// the open, made ahead of the seam: a stream with `duration: 4` that did not answer was
    /// skipped 1.2 s after it came on, saying "no answer within its duration (4.2 s)".)
    func cameOnScreen() {
        let now = MonotonicClock.hostTime()
        lock.withLock { if onScreenAt == nil { onScreenAt = now } }
    }

    /// The demuxer and decoder, or nil when the item failed (its failure queued).
    func openRetryingLive() -> (Demuxer, VideoDecoder)? {
        var failures = 0
        var since: MediaTime?
        while true {
            let failed: MediaError
            if LiveSource.holdsItsPort(plan.source), !waitForItsPort() {
                audio.close()
                return nil
            }
            do {
                let opened = try openSource()
                if let since {
                    let seconds = (MonotonicClock.hostTime() - since).seconds
                    logger.notice("\(NetworkURL.masked(plan.source)): answered (attempt \(failures + 1), \(String(format: "%.1f", seconds)) s after the first)")
                    lock.withLock { unopenedSince = nil }
                    noteSourceChange(.back(afterSeconds: seconds))
                }
                return opened
            } catch let failure as MediaError {
                failed = failure
            } catch let failure as NotToRetry {
                frames.push(.failed(failure.error))
                audio.close()
                return nil
            } catch {
                failed = MediaError(source: plan.source, reason: "\(error)")
            }
            let error = failed
            let now = MonotonicClock.hostTime()
            let lostAt = since ?? now
            // A duration counts from the item's coming on screen; prepared, it is waited for.
            let waited = lock.withLock { onScreenAt }.map { now - $0 } ?? .zero
            let durationPassed = plan.liveDuration.map { waited >= $0 } ?? false
            guard isLiveByScheme, !interrupt.isCancelled, !durationPassed,
                  case .retry(let delay) = ReconnectPolicy.live.decide(failedAttempts: failures, elapsed: now - lostAt) else {
                let reason = isLiveByScheme && durationPassed
                    ? String(format: "%@; no answer within its duration (%.1f s): skipped this pass", error.reason, waited.seconds)
                    : error.reason
                frames.push(.failed(MediaError(source: plan.source, reason: reason)))
                audio.close()
                return nil
            }
            failures += 1
            if since == nil {
                since = lostAt
                lock.withLock {
                    unopenedSince = lostAt
                    demuxProgress.isLive = true
                }
                logger.warning("\(NetworkURL.masked(plan.source)): cannot open (\(error.reason)); a live stream is tried again until it answers")
                noteSourceChange(.lost(reason: error.reason))
            } else if failures <= 4 || failures % 120 == 0 {
                logger.warning("\(NetworkURL.masked(plan.source)): open attempt \(failures) failed: \(error.reason)")
            }
            guard interrupt.sleep(seconds: delay.seconds) else {
                audio.close()
                return nil
            }
        }
    }

    /// Waits while another play of this source in the process holds its port: its last play's
    /// input closing, or open until its cut while this play is prepared ahead (a bind would fail
    /// and be said as the stream lost). On screen, a wait over 3 s is said once (another screen
    /// playing the same stream holds it for as long as it plays), and with a `duration` the item
    /// is skipped once that passed, as a stream that does not answer is. False: closed or skipped.
    private func waitForItsPort() -> Bool {
        var said = false
        while !OpenInputs.shared.waitUntilClosed(plan.source, seconds: 0.5, cancelled: { interrupt.isCancelled }) {
            if interrupt.isCancelled { return false }
            guard let onScreen = lock.withLock({ onScreenAt }) else { continue }   // prepared ahead: its turn comes
            let waited = MonotonicClock.hostTime() - onScreen
            if let length = plan.liveDuration, waited >= length {
                let reason = String(format: "its port stayed held by another play of it in this process (another screen?) for its duration (%.1f s): skipped this pass", waited.seconds)
                frames.push(.failed(MediaError(source: plan.source, reason: reason)))
                return false
            }
            if !said, waited >= MediaTime(value: 3, timescale: 1) {
                said = true
                logger.warning("\(NetworkURL.masked(plan.source)): waiting for its port, held by another play of it in this process (another screen playing it?)")
            }
        }
        return !interrupt.isCancelled
    }

    /// Opens the source: its demuxer, video decoder and sound.
    private func openSource() throws -> (Demuxer, VideoDecoder) {
        let asset = try Asset(source: plan.source, interrupt: interrupt, streamOptions: plan.streamOptions)
        let demuxer = Demuxer(asset: asset, audio: plan.audioFormat != nil && plan.stillDuration == nil)
        guard let videoIndex = demuxer.videoStream else {
            let kinds = asset.info.streams.map { "\($0.kind.rawValue) \($0.codecName)" }.joined(separator: ", ")
            if let video = asset.info.bestVideo, !video.decodable {
                throw NotToRetry(MediaError(source: plan.source, reason: "unsupported codec '\(video.codecName)': no decoder in this FFmpeg build"))
            }
            // A stream with tracks but none a picture stays so (a radio stream); none at all
            // may be a probe that saw nothing yet.
            // A sound file named as an item (not a radio stream's URL): where sound alone plays.
            let soundOnly = !kinds.isEmpty && NetworkURL.scheme(of: plan.source) == nil && asset.info.streams.allSatisfy { $0.kind == .audio }
            let error = MediaError(source: plan.source, reason: "no video stream (has \(kinds.isEmpty ? "nothing" : kinds))"
                                   + (soundOnly ? "; sound alone plays under the items as `audio_track`, or as an item with a cover picture" : ""))
            throw kinds.isEmpty ? error : NotToRetry(error)
        }
        let picture = asset.info.streams.first { $0.index == videoIndex }
        guard awaitDecoderHandOff(width: picture?.width, height: picture?.height) else {
            throw NotToRetry(MediaError(source: plan.source, reason: "closed before its decoder was created"))
        }
        // Above 1080p the demux thread, and the decoder's frame threads, the decode and the
        // sound-decode threads it starts from here on, run nicer than the presenter: on 2 cores
        // 4K decoding held flips past 50 ms (issue 33, BENCHMARKS "Decoders nicer than the
        // presenter"). Smaller pictures leave the cores to spare and keep the process's value.
        if DecoderHandOff.isLarge(width: picture?.width, height: picture?.height) {
            WorkerThread.lowerCurrentThreadPriorityOnce(for: .utility)
        }
        let decoder = try makeDecoder(asset: asset, videoIndex: videoIndex)
        lock.withLock { openedInfo = asset.info }
        try startAudio(asset: asset, demuxer: demuxer)
        return (demuxer, decoder)
    }

    /// The most frames of this picture the item and the display may hold at once: the queue at
    /// its deepest (before a prepare; while handing a large decoder over, with twice the
    /// bytes) within its byte budget, which counts the copies as queued (shrunk by the decode
    /// thread where it shrinks them: 8-bit 4:2:0), and the decode thread's and the display's
    /// (`HardwareFramePool`).
    func heldFrames(width: Int?, height: Int?, format: String?) -> Int {
        let large = DecoderHandOff.isLarge(width: width, height: height)
        let deep = format.map { name in ["p010", "p012", "p016", "10le", "10be", "12le", "12be"].contains { name.contains($0) } } ?? false
        let queued = HardwareFramePool.queuedFrameBytes(picture: PixelSize(width: width ?? 0, height: height ?? 0), deep: deep,
                                                        covering: plan.videoScreens)
        // bwdif holds three decoded frames of an interlaced stream besides (a V4L2 wrapper's
        // capture buffers among them).
        let weaving = plan.deinterlace == .off ? 0 : VideoDecoder.deinterlacerHeldFrames
        return weaving + HardwareFramePool.framesHeld(queueCapacity: large ? Self.handOffQueue : Self.framesAheadBeforePrepare,
                                                      budgetBytes: large ? 2 * plan.frameMemory : plan.frameMemory, frameBytes: queued)
    }

    /// The video decoder of `videoIndex`, as the plan says (threads, hardware, shrinking).
    func makeDecoder(asset: Asset, videoIndex: Int) throws -> VideoDecoder {
        let picture = asset.info.streams.first { $0.index == videoIndex }
        let threads = plan.decoderThreads.count(width: picture?.width, height: picture?.height,
                                                cores: ProcessInfo.processInfo.activeProcessorCount)
        let decoder = try VideoDecoder(asset: asset, streamIndex: videoIndex, threads: threads,
                                       stillScreen: plan.stillScreen, hardware: plan.stillDuration == nil ? plan.hwdec : .off,
                                       heldFrames: heldFrames(width: picture?.width, height: picture?.height, format: picture?.pixelFormat),
                                       handOn: plan.primeFrames ? plan.primeHandOn : nil)
        if let line = decoder.hardwareOutcome.flatMap(HardwareDecodeLog.once) { logger.notice("\(plan.source): \(line)") }
        decoder.shrinkCovering = plan.videoScreens
        decoder.deinterlace = plan.deinterlace
        return decoder
    }

    /// What the decoder found to say while decoding (a device that stopped, interlaced frames
    /// and how they are shown), each line once per process.
    func sayDecoderNotes(_ decoder: VideoDecoder) {
        if let line = HardwareDecodeLog.once(parts: decoder.takeHardwareRefusals()) { logger.warning("\(plan.source): \(line)") }
        if let note = decoder.takeDeinterlaceNote(), let line = HardwareDecodeLog.once("\(plan.source): \(note.line)") {
            logger.log(level: note.isProblem ? .warning : .notice, "\(line)")
        }
    }
}

/// An open that failed for good (no picture in the stream, no decoder for it): not tried again.
private struct NotToRetry: Error {
    let error: MediaError
    init(_ error: MediaError) { self.error = error }
}

extension ItemPipeline {
    /// The seek asked for since the demux thread last looked, taken.
    func takePendingSeek() -> (MediaTime, Int)? {
        lock.withLock {
            defer { pendingSeek = nil }
            return pendingSeek
        }
    }

    /// The item's length at the end of its reading: a still's duration, a live cut, the trim's
    /// end, else as far as the file was demuxed.
    func itemLength(demuxed: MediaTime) -> MediaTime {
        if let still = plan.stillDuration { return still }
        if let cut = liveCut { return cut }
        if let end = plan.end, end < demuxed { return end }
        // An animation that played as many times as its file says holds its last frame until
        // its `duration`, as a browser holds a "play once" GIF.
        if plan.animationLoop != nil, let end = plan.end { return end }
        return demuxed
    }
}
