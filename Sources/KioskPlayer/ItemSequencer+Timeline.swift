import KioskCore

/// Where the master clock's time comes from: the sound as it is heard (DESIGN.md), or, on a
/// synchronised player (`sync: epoch:`), the shared timeline read from CLOCK_REALTIME
/// (`TimelineSteering`): every box and every screen then shows the frame due on the timeline
/// at each refresh, whatever its own refresh rate, and a box that starts, restarts or reloads
/// jumps to the timeline's item and position.
extension ItemSequencer {
    /// Before each step of the loop.
    func followMasterClock(_ item: ActiveItem) {
        // An insert, a trigger, a pause, the screen off, a list with no lengths: the box's own
        // clock (its sound) leads; it rejoins the timeline afterwards.
        guard let epoch = settings.sync.epoch, !item.reference.isInsert, !navigator.program.isPlayingInsert,
              time.state.rate.numerator != 0, !finished, !power.isOff, idleUntil == nil, item === current,
              navigator.entries.indices.contains(item.index), navigator.entries[item.index].media == item.entry.media,
              let timeline = follower.timeline(for: navigator.entries, epoch: epoch, imageDuration: settings.playback.imageDuration)
        else {
            steerLiveLatency(item)
            return time.followAudio(item)
        }
        // A stream by its URL from the start: a first open waiting for data (UDP's, up to 3 s)
        // says nothing yet, and the slot's end was missed by that much.
        if item.pipeline.progress.isLive || TimelineFollower.isStream(item.entry) { return followTimelineLive(item, timeline: timeline) }
        if time.needsFirstFrame, follower.jumpedTo == item.reference.serial { return }   // the jump's frame is coming
        follower.jumpedTo = nil
        // Before its first frame an item is where it was opened (its start) or last shown.
        let position = time.needsFirstFrame ? (item.lastPresentedPTS.map { $0 - item.plan.start } ?? .zero) : time.currentTime
        let now = MonotonicClock.hostTime()
        switch TimelineSteering.decide(timeline: timeline, playLengths: follower.playLengths, entry: item.index,
                                       position: position, isStarting: time.needsFirstFrame, realtime: MonotonicClock.realtimeNanoseconds(atHost: now)) {
        case .none:
            steerSound(of: item)
        case .follow(let target):
            // The first frame sets the clock itself; a stopped clock (waiting) is not moved.
            guard !time.needsFirstFrame, time.clock.isRunning else { return }
            time.clock.seek(to: target + item.plan.start, atHost: now)
            steerSound(of: item)
        case .jump(let entry, let offset, let play):
            if let last = follower.lastJump, now - last < MediaTime(value: 1, timescale: 1) { return }
            follower.lastJump = now
            jump(to: entry, offset: offset, play: play, from: item)
        }
    }

    /// A synchronised player starts with the timeline's item at its place: the playlist's first,
    /// opened to be left at once, cost an open and a probe, and a live UDP item's port was still
    /// bound while the joined item prepared it as the next (`bind failed`, a second lost).
    func startOnTheTimeline() -> Bool {
        // A switch, an insert or an override waiting is the program's to begin (`advance`).
        let program = navigator.program
        guard let epoch = settings.sync.epoch, !navigator.entries.isEmpty, program.pendingSwitch == nil,
              program.pendingInsert.isEmpty, !program.isPlayingInsert, program.playingOverride == nil,
              let timeline = follower.timeline(for: navigator.entries, epoch: epoch, imageDuration: settings.playback.imageDuration)
        else { return false }
        let now = MonotonicClock.hostTime()
        guard case .jump(let entry, let offset, let play) = TimelineSteering.decide(
                  timeline: timeline, playLengths: follower.playLengths, entry: 0, position: nil,
                  realtime: MonotonicClock.realtimeNanoseconds(atHost: now)) else { return false }
        follower.lastJump = now
        return jump(to: entry, offset: offset, play: play, from: nil)
    }

    /// A live stream has no position of its own on the timeline: it shows what arrives, at rate 1
    /// with its latency kept, on the box's own clock (the clock set from the timeline stepped a
    /// stream's frames against it, and a join seeked into it). The timeline only says when its
    /// slot (its `duration`) is over: then the item whose slot it is begins, as at any join.
    private func followTimelineLive(_ item: ActiveItem, timeline: SyncTimeline) {
        let now = MonotonicClock.hostTime()
        // Also while it waits for a first frame (a sender away): the slot ends all the same.
        if case .jump(let entry, let offset, let play) = TimelineSteering.decideLive(
               timeline: timeline, playLengths: follower.playLengths, entry: item.index,
               realtime: MonotonicClock.realtimeNanoseconds(atHost: now)),
           follower.lastJump.map({ now - $0 >= MediaTime(value: 1, timescale: 1) }) ?? true {
            follower.lastJump = now
            // The item after the slot was prepared ahead, as for a seam: begun at its start (a
            // place reopens it), the clock then catches up the little the timeline moved on.
            let prepared = upcoming?.index == entry && offset < TimelineSteering.jumpThreshold
            jump(to: entry, offset: prepared ? .zero : offset, play: play, from: item)
            return
        }
        steerLiveLatency(item)
        time.followAudio(item)
    }

    /// The sound stays on the timeline by being played a few parts per million longer or
    /// shorter (`TimelineSteering.soundCompensation`); the item after it is decoded ahead at the
    /// same correction.
    private func steerSound(of item: ActiveItem) {
        guard let audio, time.clock.isRunning,
              let (heard, host, _) = audio.heardTime(ofItem: Int(item.reference.serial), notBefore: item.plan.start) else { return }
        let ppm = TimelineSteering.soundCompensation(error: heard - time.clock.mediaTime(atHost: host))
        item.pipeline.setAudioCompensation(ppm: ppm)
        upcoming?.pipeline.setAudioCompensation(ppm: ppm)
    }

    /// Moves to the timeline's item and position: a seek within the item playing, else the
    /// item begun there (`item` nil: at start); as its play `play` of a repeated entry, so the
    /// plays after it are the ones left (a join into the second of two plays plays it once
    /// more, not twice). False when the entry is not in the list.
    @discardableResult
    private func jump(to entry: Int, offset: MediaTime, play: Int, from item: ActiveItem?) -> Bool {
        guard navigator.entries.indices.contains(entry) else { return false }
        let which = play > 0 ? ", its play \(play + 1)" : ""
        logger.notice("sync: joining the timeline at item \(entry) (\(navigator.entries[entry].title)) + \(String(format: "%.3f", offset.seconds)) s\(which)")
        if entry == item?.index {
            time.jump(to: offset)
            navigator.setPlayOfCurrent(play)
        } else if let step = navigator.jump(to: entry, play: play) {
            begin(step, seamFrom: nil, resumingAt: offset > .zero ? offset : nil)
        }
        if let current { follower.jumpedTo = current.reference.serial }
        return true
    }
}
