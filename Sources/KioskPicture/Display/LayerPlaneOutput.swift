/// The layers' plane (issue 32): kiosk.conf `layers` (a ticker, a clock, a logo, text) drawn
/// into an ARGB8888 plane above the video plane, so a video frame on the YUV plane is never
/// converted for them and a ticker's refresh redraws only its strip. A capability next to
/// `DirectVideoOutput`: where the display has no second plane (or refuses the pair) the CPU
/// path draws the layers into the picture, as before.

/// What a display says about a layers' plane over the video plane.
public enum LayerPlaneAnswer: Sendable, Hashable {
    /// Tested (TEST_ONLY) with the video plane: frames and layers may be committed together.
    case ready(planeID: UInt32)
    /// No plane fits or the driver refused the pair: the layers go into the CPU picture.
    case unavailable(reason: String)
}

/// What a video frame's commit does with the layers' plane.
public enum LayerPlaneChange: @unchecked Sendable {
    /// It keeps showing what it shows (the layers did not change).
    case keep
    /// It shows this buffer (from `layerBuffer()`, drawn).
    case show(PixelBuffer)
    /// It is switched off (no layers, or they went back to the CPU picture).
    case hide
}

public protocol LayerPlaneOutput: DirectVideoOutput {
    /// Whether an ARGB plane can be shown over the video plane as `scanout` puts it; asked again
    /// only when the video's scanout changes. May allocate the plane's buffers.
    func prepareLayerPlane(over scanout: PlaneScanout) -> LayerPlaneAnswer
    /// A premultiplied ARGB8888 buffer of the screen's size (`size`, the buffers' orientation)
    /// that is not on screen, to draw the layers into. Its contents are what was drawn into it
    /// last (the presenter tracks which, by `index`).
    func layerBuffer() throws -> PixelBuffer
    /// `presentDirect`, the layers' plane changed as `layers` says in the same commit. Returns
    /// once the flip is done, with its CLOCK_MONOTONIC time.
    func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double
    /// Only the layers change (a ticker's refresh between two video frames): one commit of the
    /// layers' plane, the video plane's frame staying.
    func presentLayers(_ layers: PixelBuffer) throws -> Double
}

extension PlaneSelection {
    /// The plane for the layers over the video plane `videoPlaneID`: an overlay that takes
    /// ARGB8888 on the CRTC, neither the primary nor the video plane. Without a zpos property
    /// drivers stack planes in the order they were made (vkms, most SoCs' default zpos follows
    /// the plane ids), so only a plane after the video plane is taken: one below it would hide
    /// behind the video.
    public static func chooseLayerPlane(videoPlaneID: UInt32, primaryPlaneID: UInt32?, crtcIndex: Int,
                                        planes: [DisplayPlaneInfo]) -> LayerPlaneAnswer {
        let free = planes.filter {
            $0.type == .overlay && $0.id != videoPlaneID && $0.id != primaryPlaneID && $0.canDrive(crtcIndex: crtcIndex)
        }
        let argb = free.filter { $0.formats.contains(.argb8888) }
        if let above = argb.filter({ $0.id > videoPlaneID }).min(by: { $0.id < $1.id }) {
            return .ready(planeID: above.id)
        }
        if free.isEmpty { return .unavailable(reason: "no overlay plane beside the video plane \(videoPlaneID)") }
        if argb.isEmpty { return .unavailable(reason: "no overlay plane beside the video plane takes AR24") }
        return .unavailable(reason: "the AR24 planes (\(argb.map { String($0.id) }.joined(separator: ", "))) stack below the video plane \(videoPlaneID)")
    }
}

extension PixelBuffer {
    /// Lays `layer` (premultiplied ARGB, this buffer's size) over this XRGB picture as a display
    /// composes a layers' plane over the video: a screenshot composed from kiosk's own buffers.
    public func composite(_ layer: PixelBuffer) {
        precondition(layer.size == size, "a layers' plane covers the screen")
        for y in 0..<size.height {
            let source = (layer.base + y * layer.stride).assumingMemoryBound(to: UInt32.self)
            let target = (base + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<size.width {
                let pixel = source[x]
                let alpha = pixel >> 24
                if alpha == 0 { continue }
                if alpha == 255 { target[x] = pixel & 0x00FF_FFFF; continue }
                // Premultiplied: the layer's colour plus what shows through it.
                let mixed = Self.blend(target[x], 0, 255 - alpha, 0)
                target[x] = mixed &+ (pixel & 0x00FF_FFFF)
            }
        }
    }
}
