import Foundation

/// A FIFO between two threads with a capacity: the producer blocks when it is full (so a fast
/// demuxer cannot eat the memory), the consumer when it is empty. `close()` wakes both for
/// good; `flush()` drops what is queued (a seek) and wakes a blocked producer.
final class BoundedQueue<Element>: @unchecked Sendable {
    // Safe to share: every access to `items`/`closed` holds `condition`'s lock.
    private let condition = NSCondition()
    /// `items[head...]` are queued; the slots before `head` were popped and are cleared at once:
    /// a popped element must not stay referenced until the array is compacted (decoded frames
    /// are megabytes each: 64 of them kept alive cost 200 MB at 1080p).
    private var items: [Element?] = []
    private var head = 0
    private var closed = false
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { condition.withLock { items.count - head } }
    var isClosed: Bool { condition.withLock { closed } }

    /// Adds `element`, waiting while the queue is full; false once the queue is closed.
    @discardableResult
    func push(_ element: Element) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while !closed && items.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// The oldest element, waiting up to `timeout` seconds (forever when nil); nil on timeout
    /// or when closed and empty.
    func pop(timeout: Double? = nil) -> Element? {
        condition.lock(); defer { condition.unlock() }
        guard waitForElement(timeout: timeout) else { return nil }
        let element = items[head]!
        items[head] = nil
        head += 1
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
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            items.removeAll()
            head = 0
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
