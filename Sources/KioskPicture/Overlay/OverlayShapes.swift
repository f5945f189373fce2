import Foundation

/// The overlay's pictures that are not text, drawn procedurally (no image files to ship): the
/// play triangle, the pause bars and the buffering spinner, as anti-aliased masks.
public enum OverlayShapes {
    /// A right-pointing triangle filling the middle of a `side`-square.
    public static func play(side: Int) -> AlphaMask {
        let s = Double(side)
        // Vertices: the triangle's centroid sits at the square's center, as the eye expects.
        let (left, top, bottom, tip) = (s * 0.25, s * 0.15, s * 0.85, s * 0.85)
        return coverage(side: side) { x, y in
            guard x >= left, y >= top, y <= bottom else { return false }
            let halfHeight = (bottom - top) / 2
            let reach = (tip - left) * (1 - abs(y - s / 2) / halfHeight)
            return x <= left + reach
        }
    }

    /// Two upright bars.
    public static func pause(side: Int) -> AlphaMask {
        let s = Double(side)
        return coverage(side: side) { x, y in
            guard y >= s * 0.18, y <= s * 0.82 else { return false }
            return (x >= s * 0.24 && x <= s * 0.42) || (x >= s * 0.58 && x <= s * 0.76)
        }
    }

    /// A ring of `dots` dots, the one at `phase` (0 = top, clockwise) the brightest, the others
    /// fading behind it: the spinner turns as `phase` counts up.
    public static func spinner(side: Int, phase: Int, dots: Int = 8) -> AlphaMask {
        let s = Double(side)
        let ring = s * 0.36, radius = s * 0.09
        var mask = AlphaMask(width: side, height: side)
        for dot in 0..<dots {
            let angle = Double(dot) / Double(dots) * 2 * Double.pi
            let cx = s / 2 + ring * sin(angle), cy = s / 2 - ring * cos(angle)
            let age = ((phase - dot) % dots + dots) % dots   // 0: the leading dot
            let strength = 1 - Double(age) / Double(dots) * 0.85
            // Only the dot's own square is sampled: a whole-mask pass per dot is 8x the work.
            let x0 = Swift.max(0, Int(cx - radius) - 1), x1 = Swift.min(side, Int(cx + radius) + 2)
            let y0 = Swift.max(0, Int(cy - radius) - 1), y1 = Swift.min(side, Int(cy + radius) + 2)
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let value = UInt8(Double(samples(x, y) { px, py in
                        (px - cx) * (px - cx) + (py - cy) * (py - cy) <= radius * radius
                    }) * 255 / 16 * strength)
                    mask[x, y] = Swift.max(mask[x, y], value)
                }
            }
        }
        return mask
    }

    /// A filled circle: the dark backdrop behind the glyph.
    public static func disc(side: Int) -> AlphaMask {
        let r = Double(side) / 2
        return coverage(side: side) { x, y in (x - r) * (x - r) + (y - r) * (y - r) <= r * r }
    }

    /// Coverage of `inside` sampled 4x4 per pixel: edges come out smooth.
    static func coverage(side: Int, _ inside: (Double, Double) -> Bool) -> AlphaMask {
        var mask = AlphaMask(width: side, height: side)
        for y in 0..<side {
            for x in 0..<side { mask[x, y] = UInt8(samples(x, y, inside) * 255 / 16) }
        }
        return mask
    }

    /// How many of the pixel's 4x4 sample points are inside.
    private static func samples(_ x: Int, _ y: Int, _ inside: (Double, Double) -> Bool) -> Int {
        var hits = 0
        for sy in 0..<4 {
            for sx in 0..<4 where inside(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4) {
                hits += 1
            }
        }
        return hits
    }
}
