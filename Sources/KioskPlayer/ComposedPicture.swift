import KioskCore

/// With a moving layer (a ticker) the screen changes at every refresh while the picture under
/// it changes only with each video frame. The picture and its still layers are composed once
/// per frame here, in memory, and each refresh brings them into the back buffer: whole when
/// that buffer holds an older composition (or an overlay), else only the moving layers'
/// strips; the moving layers are drawn over that. So a ticker costs a copy of its strip per
/// refresh, and a copy of the screen per video frame, never a scale (issue 22: "never
/// re-scaling the frame"). Kept in memory rather than read back from the front buffer: a
/// display's buffers are often write-combined, slow to read.
final class ComposedPicture {
    private var picture: CapturedPicture?
    /// Counts compositions; 0: none yet (or forgotten).
    private(set) var generation = 0
    /// Which composition each of the display's buffers holds (by `PixelBuffer.index`).
    private var held: [Int: Int] = [:]

    /// The memory to compose the next picture into, `size` big (ARGB for a layers' plane).
    func canvas(size: PixelSize, format: PixelFormat = .xrgb8888) -> PixelBuffer {
        if let picture, picture.buffer.size == size, picture.buffer.format == format { return picture.buffer }
        let made = CapturedPicture(size: size, format: format)
        picture = made
        held.removeAll()
        return made.buffer
    }

    /// The picture alone, without the still layers: a transition mixes it at each flip and
    /// draws the layers over the mix (they do not fade).
    private(set) var isBare = false

    /// Makes the canvas ahead of its first use (a transition about to begin), its memory touched,
    /// so the first mixed flip does not pay for 8 MB of page faults at 1080p and come late.
    func prepare(size: PixelSize) {
        guard picture?.buffer.size != size else { return }
        let buffer = canvas(size: size)
        buffer.fill(PixelRect(size: size))
        forget()
    }

    /// The canvas holds a new picture; `bare`: without the still layers.
    func composed(bare: Bool = false) {
        generation += 1
        isBare = bare
    }

    /// The composed picture, if any.
    var buffer: PixelBuffer? { hasPicture ? picture?.buffer : nil }

    /// Whether there is a picture to refresh the moving layers over.
    var hasPicture: Bool { picture != nil && generation > 0 }

    /// Nothing composed is on screen any more (filler, the idle screen): refreshes stop.
    func forget() {
        generation = 0
        held.removeAll()
    }

    /// `back` was drawn over after the composition (the overlay): it needs the whole next time.
    func spoil(_ back: PixelBuffer) { held[back.index] = nil }

    /// Brings the composition into `back`: only `strips` (buffer coordinates) when `back`
    /// holds this composition already, else the whole picture.
    func bring(into back: PixelBuffer, strips: [PixelRect]) {
        guard let source = picture?.buffer, source.size == back.size else { return }
        let rects = held[back.index] == generation ? strips : [PixelRect(size: back.size)]
        for rect in rects {
            let x0 = max(0, rect.x), x1 = min(back.size.width, rect.maxX)
            let y0 = max(0, rect.y), y1 = min(back.size.height, rect.maxY)
            guard x0 < x1, y0 < y1 else { continue }
            for row in y0..<y1 {
                (back.base + row * back.stride + x0 * 4)
                    .copyMemory(from: source.base + row * source.stride + x0 * 4, byteCount: (x1 - x0) * 4)
            }
        }
        held[back.index] = generation
    }
}
