/// What the engine does for a playlist request (`PlayerRequest.isPlaylistRequest`): decided
/// here, pure; the navigator moves and the engine acts on the answer.
public enum PlaylistAnswer: Sendable, Equatable {
    /// Begin this step now (a skip, a jump).
    case begin(PlaylistProgram.Step)
    /// What follows the current item changed (a switch or an insert): the item prepared to
    /// follow no longer does; `beginNow`, when set, begins at once (`now`, nothing in the way).
    case programChanged(beginNow: PlaylistStep?)
    /// A user's new list (a control `load`); the outcome says what became of the entry playing.
    case loaded(ReplaceOutcome)
    case setDisplayPower(on: Bool)
    /// Not carried out: the line to log.
    case refused(String)
    /// Taken for later (a switch or insert while the screen is dark waits for it to come on).
    case deferred
    /// While the screen is dark: what plays when it comes on changed (an override began or
    /// ended in the dark): this step, not the item that played when it went off.
    case resumeWhenOn(PlaylistProgram.Step)
}

extension PlaylistNavigator {
    /// The answer to `request`. `position`: where the entry playing is now (nil when nothing
    /// plays), for an insert `now` to resume it there. While the display is off nothing
    /// begins: a switch or an insert waits for it to come on (as at a seam), and a user's move
    /// through the playlist is refused.
    public mutating func answer(_ request: PlayerRequest, position: MediaTime?, displayOff: Bool) -> PlaylistAnswer {
        if case .setDisplayPower(let on) = request { return .setDisplayPower(on: on) }
        if let refusal = refusalDuringOverride(request) { return .refused(refusal) }
        if displayOff { return answerWhileOff(request, position: position) }
        switch request {
        case .showOverride(let name, let entries, _):
            guard !entries.isEmpty else { return .refused("override '\(name)' has nothing to play") }
            return .programChanged(beginNow: beginOverride(name, entries: entries, position: position))
        case .endOverride:
            guard let step = endOverride() else { return .refused("no override is on screen") }
            return .begin(step)
        case .nextItem:
            return .begin(advance(move: { $0.next() }))
        case .previousItem:
            return .begin(PlaylistProgram.Step(previous()))
        case .goto(let index, let position):
            guard let step = jump(to: index) else { return .refused(Self.noItem(index, count: entries.count)) }
            return .begin(PlaylistProgram.Step(step, resumeAt: position.flatMap { $0 > .zero ? $0 : nil }))
        case .switchPlaylist(let list, let timing):
            return .programChanged(beginNow: switchPlaylist(to: list, when: timing))
        case .playOnce(let content, let timing, let trigger):
            let list: [PlaylistEntry]
            switch content {
            case .entries(let entries):
                list = entries
            case .entry(let index):
                let loop = loopEntries
                guard loop.indices.contains(index) else {
                    return .refused(Self.noItem(index, count: loop.count))
                }
                list = [loop[index]]
            }
            guard let trigger else { return .programChanged(beginNow: insert(list, when: timing, position: position)) }
            switch insertTrigger(list, trigger: trigger, position: position) {
            case .begins(let step): return .programChanged(beginNow: step)
            case .waits: return .programChanged(beginNow: nil)
            case .ignored(let line): return .refused(line)
            }
        case .load(let list):
            return .loaded(load(list))
        default:
            return .refused("\(request) is not a playlist request")
        }
    }

    /// The refusal of an index past the end, as the control socket replies it after the word.
    static func noItem(_ index: Int, count: Int) -> String {
        "no item \(index): the playlist has \(count) item\(count == 1 ? "" : "s"), counted from 0"
    }

    /// While an override has the screen a user's moves, triggers and loads are refused: a
    /// visitor's button does not take an evacuation notice down.
    private func refusalDuringOverride(_ request: PlayerRequest) -> String? {
        guard let name = program.playingOverride else { return nil }
        switch request {
        case .nextItem, .previousItem, .goto, .load, .playOnce(_, _, .some):
            return "override '\(name)' is on screen: \(request.said) is not carried out"
        default:
            return nil
        }
    }

    private mutating func answerWhileOff(_ request: PlayerRequest, position: MediaTime?) -> PlaylistAnswer {
        switch request {
        case .switchPlaylist(let list, _):
            _ = switchPlaylist(to: list, when: .atSeam)
            return .deferred
        case .playOnce(_, _, let trigger?):
            // A press at night is not kept for the morning.
            return .refused("the display is off: trigger '\(trigger.name)' is not played")
        case .playOnce(.entries(let list), _, nil):
            _ = insert(list, when: .atSeam, position: nil)
            return .deferred
        case .playOnce:
            return .refused("the display is off: \(request.said) is not played")
        case .showOverride(let name, let entries, _):
            // Taken in the dark, as the desk took it: on screen when the display comes on.
            guard !entries.isEmpty else { return .refused("override '\(name)' has nothing to play") }
            return .resumeWhenOn(PlaylistProgram.Step(beginOverride(name, entries: entries, position: position)))
        case .endOverride:
            // Ended in the dark: the loop it cut comes back when the display comes on.
            guard let step = endOverride() else { return .refused("no override is on screen") }
            return .resumeWhenOn(step)
        default:
            return .refused("the display is off: \(request.said) is not carried out")
        }
    }
}

extension PlayerRequest {
    /// The request in the control socket's words, for a refusal's line: "next", "goto 2",
    /// "load" (its Swift name, "nextItem", or a load's whole playlist, meant nothing to a user).
    var said: String {
        switch self {
        case .nextItem: return "next"
        case .previousItem: return "previous"
        case .goto(let index, _): return "goto \(index)"
        case .load: return "load"
        case .playOnce(_, _, let trigger?): return "trigger '\(trigger.name)'"
        case .playOnce: return "play_item_once"
        default: return "\(self)"
        }
    }
}
