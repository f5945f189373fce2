import Foundation
import KioskCore

/// The presenter thread's signs of life, for the service watchdog on another thread. The
/// presenter only stamps times here (a lock, no allocation); `health` reads a copy.
public final class PresenterHeartbeat: @unchecked Sendable {
    // Safe to share: `state` is only touched with `lock` held.
    private let lock = NSLock()
    private var state: PresenterHealth
    private let clock = MonotonicClock()

    init() {
        state = PresenterHealth(startedAt: MonotonicClock().now())
    }

    public var health: PresenterHealth { lock.withLock { state } }

    /// The loop came round.
    func beat() {
        let now = clock.now()
        lock.withLock {
            state.loopActivity = now
            state.sleepingUntil = nil
        }
    }

    /// The loop goes to sleep on purpose until `wake` (CLOCK_MONOTONIC seconds).
    func sleeping(until wake: Double) {
        let now = clock.now()
        lock.withLock {
            state.loopActivity = now
            state.sleepingUntil = wake
        }
    }

    /// Since when the player's progress (a new frame, sound heard further) has been overdue
    /// in a state that claims to be playing; nil while none is expected (`StallGuard`).
    func progress(overdueSince since: Double?) {
        lock.withLock { state.progressOverdueSince = since }
    }

    func pictureShown() {
        let now = clock.now()
        lock.withLock {
            if state.firstPicture == nil { state.firstPicture = now }
            state.lastPicture = now
            state.displayFailingSince = nil
            state.displayError = nil
        }
    }

    func displayFailed(_ error: Error) {
        let now = clock.now()
        let text = "\(error)"
        lock.withLock {
            if state.displayFailingSince == nil { state.displayFailingSince = now }
            state.displayError = text
        }
    }
}

/// The display as the presenter sees it, with every present recorded on the heartbeat:
/// a frame or the idle screen that reached the screen, or the reason it did not. A wrapper
/// rather than calls in the presenter, so the engine's drawing code stays as it is.
final class MonitoredOutput: VideoOutput {
    let base: VideoOutput
    let heartbeat: PresenterHeartbeat

    init(_ base: VideoOutput, heartbeat: PresenterHeartbeat) {
        self.base = base
        self.heartbeat = heartbeat
    }

    var size: PixelSize { base.size }
    var refreshInterval: MediaTime { base.refreshInterval }
    var softwareRotation: Rotation { base.softwareRotation }
    var summary: String { base.summary }
    func close() throws { try base.close() }
    var wasClosed: Bool { base.wasClosed }
    var scanoutSize: PixelSize { base.scanoutSize }
    var rotation: Rotation { base.rotation }
    /// The display's own: the loop records its presents on the heartbeat itself
    /// (DirectVideoPath.swift).
    var directVideo: DirectVideoOutput? { base.directVideo }
    func expectedFlip(after host: Double) -> Double { base.expectedFlip(after: host) }
    var flipsWhenAsked: Bool { base.flipsWhenAsked }
    var flipsOnVblankGrid: Bool { base.flipsOnVblankGrid }
    var presentDrawsFirst: Bool { base.presentDrawsFirst }
    func setPower(on: Bool) throws -> Bool { try base.setPower(on: on) }
    func beginReadBack() throws -> ScreenReadBack? { try base.beginReadBack() }
    var screenshotSource: String { base.screenshotSource }
    func backBuffer() throws -> PixelBuffer {
        do { return try base.backBuffer() } catch { heartbeat.displayFailed(error); throw error }
    }

    func present(_ buffer: PixelBuffer) throws -> Double {
        do {
            let flip = try base.present(buffer)
            heartbeat.pictureShown()
            return flip
        } catch {
            heartbeat.displayFailed(error)
            throw error
        }
    }
}
