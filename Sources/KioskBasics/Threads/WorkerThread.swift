import Foundation

/// One dedicated thread for blocking work (DESIGN.md, "Threads"): a name (it shows in `top -H`,
/// gdb and crash reports; see `systemName`), a quality of service, and a finished signal any number of threads
/// may wait on, with or without a timeout.
///
/// Two ways to use it:
/// - fire and forget, or keep the value to join later:
///   `WorkerThread.start(name: "kiosk-demux") { [self] in runDemux() }`;
/// - made first, started later, when a caller may wait for the end before the thread was
///   started (a stop racing the start): `let worker = WorkerThread(name: "kiosk-present")`,
///   then `worker.start { ... }`; `join` waits for a thread that has not started yet too.
///
/// A value that is not Sendable (a decoder, the presenter loop) is moved into the thread with
/// `start(handingOver:_:)`: the thread becomes its only user.
public final class WorkerThread: @unchecked Sendable {
    // Safe to share: `started` and `finished` are read and written with `lock` held; the
    // semaphore is thread-safe; the rest is immutable.
    public let name: String
    public let qualityOfService: QualityOfService
    /// Counted by `ExitGate` while it runs: the process's end waits for it (a thread inside
    /// FFmpeg, whose protocol libraries may have static destructors).
    public let finishesBeforeExit: Bool
    private let lock = NSLock()
    private var started = false
    private var finished = false
    /// Signalled when the body returns; each waiter that gets it signals it again.
    private let done = DispatchSemaphore(value: 0)
    /// Signalled once each when the body returns (`signalWhenDone`).
    private var endWatchers: [DispatchSemaphore] = []

    public init(name: String, qos: QualityOfService = .default, finishesBeforeExit: Bool = false) {
        self.name = name
        qualityOfService = qos
        self.finishesBeforeExit = finishesBeforeExit
    }

    /// Starts a thread named `name` that runs `body`; the returned value joins it.
    @discardableResult
    public static func start(name: String, qos: QualityOfService = .default, finishesBeforeExit: Bool = false,
                             _ body: @escaping @Sendable () -> Void) -> WorkerThread {
        let worker = WorkerThread(name: name, qos: qos, finishesBeforeExit: finishesBeforeExit)
        worker.start(body)
        return worker
    }

    /// Runs `body` on the thread. Starts once: a second start is a programming error.
    public func start(_ body: @escaping @Sendable () -> Void) {
        lock.withLock {
            precondition(!started, "WorkerThread \(name) started twice")
            started = true
        }
        // Counted before the thread exists: an exit right after `start` waits for it too.
        if finishesBeforeExit { ExitGate.enter(name) }
        let thread = Thread { [self] in
            Self.nameCurrentThread(name)
            Self.lowerCurrentThreadPriority(for: qualityOfService)
            body()
            if finishesBeforeExit { ExitGate.leave(thread: name) }
            let watchers = lock.withLock {
                finished = true
                return endWatchers
            }
            done.signal()
            watchers.forEach { $0.signal() }
        }
        thread.qualityOfService = qualityOfService
        thread.start()
    }

    /// Runs `body(value)` on the thread. `value` need not be Sendable: the caller gives it up,
    /// and must not touch it again (as with the `HandOver` box this replaces, the compiler does
    /// not check that; values held in stored properties cannot be `sending`).
    public func start<Value>(handingOver value: Value, _ body: @escaping @Sendable (Value) -> Void) {
        let box = Moved(value: value)
        start { body(box.value) }
    }

    /// Starts a thread named `name` that runs `body(value)`; see `start(handingOver:_:)`.
    @discardableResult
    public static func start<Value>(name: String, qos: QualityOfService = .default, finishesBeforeExit: Bool = false,
                                    handingOver value: Value,
                                    _ body: @escaping @Sendable (Value) -> Void) -> WorkerThread {
        let worker = WorkerThread(name: name, qos: qos, finishesBeforeExit: finishesBeforeExit)
        worker.start(handingOver: value, body)
        return worker
    }

    /// The name as the system keeps it: Linux takes 15 bytes (TASK_COMM_LEN less the NUL) and
    /// refuses a longer one outright, so "kiosk-audio-decode" shows as "kiosk-audio-dec".
    public static func systemName(_ name: String) -> String {
        var bytes = Array(name.utf8.prefix(15))
        // Not in the middle of a character.
        while !String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Names the calling thread for the system. On Linux through /proc/thread-self/comm:
    /// Foundation drops a name set on a thread not yet started (the `thread.name = ...;
    /// thread.start()` this replaces never reached the system: the threads kept the name of
    /// the thread that made them), and `Thread.current.name = ...` from inside is lost when the
    /// new thread runs before `start()` has returned in its parent.
    static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        guard let comm = FileHandle(forWritingAtPath: "/proc/thread-self/comm") else { return }
        try? comm.write(contentsOf: Data(systemName(name).utf8))
        try? comm.close()
        #else
        Thread.current.name = name
        #endif
    }

