import KioskCore
import KioskFetch

/// The presenter's layers from outside the frame loop: a reload's new list, `kiosk ctl layer`,
/// an override's hiding. Each change has the still layers composed again and the layer plane
/// redrawn at the next flip.
extension FramePresenter {
    /// New layers (a live reload of kiosk.conf); an empty list turns them off.
    func configureLayers(_ configs: [LayerConfig], font: OverlayConfig.Font) {
        layers?.stop()
        layers = LayerState.make(configs, font: font, feedFetch: SmallHTTPGet.feed, logger: logger)
        layers?.keptDuringOverride = keptDuringOverride
        layersChanged()
        if layers?.moves == true { composed.prepare(size: output.size) }
    }

    /// `kiosk ctl layer`: nil when done, else why not (no such layer, no text to change).
    func changeLayer(_ name: String, _ change: LayerChange) -> String? {
        guard let layers else { return "kiosk.conf has no layers" }
        let refusal = layers.change(name, change)
        if refusal == nil { layersChanged() }
        return refusal
    }

    /// An override's first item begins (the layers it keeps), or the loop's comes back (nil):
    /// the layers it does not keep leave the screen with the playlist and come back with it.
    func keepLayersDuringOverride(_ names: Set<String>?) {
        guard names != keptDuringOverride else { return }
        keptDuringOverride = names
        guard let layers else { return }
        layers.keptDuringOverride = names
        layersChanged()
    }

    /// A ticker placed for `flip` whose drawing ran past it reaches a later flip: placed again
    /// for that one (its strips brought back from the composed picture, the line drawn at the
    /// later flip's position), so that it goes up where that flip wants it. Without this a
    /// frame's draw slowed two refreshes (CI's host under other load, the first frames of a
    /// run) put the ticker up two steps behind, and the next flip jumped them. Returns the flip
    /// the ticker is now placed for. Only the ticker: the frame under it is the one the pacer
    /// chose, late.
    func placeTickerAgainIfLate(_ layers: LayerState, in back: PixelBuffer, placedFor flip: Double,
                                shown: inout PresentedFrame) -> Double {
        // A mirror or span: its expected flip is the latest of screens whose vblanks are not in
        // step, which would read as late for a flip the first screen still makes (not held
        // either: FramePresenter+Moment.swift).
        guard !output.presentDrawsFirst else { return flip }
        let refresh = output.refreshInterval.seconds
        // Late only if the flip asked now is already past the one it was placed for; a draw
        // that may still make its flip keeps it. Placed again, it reaches the flip after a
        // strip's drawing (`refreshDrawSeconds`; at least a quarter refresh before any refresh
        // was timed: video at the refresh rate draws none).
        let now = MonotonicClock().now()
        guard output.expectedFlip(after: now) > flip + refresh / 2 else { return flip }
        let reaches = output.expectedFlip(after: now + max(refreshDrawSeconds, refresh / 4))
        placeTicker(layers, in: back, for: reaches, shown: &shown)
        return reaches
    }

    /// The moving layers' strips brought back from the composed picture into `back`, and the
    /// moving layers drawn over them for a flip at `flip` (a refresh between frames, or a
    /// ticker placed again).
    func placeTicker(_ layers: LayerState, in back: PixelBuffer, for flip: Double, shown: inout PresentedFrame) {
        let rotation = output.softwareRotation
        composed.bring(into: back, strips: layers.movingStrips(bufferSize: back.size, rotation: rotation))
        shown.ticker = layers.drawMoving(into: back, rotation: rotation, flipTime: flip,
                                         refreshInterval: output.refreshInterval.seconds)
    }

    /// The still layers are composed again, and the layer plane drawn again, at the next flip.
    private func layersChanged() {
        composed.forget()
        directVideo?.layerPlane?.invalidate()
    }
}
