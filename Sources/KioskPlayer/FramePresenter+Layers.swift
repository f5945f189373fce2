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

    /// The still layers are composed again, and the layer plane drawn again, at the next flip.
    private func layersChanged() {
        composed.forget()
        directVideo?.layerPlane?.invalidate()
    }
}
