import Foundation
import KioskCore
import KioskMedia
import KioskPicture
import KioskText

extension ItemPipeline {
    /// A still that FFmpeg does not decode: a HEIF file (`HeifStill`, libheif) or a text card
    /// kiosk draws (`TextCardPicture`). No packets and no decode thread: `make` gives the one
    /// picture here. It is handed out with the item's end, and again after each seek (a looped
    /// or scrubbed still), each time as a new reference to the same pixels (no copy), since
    /// the presenter restamps the frames it takes. A failure is the item's one `.failed` line,
    /// as FFmpeg's are.
    func runStill(_ make: () throws -> DecodedFrame, info: (DecodedFrame) -> MediaInfo) {
        audio.close()
        let still: DecodedFrame
        do {
            still = try make()
        } catch {
            frames.push(.failed(error as? MediaError ?? MediaError(source: plan.source, reason: "\(error)")))
            return
        }
        lock.withLock { openedInfo = info(still) }
        // A HEIF file routed here by its name but played as a video (no still duration) shows
        // for a frame's time, as FFmpeg's one-frame files do.
        let length = plan.stillDuration ?? MediaTime(value: 1, timescale: 25)
        var generation: Int? = currentGeneration
        while let current = generation {
            guard let frame = still.newReference() else {
                frames.push(.failed(MediaError(source: plan.source, reason: "out of memory for a frame")))
                return
            }
            guard frames.push(.frame(frame, generation: current)), frames.push(.end(length: length, generation: current)) else { return }
            // Parked like the demux thread at a file's end: only a seek or the close wakes it.
            generation = lock.withLock {
                while pendingSeek == nil && !closing { lock.wait() }
                defer { pendingSeek = nil }
                return closing ? nil : pendingSeek?.generation
            }
        }
    }
}

/// A text card's picture (`TextCard`, #35), drawn at the screen's size (1280x720 before a
/// screen is known) with the layers' font, so that the scaler has nothing to scale. A screen
/// past a frame's limit (a video wall's span of five 1080p screens is 9600 px wide) gets the
/// largest card of its shape within it, which the scaler enlarges.
enum TextCardPicture {
    static let sizeWithoutScreen = PixelSize(width: 1280, height: 720)

    static func size(for screen: PixelSize?) -> PixelSize {
        let screen = screen ?? sizeWithoutScreen
        let limit = Asset.maximumPictureSize
        let scale = min(1, Double(limit.width) / Double(max(1, screen.width)), Double(limit.height) / Double(max(1, screen.height)))
        return PixelSize(width: max(1, Int(Double(screen.width) * scale)), height: max(1, Int(Double(screen.height) * scale)))
    }

    static func draw(_ card: TextCard, plan: ItemPlan) throws -> DecodedFrame {
        let fonts: FontStack
        do {
            fonts = try FontLocator.open(plan.font)
        } catch {
            throw MediaError(source: plan.source, reason: "cannot draw the card: \(error)")
        }
        return try DecodedFrame.painted(size: size(for: plan.cardScreen), source: plan.source) { buffer in
            TextCardPainter.paint(text: card.text, color: card.color, background: card.background, size: card.size,
                                  into: buffer, rasterizer: fonts)
        }
    }
}
