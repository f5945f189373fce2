import Foundation

/// A FIFO between two threads with a capacity: the producer blocks when it is full (so a fast
/// demuxer cannot eat the memory), the consumer when it is empty. `close()` wakes both for
/// good; `flush()` drops what is queued (a seek) and wakes a blocked producer.
///
/// Full can also mean bytes: with a `budget`, a push waits while what is queued and the new
/// element would weigh more than `budget.bytes`, unless fewer than `budget.minimumCount` are
/// queued (a 4K frame is 12-25 MB: four of them cost what a small box cannot spare, but the
/// presenter always needs one ahead).
final class BoundedQueue<Element>: @unchecked Sendable {
    /// What a queue of large elements may hold.
    struct ByteBudget {
        var bytes: Int
        /// Queued whatever they weigh.
        var minimumCount: Int
        /// An element's weight in bytes.
        var weight: (Element) -> Int
    }

    // Safe to share: every access to `items`/`closed`/`queuedBytes` holds `condition`'s lock.
    private let condition = NSCondition()
    /// `items[head...]` are queued; the slots before `head` were popped and are cleared at once:
    /// a popped element must not stay referenced until the array is compacted (decoded frames
    /// are megabytes each: 64 of them kept alive cost 200 MB at 1080p).
    private var items: [Element?] = []
    private var head = 0
    private var closed = false
    private var queuedBytes = 0
    /// Under the lock: `setCapacity` may change it while both threads use the queue.
    private var capacityNow: Int
    private var budget: ByteBudget?

    init(capacity: Int, budget: ByteBudget? = nil) {
        precondition(capacity > 0)
        capacityNow = capacity
        self.budget = budget
    }

    /// The most elements queued (a byte budget may allow fewer).
    var capacity: Int { condition.withLock { capacityNow } }

    /// A producer waiting for room is woken when there is more. `bytes`: the budget's new
    /// bytes (a queue without a budget has none).
    func setCapacity(_ capacity: Int, bytes: Int? = nil) {
        precondition(capacity > 0)
        condition.withLock {
            capacityNow = capacity
            if let bytes { budget?.bytes = bytes }
            condition.broadcast()
        }
    }

    var count: Int { condition.withLock { items.count - head } }
    var isClosed: Bool { condition.withLock { closed } }
    /// Whether the next element (weighing what the queued ones do on average) would wait.
    var isFull: Bool {
        condition.withLock {
            let count = items.count - head
            return isFull(adding: count > 0 ? queuedBytes / count : 0)
        }
    }
    /// What the queued elements weigh (0 without a budget).
    var bytes: Int { condition.withLock { queuedBytes } }

    /// Adds `element`, waiting while the queue is full; false once the queue is closed.
    @discardableResult
    func push(_ element: Element) -> Bool {
        let weight = budget?.weight(element) ?? 0
        condition.lock(); defer { condition.unlock() }
        while !closed && isFull(adding: weight) { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        queuedBytes += weight
        condition.broadcast()
        return true
    }

    private func isFull(adding weight: Int) -> Bool {
        let count = items.count - head
        if count >= capacityNow { return true }
        guard let budget, count >= budget.minimumCount else { return false }
        return queuedBytes + weight > budget.bytes
    }

    /// The oldest element, waiting up to `timeout` seconds (forever when nil); nil on timeout
    /// or when closed and empty.
    func pop(timeout: Double? = nil) -> Element? {
        condition.lock(); defer { condition.unlock() }
        guard waitForElement(timeout: timeout) else { return nil }
        return removeHead()
    }

    /// Removes the oldest element if `isIt` says it is the one the caller holds (a frame
    /// drawn from the head, which a flush may have taken meanwhile); nothing waits.
    @discardableResult
    func popFirst(if isIt: (Element) -> Bool) -> Bool {
        condition.lock(); defer { condition.unlock() }
        guard head < items.count, let element = items[head], isIt(element) else { return false }
        _ = removeHead()
        return true
    }

    /// Under the lock, with an element queued.
    private func removeHead() -> Element {
        let element = items[head]!
        items[head] = nil
        head += 1
        if let budget { queuedBytes -= budget.weight(element) }
        if head > 64 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        condition.broadcast()
        return element
    }

    /// The oldest element without removing it, waiting like `pop`.
    func peek(timeout: Double? = nil) -> Element? {
        condition.lock(); defer { condition.unlock() }
        guard waitForElement(timeout: timeout) else { return nil }
        return items[head]!
    }

    /// The element after the oldest, if one is queued now (the pacer looks one frame ahead).
    func peekSecond() -> Element? {
        condition.withLock { items.count - head >= 2 ? items[head + 1]! : nil }
    }

    func flush() {
        condition.withLock {
            items.removeAll(keepingCapacity: true)
            head = 0
            queuedBytes = 0
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            items.removeAll()
            head = 0
            queuedBytes = 0
            condition.broadcast()
        }
    }

    private func waitForElement(timeout: Double?) -> Bool {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        while !closed && items.count == head {
            if let deadline {
                if !condition.wait(until: deadline) { return items.count > head }
            } else {
                condition.wait()
            }
        }
        return items.count > head
    }
}
