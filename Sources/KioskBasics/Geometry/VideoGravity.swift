/// How a video fills its screen, as AVPlayerLayer's `videoGravity`.
public enum VideoGravity: String, Sendable, CaseIterable, Codable {
    /// resizeAspect: whole picture visible, aspect kept, black bars where the shapes differ.
    case fit
    /// resizeAspectFill: the screen filled, aspect kept, the picture's overflow cropped.
    case fill
    /// resize: the picture stretched to the screen, aspect ignored.
    case stretch

    public static let resizeAspect = VideoGravity.fit
    public static let resizeAspectFill = VideoGravity.fill
    public static let resize = VideoGravity.stretch

    /// Accepts kiosk's names and AVFoundation's (`resizeAspect`, `resizeAspectFill`, `resize`).
    public init?(name: String) {
        switch name.lowercased() {
        case "fit", "resizeaspect", "aspect-fit", "aspectfit": self = .fit
        case "fill", "resizeaspectfill", "aspect-fill", "aspectfill": self = .fill
        case "stretch", "resize": self = .stretch
        default: return nil
        }
    }
}

/// What the scaler does with one frame: take `sourceCrop` of the decoded picture (coded pixels,
/// before rotation), rotate it by `rotation`, scale it into `destination` on the screen; the
/// rest of the screen is black.
public struct GravityLayout: Sendable, Hashable, CustomStringConvertible {
    public var sourceCrop: PixelRect
    public var rotation: Rotation
    public var destination: PixelRect
    public var target: PixelSize

    public var description: String {
        "crop \(sourceCrop) rotate \(rotation.degrees) -> \(destination) on \(target)"
    }

    /// The layout of a `source` picture (coded size, sample aspect ratio `sampleAspect`, to be
    /// turned by `rotation` for display) on a `target` screen with `gravity`. Results are whole
    /// pixels, centered; a remainder of one pixel goes right/bottom.
    public init(source: PixelSize, sampleAspect: Rational = .one, rotation: Rotation = .none,
                target: PixelSize, gravity: VideoGravity) {
        precondition(!source.isEmpty && !target.isEmpty, "empty source or target")
        self.rotation = rotation
        self.target = target
        let sar = sampleAspect.isKnownAndPositive ? sampleAspect.doubleValue : 1
        // The picture as displayed: coded pixels stretched by the SAR, then rotated.
        let rotated = rotation.swapsAxes ? source.transposed : source
        let pixelWidth = rotation.swapsAxes ? 1.0 : sar   // display width of one rotated pixel
        let pixelHeight = rotation.swapsAxes ? sar : 1.0
        let shownWidth = Double(rotated.width) * pixelWidth
        let shownHeight = Double(rotated.height) * pixelHeight
        let tw = Double(target.width), th = Double(target.height)

        var cropRotated = PixelRect(size: rotated)
        switch gravity {
        case .stretch:
            destination = PixelRect(size: target)
        case .fit:
            let scale = Swift.min(tw / shownWidth, th / shownHeight)
            let w = Swift.min(target.width, Swift.max(1, Int((shownWidth * scale).rounded())))
            let h = Swift.min(target.height, Swift.max(1, Int((shownHeight * scale).rounded())))
            destination = PixelRect(x: (target.width - w) / 2, y: (target.height - h) / 2, width: w, height: h)
        case .fill:
            let scale = Swift.max(tw / shownWidth, th / shownHeight)
            let w = Swift.min(rotated.width, Swift.max(1, Int((tw / scale / pixelWidth).rounded())))
            let h = Swift.min(rotated.height, Swift.max(1, Int((th / scale / pixelHeight).rounded())))
            cropRotated = PixelRect(x: (rotated.width - w) / 2, y: (rotated.height - h) / 2, width: w, height: h)
            destination = PixelRect(size: target)
        }
        // Back from the rotated picture to coded pixels, where the decoder's planes are.
        sourceCrop = rotation.inverse.map(cropRotated, in: rotated)
    }
}
