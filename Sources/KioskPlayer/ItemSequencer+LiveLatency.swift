import KioskCore

/// A live stream's buffer kept within its `latency` (`LiveLatencySteering`), as an observer of
/// each step of the loop: its sound resampled 1 % longer or shorter where sound leads the
/// clock, else the clock's own rate; the pacer drops or holds frames as the clock goes.
/// Not for HLS (segments come in bursts FFmpeg decides: played faster, it would run into the
/// live edge, where FFmpeg waits a target duration inside one read).
extension ItemSequencer {
    func steerLiveLatency(_ item: ActiveItem) {
        let progress = item.pipeline.progress
        if item === current { progress.isLive ? playAtRateOne(item) : giveRateBack() }
        let playing = progress.isLive && !progress.refetchesSegments && item === current && time.clock.isRunning
            && !time.needsFirstFrame && item.stalledSince == nil
        let now = MonotonicClock.hostTime()
        let change: LiveLatencySteering.Pace?
        if playing, let (seen, queueFull) = item.pipeline.bufferedAhead(of: time.clock.mediaTime(atHost: now), cadence: item.expectedFrameDuration) {
            // A full packet queue hides what waits behind it: at least the band's top (a latency
            // larger than the queue holds is never played slower for).
            let top = item.latencySteering.latency + LiveLatencySteering.band
            change = item.latencySteering.observe(buffered: queueFull ? Swift.max(seen, top) : seen, atHost: now)
        } else {
            change = item.latencySteering.restart()
        }
        guard let pace = change else { return }
        let soundLeads = audio != nil && item.pipeline.hasAudio
        item.pipeline.setAudioCompensation(ppm: soundLeads ? pace.soundCompensationPPM : 0)
        time.setLiveRateFactor(soundLeads ? .one : pace.clockFactor)
        let steering = item.latencySteering
        let floor = steering.floor.map { String(format: "%.2f s", $0.seconds) } ?? "nothing"
        let band = String(format: "%.2f-%.2f s", steering.latency.seconds, (steering.latency + LiveLatencySteering.band).seconds)
        let how = soundLeads ? "its sound resampled" : "the clock"
        switch pace {
        case .faster: logger.notice("\(item.entry.title): live: \(floor) buffered at least, over its latency's \(band): playing 1 % faster (\(how))")
        case .slower: logger.notice("\(item.entry.title): live: \(floor) buffered at least, under its latency's \(band): playing 1 % slower (\(how))")
        case .normal where steering.floor == nil:
            logger.notice("\(item.entry.title): live: at normal speed again until its buffer is measured anew")
        case .normal: logger.notice("\(item.entry.title): live: \(floor) buffered at least: at normal speed again")
        }
    }

    /// A live item plays at rate 1 (`LiveSource.refusal`): a `rate 2` said while a file played
    /// (the player's rate and default rate, as AVPlayer's) carried into it and drained its
    /// buffer. Both are 1 while it plays, with one line; pausing stays allowed.
    private func playAtRateOne(_ item: ActiveItem) {
        let state = time.state
        guard state.defaultRate != .one || (state.rate.numerator != 0 && state.rate != .one) else { return }
        let was = state.rate.numerator != 0 ? state.rate : state.defaultRate
        logger.notice("\(item.entry.title): live: played at rate 1 (the player's rate is \(String(format: "%g", was.doubleValue)))")
        rateBeforeLive = state.defaultRate
        time.apply(.setSpeed(.one))
    }

    /// The first file after a live item plays at the rate the live item set aside, unless a rate
    /// was said since (kiosk.conf's `playback.rate: 1.5` was lost for good at the first stream).
    private func giveRateBack() {
        guard let rate = rateBeforeLive else { return }
        rateBeforeLive = nil
        if time.state.defaultRate == .one { time.apply(.setSpeed(rate)) }
    }
}
