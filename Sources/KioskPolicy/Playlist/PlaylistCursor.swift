/// What the engine should do next.
public enum PlaylistStep: Sendable, Equatable {
    /// Open and play the entry at this index.
    case play(Int)
    /// `loop: none` reached the end: stay on the last frame.
    case finished
    /// Every entry failed in this pass (or there are none): show the idle screen, wait, then
    /// call `advance()` again to start a fresh pass.
    case nothingPlayable(retryAfter: MediaTime)
}

/// What `replace(entries:)` did with the item on screen.
public enum ReplaceOutcome: Sendable, Equatable {
    /// The current media is in the new playlist at this index; keep playing it.
    case keptCurrent(Int)
    /// It is gone; call `advance()` to switch to what now stands in its place.
    case currentRemoved
    /// Nothing was playing.
    case notStarted
}

/// The loop policy as a pure state machine over playlist entries: which entry plays next when
/// one ends, is skipped by the user, or fails. It does no I/O and keeps no clock; the engine
/// calls it and acts on the returned `PlaylistStep`.
///
/// A *pass* runs from wherever playback is to the end of the list. Entries that fail are
/// skipped for the rest of the pass and retried in the next one (a file may be copied in
/// later); when every entry failed in one pass the answer is `.nothingPlayable` with a delay
/// from `backoff`, growing while whole passes keep failing and reset by any success.
public struct PlaylistCursor: Sendable, Equatable {
    public private(set) var entries: [PlaylistEntry]
    public var loopMode: PlaylistLoopMode
    public var backoff: RetryBackoff
    /// The entry playing (or last asked to play); nil before the start and after a removal.
    public private(set) var currentIndex: Int?
    /// How many times in a row the current entry has been started (for per-item `loop`).
    public private(set) var playsOfCurrent = 0
    /// Entries that failed in this pass.
    public private(set) var failedThisPass: Set<Int> = []
    /// Whole passes that failed one after the other; picks the retry delay.
    public private(set) var failedPassesInARow = 0
    public private(set) var isFinished = false
    /// Where the next `advance()` starts when nothing is current.
    private var resumeIndex = 0

    public init(entries: [PlaylistEntry], loopMode: PlaylistLoopMode, backoff: RetryBackoff = .standard) {
        self.entries = entries
        self.loopMode = loopMode
        self.backoff = backoff
    }

    /// The current entry ended by itself (or playback starts): the next step.
    public mutating func advance() -> PlaylistStep {
        if isFinished { return .finished }
        guard let current = currentIndex else { return searchForward(from: resumeIndex) }
        guard !failedThisPass.contains(current) else { return searchForward(from: current + 1) }
        failedPassesInARow = 0
        if loopMode == .item {
            // Each repeat of the item is a pass of its own: entries that failed before get
            // another chance the next time this one cannot be played.
            failedThisPass = []
            return begin(current, keepingCount: true)
        }
        if playsOfCurrent < entries[current].repeatCount { return begin(current, keepingCount: true) }
        return searchForward(from: current + 1)
    }

    /// The user skipped forward: the next entry, ignoring the loop count of this one.
    /// Wraps around unless `loop` is none, where skipping past the last entry finishes.
    public mutating func next() -> PlaylistStep {
        if isFinished { return .finished }
        guard let current = currentIndex else { return advance() }
        if !failedThisPass.contains(current) { failedPassesInARow = 0 }
        return searchForward(from: current + 1)
    }

    /// The user skipped back: the entry before, wrapping to the last unless `loop` is none,
    /// where the first entry just restarts. After the end, previous() plays the last entry.
    public mutating func previous() -> PlaylistStep {
        guard !entries.isEmpty else { return nothingPlayable() }
        guard let current = isFinished ? entries.count : currentIndex else { return advance() }
        isFinished = false
        let before = Array(stride(from: current - 1, through: 0, by: -1))
        let wrapped = loopMode == .none ? [] : Array(stride(from: entries.count - 1, to: current, by: -1))
        if let target = (before + wrapped).first(where: { !failedThisPass.contains($0) }) {
            return begin(target)
        }
        guard current < entries.count, !failedThisPass.contains(current) else { return nothingPlayable() }
        return begin(current)
    }

