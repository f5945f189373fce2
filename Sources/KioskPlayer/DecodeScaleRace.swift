import Foundation
import KioskCore
import KioskDisplay
import KioskMedia

/// `kiosk bench`'s race: decode and scale every frame of a file as fast as possible, split
/// across threads the way the player splits them (DESIGN.md, "The path of a frame"): a decode
/// thread fills a short queue of decoded frames, the calling thread, like the presenter, takes
/// them, scales them into the display's back buffer and flips. Run serially, FFmpeg's frame
/// threads sat idle while each frame was scaled; with the hand-over both run at once.
public enum DecodeScaleRace {
    public struct Result: Sendable {
        public var frames: Int
        /// From before opening the file to the last flip.
        public var seconds: Double
        public var firstFrameSeconds: Double?
        public var damagedPackets: Int
    }

    /// Decoded frames waiting for the scaler: enough to keep the decoder busy while a frame is
    /// scaled. Each is a 3 MB picture at 1080p (peak RSS +3 MB from one to two); a deeper queue
    /// was not clearly faster in the noisy runs of BENCHMARKS.md.
    public static let queuedFrames = 2

    private enum Message {
        case frame(DecodedFrame)
        case end
        case failed(any Error)
    }

    /// Opens `media`, then decodes and draws up to `limit` frames (all when nil) onto `display`.
    public static func run(media: String, display: HeadlessDisplay, gravity: VideoGravity, threads: Int,
                           limit: Int?) throws -> Result {
        let start = HeadlessDisplay.monotonicSeconds()
        let reader = try VideoFrameReader(asset: try Asset(source: media), threads: threads)
        let queue = BoundedQueue<Message>(capacity: queuedFrames)
        let decodeStopped = DispatchSemaphore(value: 0)
        let handOver = HandOver(value: reader)
        let decodeThread = Thread {
            defer { decodeStopped.signal() }
            do {
                // push is false once the consumer closed the queue (enough frames, or it failed).
                while let frame = try handOver.value.nextFrame() {
                    guard queue.push(.frame(frame)) else { return }
                }
                queue.push(.end)
            } catch {
                queue.push(.failed(error))
            }
        }
        decodeThread.name = "kiosk-decode"
        decodeThread.start()

        var count = 0
        var firstFrameSeconds: Double?
        let drawn = Swift.Result<Void, any Error> {
            let scaler = Scaler()
            while limit.map({ count < $0 }) ?? true, let message = queue.pop() {
                let frame: DecodedFrame
                switch message {
                case .frame(let decodedFrame): frame = decodedFrame
                case .end: return
                case .failed(let error): throw error
                }
                let buffer = try display.backBuffer()
                // Cheap arithmetic; per frame because a stream may change size midway.
                let layout = Scaler.layout(for: frame, on: display.size, gravity: gravity)
                try scaler.draw(frame, layout: layout, into: buffer)
                _ = try display.present(buffer)
                count += 1
                if firstFrameSeconds == nil { firstFrameSeconds = HeadlessDisplay.monotonicSeconds() - start }
            }
        }
        let seconds = HeadlessDisplay.monotonicSeconds() - start
        // The decode thread uses the reader until it stops: wait for it before anything else.
        queue.close()
        decodeStopped.wait()
        try drawn.get()
        return Result(frames: count, seconds: seconds, firstFrameSeconds: firstFrameSeconds,
                      damagedPackets: reader.damagedPackets)
    }
}
