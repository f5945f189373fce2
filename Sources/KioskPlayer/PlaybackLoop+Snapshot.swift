import Foundation
import KioskCore

extension PlaybackLoop {
    /// Worked out again only when the navigator changed: the snapshot goes out at every
    /// frame, the navigator changes only at an item's start or a request, and comparing a copy
    /// is cheap (its arrays share storage).
    private func nextItemTitle() -> String? {
        let navigator = sequencer.navigator
        if let upNext, upNext.navigator == navigator { return upNext.title }
        let title = navigator.preview().entry?.title
        upNext = (navigator, title)
        return title
    }

    /// What the player's properties read (QueuePlayer's snapshot), at every frame and state change.
    func publishSnapshot() {
        let reason = time.state.reasonForWaitingToPlay   // at every frame: no array built to ask
        let waiting = time.state.timeControlStatus == .waitingToPlayAtSpecifiedRate && (reason == .openingItem || reason == .buffering)
        if !waiting { waitingForDataSince = nil } else if waitingForDataSince == nil { waitingForDataSince = MonotonicClock().now() }
        publish?(PlayerSnapshot(state: time.state, currentTime: time.currentTime, itemIndex: current?.index,
                                itemTitle: current?.entry.title, nextItemTitle: nextItemTitle(), framesPresented: screen.presented,
                                framesDropped: screen.dropped, playlist: sequencer.navigator.entries,
                                isDisplayOn: !sequencer.power.isOff, waitingForDataSince: waitingForDataSince))
    }
}
