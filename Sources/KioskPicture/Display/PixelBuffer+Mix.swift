extension PixelBuffer {
    /// Writes `picture` into this buffer as a transition's `look` says: at weight
    /// `look.incoming` over `held` (the outgoing item's last picture; black when nil), the
    /// result at brightness `look.level`. Each channel rounds to the nearest value, so a pixel
    /// is within 1/255 of the exact mix; the mix of two pictures is never darker than both.
    /// All three buffers are this one's size. A crossfade of a 1080p screen is 2 M pixels:
    /// the loop works on two channels per 32-bit word (red and blue, then green), exact.
    public func mix(_ picture: PixelBuffer, over held: PixelBuffer?, look: TransitionLook) {
        precondition(picture.size == size && (held?.size ?? size) == size, "a transition mixes pictures of the screen's size")
        let incoming = UInt32(look.incoming), outgoing = UInt32(255 - look.incoming), level = UInt32(look.level)
        let width = size.width
        for y in 0..<size.height {
            let source = (picture.base + y * picture.stride).assumingMemoryBound(to: UInt32.self)
            let target = (base + y * stride).assumingMemoryBound(to: UInt32.self)
            if let held, outgoing > 0 {
                let under = (held.base + y * held.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let mixed = Self.blend(source[x], under[x], incoming, outgoing)
                    target[x] = level == 255 ? mixed : Self.blend(mixed, 0, level, 0)
                }
            } else {
                let weight = incoming * level   // over black: both scale the picture
                for x in 0..<width {
                    target[x] = Self.blend(source[x], 0, (weight + 127) / 255, 0)
                }
            }
        }
    }

    /// a·wa + b·wb per channel (wa + wb ≤ 255), divided by 255 and rounded; the X byte is 0.
    @inline(__always)
    static func blend(_ a: UInt32, _ b: UInt32, _ wa: UInt32, _ wb: UInt32) -> UInt32 {
        let redBlue = Self.divide255((a & 0x00FF_00FF) &* wa &+ (b & 0x00FF_00FF) &* wb)
        let green = Self.divide255(((a >> 8) & 0x0000_00FF) &* wa &+ ((b >> 8) & 0x0000_00FF) &* wb)
        return redBlue | (green << 8)
    }

    /// Two 16-bit lanes (each at most 255·255), each divided by 255 and rounded: the exact
    /// (x + 128 + ((x + 128) >> 8)) >> 8.
    @inline(__always)
    private static func divide255(_ lanes: UInt32) -> UInt32 {
        let t = lanes &+ 0x0080_0080
        return ((t &+ ((t >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    }
}
