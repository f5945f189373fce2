import Foundation
import KioskCore

/// Screenshots asked of the presenter (`QueuePlayer.saveScreenshot`, the control socket, the
/// preview, the fleet's screen): taken between two frames, and never waited for here.
extension PlaybackLoop {
    /// How long a read-back's picture is waited for before the shot is composed instead. vkms
    /// writes it a refresh after the commit; a starved guest's, seconds later. Within the
    /// asker's wait, less `composeMargin` for the presenter to compose it.
    static let readBackWait = 5.0
    static let composeMargin = 1.5

    static func readBackWait(for request: ScreenshotRequest, now: Double) -> Double {
        guard let deadline = request.deadline else { return readBackWait }
        return min(readBackWait, max(0.1, deadline - now - composeMargin))
    }

    func takeScreenshot(for request: ScreenshotRequest, composed: Bool) {
        // Given up by its asker, a shot is not worth taking (CI: a starved vkms guest's
        // requests, asked again after each timeout, queued behind one another).
        guard !request.isAbandoned else { return }
        // A screen switched off shows nothing; with CEC the TV sleeps but kiosk's black is up.
        if sequencer.power.isOff && sequencer.usesKMSPower {
            request.finish(.failure(ScreenshotError(description: "the display is off")))
            return
        }
        switch screen.beginCapture(readBack: !composed) {
        case .taken(let result): request.finish(result)
        case .readingBack(let pending): awaitReadBack(pending, for: request)
        }
    }

    /// The display's picture is waited for on a thread of its own: the presenter flips on
    /// meanwhile (it used to wait here, up to 5 s, holding every frame: CI's starved vkms
    /// guests). One that does not come in time is composed by the presenter instead.
    private func awaitReadBack(_ pending: ScreenReadBack, for request: ScreenshotRequest) {
        let mailbox = mailbox, logger = logger
        // Bulk work (a copy of up to 33 MB): below the presenter, however kiosk was started.
        WorkerThread.start(name: "kiosk-readback", qos: .utility) {
            do {
                var picture: CapturedPicture?
                let wait = Self.readBackWait(for: request, now: MonotonicClock.hostTime().seconds)
                try pending.read(timeout: wait) { picture = CapturedPicture(copying: $0) }
                if let picture {
                    request.finish(.success(picture))
                    return
                }
            } catch {
                logger.warning("screenshot: reading the display back failed (\(error)); composing it instead")
            }
            guard !request.isAbandoned else { return }
            if !mailbox.post(.screenshot(request, composed: true)) {
                request.finish(.failure(ScreenshotError(description: "playback has ended")))
            }
        }
    }
}
