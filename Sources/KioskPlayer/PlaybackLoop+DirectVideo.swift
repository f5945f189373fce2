import KioskCore
import KioskMedia
import Logging

/// The direct video path's state on the presenter thread: the display that can scan frames out
/// on a plane, the configuration last asked about and its answer, and what was logged.
final class DirectVideoState {
    struct Configuration: Hashable {
        var format: VideoFrameFormat
        var frameSize: PixelSize
        var layout: GravityLayout
    }

    let output: DirectVideoOutput
    /// The service watchdog's: a plane's present is a picture shown, or a display failing,
    /// like one of the CPU path (which MonitoredOutput records).
    let heartbeat: PresenterHeartbeat
    var configuration: Configuration?
    var answer: DirectScanoutAnswer?
    /// Set once the display refused or a commit failed while playing: the CPU path for good.
    var isOff = false
    /// The last reason logged, so a reason is said once, not per frame.
    var loggedReason: String?
    /// The plane announced as in use.
    var announcedPlane: UInt32?

    init(output: DirectVideoOutput, heartbeat: PresenterHeartbeat) {
        self.output = output
        self.heartbeat = heartbeat
    }

    /// The path of the loop's display, when it has one.
    static func make(for output: VideoOutput, heartbeat: PresenterHeartbeat) -> DirectVideoState? {
        guard let direct = output.directVideo else { return nil }
        return DirectVideoState(output: direct, heartbeat: heartbeat)
    }
}

extension PlaybackLoop {
    /// Shows `frame` on a video plane when the display can; the flip's CLOCK_MONOTONIC seconds,
    /// or nil when the CPU path must draw it. Rules (README, "Video planes"):
    /// - only NV12/YUV420 frames, and only configurations the display accepted (TEST_ONLY);
    /// - while the on-screen display is visible the CPU path draws (the OSD is blended into the
    ///   XRGB picture); the idle screen is CPU-drawn anyway. Switching paths is one commit;
    /// - a refusal, or a commit failing while playing, turns the path off for good with one
    ///   log line; playback goes on, on the CPU.
    func presentOnPlane(_ frame: DecodedFrame, layout: GravityLayout) -> Double? {
        guard let direct = directVideo, !direct.isOff else { return nil }
        guard let view = frame.yuvView else {
            noteCPUPath("frames are \(frame.pixelFormatName), not NV12 or YUV420 (limited range)", direct)
            return nil
        }
        if overlay?.isEnabled == true, overlayContent(at: MonotonicClock.hostTime()) != nil {
            return nil   // the OSD is drawn into the CPU picture; back on the plane once it hides
        }
        let configuration = DirectVideoState.Configuration(format: view.format, frameSize: view.size, layout: layout)
        if configuration != direct.configuration || direct.answer == nil {
            direct.configuration = configuration
            direct.answer = direct.output.prepareDirectScanout(format: view.format, frameSize: view.size, layout: layout)
        }
        switch direct.answer! {
        case .ready(let scanout):
            do {
                let flip = try direct.output.presentDirect(view, on: scanout)
                direct.heartbeat.pictureShown()
                overlay?.drawn = nil
                if direct.announcedPlane != scanout.planeID {
                    direct.announcedPlane = scanout.planeID
                    logger.notice("video plane: scanning \(scanout.format) out on plane \(scanout.planeID) (\(scanout.source) -> \(scanout.destination)), no CPU conversion")
                }
                return flip
            } catch {
                // The watchdog hears of it; the CPU path's present of this frame, next, clears it.
                direct.heartbeat.displayFailed(error)
                direct.isOff = true
                logger.warning("video plane: plane \(scanout.planeID) failed while playing (\(error)); converting on the CPU from now on")
                return nil
            }
        case .unavailable(let reason):
            noteCPUPath(reason, direct)
            return nil
        case .refused(let reason):
            direct.isOff = true
            noteCPUPath(reason, direct)
            return nil
        }
    }

    private func noteCPUPath(_ reason: String, _ direct: DirectVideoState) {
        guard reason != direct.loggedReason else { return }
        direct.loggedReason = reason
        direct.announcedPlane = nil
        logger.notice("video plane: not used, converting on the CPU: \(reason)")
    }
}
