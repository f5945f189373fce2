import KioskCore

/// What changes the item from outside the seams: a user's playlist request, the display's
/// power, a live reload, and a stalled item.
extension ItemSequencer {
    /// A request from a source (keys, touch, the control socket, the scheduler): playlist
    /// requests go to the navigator (KioskCore's `PlaylistNavigator.answer`), the others to
    /// the state machine.
    /// Returns why not when the request is refused (also logged): the control socket's reply.
    @discardableResult
    func carryOut(_ request: PlayerRequest) -> PlayerRefusal? {
        if settings.sync.epoch != nil, let refusal = TimelineSteering.refusal(of: request) {
            logger.warning("\(request): \(refusal)")
            return PlayerRefusal(refusal)
        }
        if let current, current.pipeline.progress.isLive, let refusal = LiveSource.refusal(of: request) {
            logger.warning("refused: \(refusal)")
            return PlayerRefusal(refusal)
        }
        guard request.isPlaylistRequest else { return time.apply(request) }
        if case .layer(let name, let change) = request {
            guard let refusal = screen.changeLayer(name, change) else { return nil }
            logger.warning("layer \(name): \(refusal)")
            return PlayerRefusal(refusal)
        }
        if case .soundCue(let cue) = request { return playSoundCue(cue) }
        let answer = answerOf(request)
        if case .refused(let line) = answer {
            logger.warning("\(line)")
            return PlayerRefusal(line)
        }
        onEvent?(.playlistRequest(request))
        if case .showOverride(_, _, let layers) = request { overrideLayers = Set(layers) }
        act(on: answer)
        return nil
    }

    /// A sound over whatever plays (`SoundCuePlayer`), or silence for nil; refused, with why,
    /// where kiosk plays no sound at all.
    private func playSoundCue(_ cue: SoundCue?) -> PlayerRefusal? {
        guard let audio else {
            guard let cue else { return nil }
            let line = "sound cue \(cue.path): not heard: kiosk plays no sound here (audio: none, or no device opened)"
            logger.warning("\(line)")
            return PlayerRefusal(line)
        }
        audio.cues.play(cue)
        return nil
    }

    private func answerOf(_ request: PlayerRequest) -> PlaylistAnswer {
        // While the screen is dark nothing plays: the place kept for its return is the position.
        navigator.answer(request, position: current.map(resumePoint) ?? power.poweredOff?.position,
                         displayOff: power.isOff)
    }

    private func act(on answer: PlaylistAnswer) {
        switch answer {
        case .begin(let step):
            begin(step, seamFrom: nil)
        case .programChanged(let now):
            items.dropUpcoming()   // prepared again, from the program
            if let now {
                finished = false
                begin(now, seamFrom: nil)
            }
        case .loaded(let outcome):
            items.dropUpcoming()
            switch outcome {
            case .keptCurrent(let index):
                current?.index = index
                onEvent?(.currentItemMoved(index: index))
            case .currentRemoved, .notStarted: begin(navigator.advance(), seamFrom: nil)
            }
            finished = false
            // A loaded list plays from its start: the load's own step, not a request of its own
            // (observers heard of the load, the reason its item changes).
            act(on: answerOf(.goto(index: 0)))
        case .setDisplayPower(let on):
            setDisplayPower(on: on)
        case .refused(let line):
            logger.warning("\(line)")
        case .deferred:
            break
        case .resumeWhenOn(let next):
            if case .play(let index) = next.step {
                power.markOff(resumingAt: PoweredOff(index: index, position: next.resumeAt))
            } else {
                power.markOff(resumingAt: PoweredOff())   // the program's next step when it is on
            }
        }
    }

    /// Whether the output's own control switches the screen (`display.power_control`).
    var usesKMSPower: Bool { settings.display.powerControl != .cec }

