extension PixelBuffer {
    /// Copies `source`, the same size, row by row (either stride may be padded).
    public func copyPixels(from source: PixelBuffer) {
        precondition(source.size == size, "a copy between buffers of different sizes")
        for row in 0..<size.height {
            (base + row * stride).copyMemory(from: source.base + row * source.stride, byteCount: size.width * format.bytesPerPixel)
        }
    }

    /// Draws `rect` of `source` into this buffer as `layout` says (the rect's size is the
    /// layout's source): scaled to its destination, nearest pixel, turned by its rotation; the
    /// rest of this buffer turns black. An unscaled, unturned rect is copied row by row, the
    /// usual case of a span and of a mirror on equal screens.
    public func draw(_ rect: PixelRect, of source: PixelBuffer, as layout: GravityLayout) {
        let destination = layout.destination
        clear(outside: destination)
        guard destination.width > 0, destination.height > 0, rect.width > 0, rect.height > 0 else { return }
        if layout.rotation == .none, destination.size == rect.size {
            for row in 0..<rect.height {
                (base + (destination.y + row) * stride + destination.x * 4)
                    .copyMemory(from: source.base + (rect.y + row) * source.stride + rect.x * 4, byteCount: rect.width * 4)
            }
            return
        }
        // The upright picture is rect's size turned; each destination pixel samples the source
        // pixel under its centre, found by turning back.
        let upright = layout.rotation.swapsAxes ? rect.size.transposed : rect.size
        for dy in 0..<destination.height {
            let row = (base + (destination.y + dy) * stride + destination.x * 4).assumingMemoryBound(to: UInt32.self)
            let uy = (2 * dy + 1) * upright.height / (2 * destination.height)
            for dx in 0..<destination.width {
                let ux = (2 * dx + 1) * upright.width / (2 * destination.width)
                let (sx, sy): (Int, Int)
                switch layout.rotation {
                case .none: (sx, sy) = (ux, uy)
                case .clockwise90: (sx, sy) = (uy, rect.height - 1 - ux)
                case .clockwise180: (sx, sy) = (rect.width - 1 - ux, rect.height - 1 - uy)
                case .clockwise270: (sx, sy) = (rect.width - 1 - uy, ux)
                }
                row[dx] = source.pixel(x: rect.x + sx, y: rect.y + sy)
            }
        }
    }
}