    /// The user picked an entry. It gets another chance even if it failed in this pass.
    /// nil (and no change) for an index outside the playlist.
    /// `play`: which play of a repeated entry (`loop: N`) this is, from 0 (a synchronised
    /// player joining the timeline in the middle of the repeats); the plays left follow it.
    public mutating func jump(to index: Int, play: Int = 0) -> PlaylistStep? {
        guard entries.indices.contains(index) else { return nil }
        isFinished = false
        failedThisPass.remove(index)
        let step = begin(index)
        setPlayOfCurrent(play)
        return step
    }

    /// The current entry is in its play `play` (from 0) of its repeats.
    public mutating func setPlayOfCurrent(_ play: Int) {
        guard let currentIndex, entries.indices.contains(currentIndex) else { return }
        playsOfCurrent = Swift.max(1, Swift.min(play + 1, entries[currentIndex].repeatCount))
    }

    /// The entry could not be opened or decoded; call `advance()` next.
    public mutating func markFailed(_ index: Int) {
        guard entries.indices.contains(index) else { return }
        failedThisPass.insert(index)
    }

    /// Live reload. The current media keeps playing when the new list has it (matched by
    /// `MediaReference`; with duplicates, the same occurrence). Failures are forgotten: the
    /// reload may have fixed them. A finished playlist starts over with the new entries.
    public mutating func replace(entries newEntries: [PlaylistEntry]) -> ReplaceOutcome {
        let oldEntries = entries
        let oldCurrent = currentIndex
        entries = newEntries
        failedThisPass = []
        currentIndex = nil
        if isFinished { isFinished = false; resumeIndex = 0; return .notStarted }
        guard let oldCurrent, oldEntries.indices.contains(oldCurrent) else {
            resumeIndex = 0
            return .notStarted
        }
        let media = oldEntries[oldCurrent].media
        let occurrence = oldEntries[..<oldCurrent].filter { $0.media == media }.count
        let matches = newEntries.indices.filter { newEntries[$0].media == media }
        guard let kept = matches.isEmpty ? nil : matches[min(occurrence, matches.count - 1)] else {
            resumeIndex = oldCurrent   // what moved into its place plays next
            return .currentRemoved
        }
        currentIndex = kept
        return .keptCurrent(kept)
    }

    // MARK: Private

    private mutating func begin(_ index: Int, keepingCount: Bool = false) -> PlaylistStep {
        playsOfCurrent = keepingCount && index == currentIndex ? playsOfCurrent + 1 : 1
        currentIndex = index
        return .play(index)
    }

    /// The first entry at or after `start` not failed in this pass; at the end of the list a
    /// new pass begins (wrap) or, with `loop: none`, playback finishes.
    private mutating func searchForward(from start: Int) -> PlaylistStep {
        guard !entries.isEmpty else { return nothingPlayable() }
        if start < entries.count, let target = (start..<entries.count).first(where: { !failedThisPass.contains($0) }) {
            return begin(target)
        }
        if failedThisPass.count >= entries.count { return nothingPlayable() }
        if loopMode == .none {
            isFinished = true
            return .finished
        }
        failedThisPass = []   // a new pass: failed entries get their retry
        return begin(0)
    }

    /// Every entry failed: forget the pass and start the next from the top after a delay.
    private mutating func nothingPlayable() -> PlaylistStep {
        failedPassesInARow += 1
        failedThisPass = []
        currentIndex = nil
        resumeIndex = 0
        return .nothingPlayable(retryAfter: backoff.delay(afterFailures: failedPassesInARow))
    }
}