    /// Off: every item is closed so nothing is decoded, and the loop idles with the watchdog
    /// fed. On: the item that played comes back where it was, or what the schedule switched to
    /// meanwhile begins.
    private func setDisplayPower(on: Bool) {
        guard on == power.isOff else { return }
        if on {
            let resume = power.switchOn(viaKMS: usesKMSPower)
            finished = false
            // A switch that waited while the screen was dark is taken now; else the item resumes.
            if navigator.program.pendingSwitch == nil, let index = resume?.index, navigator.entries.indices.contains(index) {
                begin(.play(index), seamFrom: nil, resumingAt: resume?.position)
            } else {
                begin(navigator.advance(), seamFrom: nil)
            }
        } else {
            let playing = current != nil && !finished
            power.markOff(resumingAt: PoweredOff(index: playing ? navigator.currentIndex : nil,
                                                 position: current.flatMap { playing ? resumePoint(of: $0) : nil }))
            items.closeAll()
            idleUntil = nil
            audio?.flush()
            time.apply(.queueEmpty)
            power.switchOff(viaKMS: usesKMSPower)
        }
        onEvent?(.displayPower(on: on))
        changed()
    }

    /// Applies a live reload of kiosk.conf between two frames: the new settings replace the old
    /// whole (gravity, image and stall times are read from them at each use); `SettingsReload`
    /// says what else changes, so a reload does not undo what keys or touch did. `entries`: the
    /// new playlist, when it changed.
    func applyReload(_ new: PlayerSettings, entries: [PlaylistEntry]?) {
        let reload = SettingsReload(from: settings, to: new, newPlaylist: entries != nil)
        settings = new
        if let loopMode = reload.loopMode { navigator.setLoopMode(loopMode) }
        if reload.preparesUpcomingAgain {
            items.dropUpcoming()
            items.armed.closeAll()   // armed again, opened with the new settings
        }
        if let entries {
            // While an insert plays, the loop it returns to takes the new list (nil).
            switch navigator.replaceLoopEntries(entries) {
            case nil: break
            case .keptCurrent(let index)?:
                // The current item plays on; its new options (gravity, volume) take effect now,
                // its trim, duration and loop count from its next play.
                current?.index = index
                current?.entry = entries[index]
                power.entryMoved(to: index)
                if current != nil { onEvent?(.currentItemMoved(index: index)) }
            case .currentRemoved?, .notStarted?:
                // With the screen off, the new list begins when it is on again.
                if power.isOff { power.entryMoved(to: nil) } else { begin(navigator.advance(), seamFrom: nil) }
            }
            finished = false
        }
        for request in reload.requests { time.apply(request) }
        time.applyVolume()   // an item's own volume or mute may have changed
        if let overlay = reload.overlay { screen.configureOverlay(overlay) }
        if let layers = reload.layers { screen.configureLayers(layers, font: new.overlay?.font ?? .auto) }
        changed()
    }

    /// Where `item` comes back after a trigger, an insert, an override or a dark display: the
    /// clock's position, or the frame on screen where the screen fell behind the clock
    /// (ViewerPosition). A still or cover art, or a clock set for a frame not yet shown (a
    /// seek), by the clock.
    private func resumePoint(of item: ActiveItem) -> MediaTime {
        let clock = time.currentTime
        guard !time.needsFirstFrame, item.plan.stillDuration == nil, item.pipeline.info?.bestVideo?.isStillImage != true,
              let shown = item.lastPresentedPTS else { return clock }
        let start = item.plan.start
        let (head, endIsNext) = item.queuedAfterScreen
        return ViewerPosition.of(clock: clock, shown: shown - start, lastDropped: item.lastDroppedPTS.map { $0 - start },
                                 head: head.map { $0 - start }, frameDuration: item.expectedFrameDuration, rate: time.state.rate,
                                 endIsNext: endIsNext)
    }

    /// Once per turn of the loop (StallWatch): a local item that froze while it should play is
    /// ended as failed and the playlist goes on.
    func watchForStall() {
        let item = current
        if let error = stall.check(item, expectsProgress: item.map(expectsProgress) ?? false,
                                   timeout: settings.playback.stallTimeout, position: time.currentTime), let item {
            fail(item, error)
            // The next item (begin noted it) or the idle screen counts afresh.
            if current == nil || finished || idleUntil != nil { stall.standDown() }
        }
        stall.reportToHeartbeat()
    }

    /// Whether the item on screen should be making progress now: not paused, not finished,
    /// and (for a network item) not waiting for data, which has its own rules.
    private func expectsProgress(from item: ActiveItem) -> Bool {
        guard time.state.rate.numerator != 0, !finished, !settings.untimed, idleUntil == nil else { return false }
        if time.state.timeControlStatus == .playing { return true }
        // A local file that ran dry, or that takes this long to open, is not buffering.
        return !item.pipeline.isNetwork
    }
}