    /// How much nicer than its parent a thread of this quality of service runs. Foundation
    /// ignores `qualityOfService` on Linux, so the kiosk's bulk work (demux, decode, and the
    /// FFmpeg frame threads they create, which inherit the value) would compete with the
    /// presenter as equals: on 2 cores, three 4K decode threads held a flip 50 ms (issue 33).
    /// A higher nice value never needs a privilege; a lower one would, so nothing is raised.
    public static func niceIncrement(for quality: QualityOfService) -> Int32 {
        switch quality {
        case .utility: return 4
        case .background: return 10
        default: return 0
        }
    }

    /// The real-time priority bulk work takes in a process started at a real-time policy (chrt,
    /// a unit's `CPUSchedulingPolicy=`). There every thread runs at the process's priority and
    /// nice means nothing: a decoder, or an item being opened, took turns with the presenter on
    /// a busy core. The lowest priority of the same policy keeps bulk work ahead of the box's
    /// ordinary processes and behind the presenter. Nil: nothing to change (an ordinary policy,
    /// which nice handles, or the lowest priority already).
    public static func bulkRealtimePriority(policy: Int32, priority: Int32) -> Int32? {
        guard policy == Int32(SCHED_RR) || policy == Int32(SCHED_FIFO), priority > 1 else { return nil }
        return 1
    }

    /// The calling thread's scheduling policy and real-time priority.
    public static func currentScheduling() -> (policy: Int32, priority: Int32) {
        var policy: Int32 = 0
        var parameters = sched_param()
        pthread_getschedparam(pthread_self(), &policy, &parameters)
        return (policy, parameters.sched_priority)
    }

    /// Moves the calling thread to `bulkRealtimePriority` where that applies (lowering a
    /// real-time priority needs no privilege); the threads it starts from then on inherit it.
    public static func lowerCurrentThreadBelowRealtimePeers() {
        #if os(Linux)
        let current = currentScheduling()
        guard let lowered = bulkRealtimePriority(policy: current.policy, priority: current.priority) else { return }
        var parameters = sched_param()
        parameters.sched_priority = lowered
        _ = pthread_setschedparam(pthread_self(), current.policy, &parameters)
        #endif
    }

    /// `lowerCurrentThreadPriority(for:)` the first time a thread asks, nothing after (a thread
    /// that opens several decoders, a live source's retries, must not sink further each time).
    public static func lowerCurrentThreadPriorityOnce(for quality: QualityOfService) {
        let key = "kiosk.priorityLowered"
        let dictionary = Thread.current.threadDictionary
        guard dictionary[key] == nil else { return }
        dictionary[key] = true
        lowerCurrentThreadPriority(for: quality)
    }

    /// Applies `niceIncrement(for:)` to the calling thread alone (Linux's nice is per thread),
    /// on top of the process's own nice value (a benchmark's `nice -n -10` keeps its spread).
    static func lowerCurrentThreadPriority(for quality: QualityOfService) {
        let increment = niceIncrement(for: quality)
        #if os(Linux)
        guard increment > 0 else { return }
        lowerCurrentThreadBelowRealtimePeers()
        // `who` 0 is the calling thread: Linux keeps the value per task (setpriority(2), BUGS).
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard errno == 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(current + increment, 19))
        #endif
    }

    /// Whether `start` was called.
    public var hasStarted: Bool { lock.withLock { started } }

    /// Whether the body has returned. Unlike `join(timeout: 0)`, it takes nothing: a join
    /// lets the next waiter through only after it got the end, so another thread in its own
    /// join at that moment makes a zero-timeout join say "not yet".
    public var hasFinished: Bool { lock.withLock { finished } }

    /// Whether the body has returned.
    public var isFinished: Bool { lock.withLock { finished } }

    /// Signals `semaphore` once when the body returns (at once if it has): for a thread that
    /// waits for this end or something else (a deadline, a stop not obeyed) on one semaphore.
    public func signalWhenDone(_ semaphore: DispatchSemaphore) {
        let over = lock.withLock {
            if !finished { endWatchers.append(semaphore) }
            return finished
        }
        if over { semaphore.signal() }
    }

    /// Waits until the body has returned, at most `timeout` seconds (nil: without limit); true
    /// when it has. Every waiter is let through, before and after the end.
    @discardableResult
    public func join(timeout: Double? = nil) -> Bool {
        // A semaphore, not a condition with a Date: its timeout runs on the monotonic clock,
        // so a wall-clock step (NTP at boot) neither cuts a wait short nor stretches it.
        let result = timeout.map { done.wait(timeout: .now() + $0) } ?? { done.wait(); return .success }()
        if result == .success { done.signal() }   // let the next waiter through
        return result == .success
    }
}

/// Carries a value that is not Sendable into the worker's closure; see `start(handingOver:_:)`.
private struct Moved<Value>: @unchecked Sendable {
    let value: Value
}
