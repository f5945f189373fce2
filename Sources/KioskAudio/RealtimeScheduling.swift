import Glibc
import KioskCore
import SystemPackage

/// Real-time scheduling for the one thread that keeps the sound device fed. Its work is small
/// (a 10 ms period at a time) but due on time: a writer that waits behind the presenter or the
/// decoders for longer than the device holds (about 40 ms) is an underrun, a gap heard in an
/// item's sound and in a music bed. A starved VM guest underran 4 to 39 times in 25 s that way
/// (test_music_bed_aloop.py). Sound servers do the same for their writers (PipeWire and
/// PulseAudio through rtkit, JACK).
///
/// SCHED_FIFO at a low priority, within what the process may take: root may, others by
/// RLIMIT_RTPRIO (kiosk.service: `LimitRTPRIO=`, with `LimitRTTIME=` as the guard against a
/// thread that would never block, which the writer does every period). Without leave, the
/// thread stays as it was.
public enum RealtimeScheduling {
    /// The priority asked for: low among real-time threads (the kernel's own run at 50), and
    /// within kiosk.service's `LimitRTPRIO=10`.
    public static let writerPriority: Int32 = 10

    public enum Outcome: Equatable, Sendable {
        case raised(priority: Int32)
        /// Not permitted (no root, RLIMIT_RTPRIO 0, or a unit with `RestrictRealtime=yes`).
        case refused(reason: String)
    }

    /// Moves the calling thread to SCHED_FIFO at `priority`, or at the highest priority
    /// RLIMIT_RTPRIO allows when that is lower (and not 0).
    public static func raiseCurrentThread(priority: Int32 = writerPriority) -> Outcome {
        var wanted = priority
        var limit = rlimit()
        // RLIM_INFINITY is all ones (a C cast Swift does not import).
        if geteuid() != 0, getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            wanted = min(wanted, Int32(clamping: limit.rlim_cur))
        }
        guard wanted > 0 else { return .refused(reason: "RLIMIT_RTPRIO is 0") }
        var parameters = sched_param()
        parameters.sched_priority = wanted
        let result = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &parameters)
        guard result == 0 else { return .refused(reason: Errno(rawValue: result).description) }
        return .raised(priority: wanted)
    }

    /// The presenter's, while a drawn frame waits for the moment its flip is asked for (#35):
    /// below the writer's, so a flip never costs the sound an underrun.
    public static let heldFlipPriority: Int32 = 5

    /// Moves the calling thread back to the normal policy (SCHED_OTHER; its nice value kept).
    public static func lowerCurrentThread() {
        var parameters = sched_param()
        parameters.sched_priority = 0
        _ = pthread_setschedparam(pthread_self(), Int32(SCHED_OTHER), &parameters)
    }

    /// The calling thread's policy and priority (for tests and `kiosk probe`).
    public static func currentThread() -> (policy: Int32, priority: Int32) { WorkerThread.currentScheduling() }
}
