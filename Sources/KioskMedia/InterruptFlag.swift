import CFFmpeg
import Glibc
import Synchronization

/// FFmpeg's way out of a blocking call: libavformat polls an AVIOInterruptCB while it connects,
/// waits for data or sleeps between its own reconnects, and gives up with AVERROR_EXIT when it
/// answers 1. One flag per item: the engine cancels it when the item is skipped or playback
/// stops, so a dead socket never holds a thread; a deadline bounds an open that hangs.
public final class InterruptFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds after which blocking calls are interrupted; 0 for none.
    private let deadline = Atomic<UInt64>(0)

    public init() {}

    public func cancel() { cancelled.store(true, ordering: .releasing) }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Interrupts blocking calls from `seconds` from now on (nil: no deadline).
    public func setDeadline(afterSeconds seconds: Double?) {
        deadline.store(seconds.map { InterruptFlag.now() + UInt64(Swift.max(0, $0) * 1e9) } ?? 0, ordering: .relaxed)
    }

    /// Waits `seconds` in short steps, so a cancel during the wait (a skip, a stop) is seen at
    /// once: false when it came.
    public func sleep(seconds: Double) -> Bool {
        let end = InterruptFlag.now() + UInt64(Swift.max(0, seconds) * 1e9)
        while true {
            if isCancelled { return false }
            let now = InterruptFlag.now()
            guard now < end else { return true }
            usleep(useconds_t(Swift.min(50_000, (end - now) / 1000)))
        }
    }

    var shouldInterrupt: Bool {
        if isCancelled { return true }
        let due = deadline.load(ordering: .relaxed)
        return due != 0 && InterruptFlag.now() >= due
    }

    /// The callback FFmpeg calls: a C function pointer, with this flag as its opaque pointer
    /// (unretained: the Asset that installs it keeps the flag alive as long as its context).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
