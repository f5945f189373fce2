import CFFmpeg
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// A decoded frame larger than its screen needs is scaled down on the decode thread before it is
/// queued (issue 33, `DecodeShrink`, `FrameShrinker`): the same frames come out at the covering
/// size, as 8-bit 4:2:0 whatever the source's depth, with their timestamps, pixel aspect and
/// range kept, and the picture on screen is the one the full-size frame would have made.
@Suite struct FrameShrinkTests {
    static func clip(_ name: String, pixelFormat: String, extra: [String] = [], source: String = "testsrc2") throws -> String {
        try MediaFixtures.clip(name, ["-f", "lavfi", "-i", "\(source)=size=1280x720:rate=25:duration=0.4",
                                      "-vf", "setsar=4/3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", pixelFormat] + extra)
    }

    static func decode(_ path: String, covering screens: [PixelSize]) throws -> [DecodedFrame] {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream))
        decoder.shrinkCovering = screens
        return decoder.decodeEveryFrame(from: demuxer)
    }

    /// `frame` drawn fitted on `screen` (the presenter's path), as bytes.
    static func drawn(_ frame: DecodedFrame, on screen: PixelSize) throws -> [UInt8] {
        let stride = screen.width * 4
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * screen.height, alignment: 64)
        defer { memory.deallocate() }
        let buffer = PixelBuffer(base: memory, size: screen, stride: stride, index: 0)
        try Scaler().draw(frame, layout: Scaler.layout(for: frame, on: screen, gravity: .fit), into: buffer)
        return Array(UnsafeRawBufferPointer(start: memory, count: stride * screen.height))
    }

    @Test func aLargeFrameIsQueuedAtTheSizeItsScreenNeedsWithItsTimesAndShape() throws {
        let path = try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p")
        let screen = PixelSize(width: 480, height: 270)
        let full = try Self.decode(path, covering: [])
        let small = try Self.decode(path, covering: [screen])
        #expect(full.count == 10 && small.count == 10)
        #expect(small.map(\.pts) == full.map(\.pts))
        #expect(full.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) })
        // 4:3 pixels: 1280 stored columns show as 1707 across, so fill on 480x270 keeps
        // 270/720 of the height and 4/3 of that across.
        let expected = try #require(DecodeShrink.size(of: PixelSize(width: 1280, height: 720), sampleAspect: Rational(4, 3),
                                                      quarterTurned: false, covering: [screen]))
        #expect(expected == PixelSize(width: 640, height: 360))
        #expect(small.allSatisfy { $0.size == expected && $0.sampleAspect == Rational(4, 3) })
        #expect(small.allSatisfy { $0.pixelFormatName == "yuv420p" })
        // On screen: the same picture within a level or two (two bilinear steps against one),
        // the same colours too: the untagged 720p frame keeps BT.709 at 640x360 (an untagged
        // frame's matrix is guessed by its size; before the tag, green was 20-40 levels off).
        for (a, b) in zip(full, small).prefix(3) {
            let x = try Self.drawn(a, on: screen), y = try Self.drawn(b, on: screen)
            let mean = Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
            #expect(mean < 2.5, "mean difference \(mean) levels at \(a.pts)")
        }
    }

    @Test func aTenBitFullRangeFrameBecomesEightBitWithItsRangeKept() throws {
        // SMPTE bars: wide flat black and white patches, which survive the downscale.
        let path = try Self.clip("shrink-720p-10bit-pc-bars.mp4", pixelFormat: "yuv420p10le", extra: ["-color_range", "pc"],
                                 source: "smptehdbars")
        let small = try Self.decode(path, covering: [PixelSize(width: 320, height: 180)])
        let full = try Self.decode(path, covering: [])
        let frame = try #require(small.first), source = try #require(full.first)
        #expect(source.pixelFormatName == "yuv420p10le" && frame.pixelFormatName == "yuv420p")
        #expect(frame.frame.pointee.color_range == AVCOL_RANGE_JPEG && source.frame.pointee.color_range == AVCOL_RANGE_JPEG)
        // The luma keeps its range: the 8-bit mean is the 10-bit mean over 4 (no range squeeze,
        // which would pull it toward 16-235).
        func meanLuma(_ f: DecodedFrame, bytes: Int) -> Double {
            let avFrame = f.frame.pointee
            var total = 0.0
            for y in 0..<Int(avFrame.height) {
                let row = avFrame.data.0! + y * Int(avFrame.linesize.0)
                for x in 0..<Int(avFrame.width) {
                    total += bytes == 2 ? Double(UnsafeRawPointer(row + 2 * x).loadUnaligned(as: UInt16.self)) : Double(row[x])
                }
            }
            return total / Double(Int(avFrame.width) * Int(avFrame.height))
        }
        let eight = meanLuma(frame, bytes: 1), ten = meanLuma(source, bytes: 2) / 4
        #expect(abs(eight - ten) < 1.5, "8-bit mean \(eight), 10-bit mean / 4 \(ten)")
        // And its ends: black and white stay where the 10-bit ones are (a squeeze to 16-235
        // would move them by 16 and 20).
        let (low8, high8) = lumaRange(frame, bytes: 1), (low10, high10) = lumaRange(source, bytes: 2)
        #expect(abs(Double(low8) - Double(low10) / 4) < 4 && abs(Double(high8) - Double(high10) / 4) < 4,
                "8-bit \(low8)-\(high8), 10-bit \(low10)-\(high10)")
    }

    /// The darkest and brightest luma of `frame`'s middle row band (8 or 16 bits a sample).
    func lumaRange(_ f: DecodedFrame, bytes: Int) -> (Int, Int) {
        let avFrame = f.frame.pointee
        var low = Int.max, high = Int.min
        for y in 0..<Int(avFrame.height) {
            let row = avFrame.data.0! + y * Int(avFrame.linesize.0)
            for x in 0..<Int(avFrame.width) {
                let value = bytes == 2 ? Int(UnsafeRawPointer(row + 2 * x).loadUnaligned(as: UInt16.self)) : Int(row[x])
                low = min(low, value)
                high = max(high, value)
            }
        }
        return (low, high)
    }

    /// The formats hardware decoders hand down (no file decodes to them here, so the first
    /// frame is converted): NV12 stays NV12 (a video plane that takes it keeps taking it), P010
    /// becomes NV12.
    @Test(arguments: [AV_PIX_FMT_NV12, AV_PIX_FMT_P010LE])
    func semiPlanarFramesShrinkToNV12(format: AVPixelFormat) throws {
        let decoded = try #require(try Self.decode(try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p"), covering: []).first)
        var converted = av_frame_alloc()
        defer { av_frame_free(&converted) }
        let frame = try #require(converted)
        frame.pointee.width = 1280
        frame.pointee.height = 720
        frame.pointee.format = format.rawValue
        #expect(av_frame_get_buffer(frame, 0) >= 0)
        let converter = sws_getContext(1280, 720, AV_PIX_FMT_YUV420P, 1280, 720, format, SWS_POINT, nil, nil, nil)
        defer { sws_freeContext(converter) }
        #expect(sws_scale_frame(converter, frame, decoded.frame) >= 0)
        var shrunk = FrameShrinker(threads: 1).shrink(frame, to: PixelSize(width: 480, height: 270), sampleAspect: .one)
        defer { av_frame_free(&shrunk) }
        let result = try #require(shrunk)
        #expect(result.pointee.width == 480 && result.pointee.height == 270)
        #expect(result.pointee.format == AV_PIX_FMT_NV12.rawValue)
    }

    @Test func sidesRoundedToEvenKeepThePicturesShapeThroughItsPixelAspect() throws {
        // 1280x720 with 4:3 pixels for 342x192: fill keeps 0.356 of each side, 455.1 x 256,
        // rounded up to 456 x 256. The pixel aspect takes back the 0.2% wider shape, so the
        // layout is the full frame's.
        let path = try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p")
        let screen = PixelSize(width: 342, height: 192)
        let full = try #require(try Self.decode(path, covering: []).first)
        let small = try #require(try Self.decode(path, covering: [screen]).first)
        #expect(small.size == PixelSize(width: 456, height: 256))
        let shape = { (f: DecodedFrame) in Double(f.size.width) * f.sampleAspect.doubleValue / Double(f.size.height) }
        #expect(abs(shape(small) - shape(full)) < 1e-9, "\(small.size) \(small.sampleAspect) against \(full.size) \(full.sampleAspect)")
        #expect(Scaler.layout(for: small, on: screen, gravity: .fit).destination == Scaler.layout(for: full, on: screen, gravity: .fit).destination)
    }

    @Test func anEightBitFrameShrinksFromHalfATenBitOneFromFourFifths() throws {
        // 720p (4:3 pixels) on 720x405: fill keeps 0.75 of each side. The 8-bit frame goes to
        // the presenter's SIMD path as it is; the 10-bit one is shrunk and made 8-bit.
        let screen = PixelSize(width: 720, height: 405)
        let eight = try Self.decode(try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p"), covering: [screen])
        let ten = try Self.decode(try Self.clip("shrink-720p-10bit-pc.mp4", pixelFormat: "yuv420p10le",
                                                extra: ["-color_range", "pc"]), covering: [screen])
        #expect(eight.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) && $0.pixelFormatName == "yuv420p" })
        #expect(ten.allSatisfy { $0.size == PixelSize(width: 960, height: 540) && $0.pixelFormatName == "yuv420p" })
    }

    @Test func aFrameNoLargerThanItsScreenIsQueuedAsDecoded() throws {
        let path = try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p")
        let frames = try Self.decode(path, covering: [PixelSize(width: 1280, height: 720)])
        #expect(frames.count == 10 && frames.allSatisfy { $0.size == PixelSize(width: 1280, height: 720) })
    }

    /// The shrunk pictures come from a pool: a block the presenter let go is the next frame's
    /// (one allocation a frame was an mmap and its page faults each, 30 times a second at 4K,
    /// once `FrameHeap` gave large blocks their own mappings); a block still held is not.
    @Test func shrunkFramesReuseTheBlocksLetGo() throws {
        let decoded = try #require(try Self.decode(try Self.clip("shrink-720p.mp4", pixelFormat: "yuv420p"), covering: []).first)
        let shrinker = FrameShrinker(threads: 1)
        let target = PixelSize(width: 480, height: 270)
        func shrinkOnce() throws -> UnsafeMutablePointer<AVFrame> {
            try #require(shrinker.shrink(decoded.frame, to: target, sampleAspect: .one))
        }
        var first: UnsafeMutablePointer<AVFrame>? = try shrinkOnce()
        let firstBlock = first!.pointee.data.0
        var held: UnsafeMutablePointer<AVFrame>? = try shrinkOnce()
        let heldBlock = held!.pointee.data.0
        #expect(heldBlock != firstBlock)
        av_frame_free(&first)
        var again: UnsafeMutablePointer<AVFrame>? = try shrinkOnce()
        let againBlock = again!.pointee.data.0
        #expect(againBlock == firstBlock)
        // Laid out as av_frame_get_buffer lays a picture out: rows aligned for SIMD, the
        // chroma planes after the luma in the one block (the tests above draw pooled frames).
        let frame = again!.pointee
        #expect(frame.linesize.0 % 64 == 0 && frame.linesize.1 % 32 == 0 && frame.width == 480 && frame.height == 270)
        #expect(frame.buf.0 != nil && frame.buf.1 == nil)
        let lumaEnd = frame.data.0! + Int(frame.linesize.0) * 270
        #expect(frame.data.1! >= lumaEnd && frame.data.2! > frame.data.1!)
        av_frame_free(&again)
        av_frame_free(&held)
    }
}
