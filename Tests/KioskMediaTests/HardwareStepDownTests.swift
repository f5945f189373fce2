import CFFmpeg
import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// A device frame that cannot be copied down (a device that lost its memory, a failed
/// transfer) steps the stream down to software with one line, and the picture goes on at the
/// frame after the last one shown (`SoftwareStepDown`): before, the frame was dropped silently
/// and the next one tried on the device again. No device here: the decoder is told the software
/// format is its device's (`HardwareDecoderSetup.claiming`), so every frame "comes from the
/// device" and is copied down by the test's `download`, which fails where the test says.
@Suite struct HardwareStepDownTests {
    /// 4 s at 25 fps, keyframes at 0, 2 s and 4 s, with B-frames (decoded out of order).
    static func clip() throws -> String {
        try MediaFixtures.clip("stepdown-4s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                                                   "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "50",
                                                   "-keyint_min", "50", "-sc_threshold", "0", "-pix_fmt", "yuv420p"])
    }

    /// A sum of a frame's luma, to tell pictures apart.
    static func lumaSum(_ decoded: DecodedFrame) -> Int {
        let frame = decoded.frame
        var sum = 0
        for y in 0..<Int(frame.pointee.height) {
            let row = frame.pointee.data.0! + y * Int(frame.pointee.linesize.0)
            for x in 0..<Int(frame.pointee.width) { sum &+= Int(row[x]) &* (x + 1) }
        }
        return sum
    }

    /// A decoder of `demuxer`'s picture on the stand-in device whose copy down fails from the
    /// `failingFrom`th on, and how many copies it tried so far.
    static func standIn(_ asset: Asset, _ demuxer: Demuxer, failingFrom: Int, keptBytes: Int = SoftwareStepDown.keptBytesLimit)
        throws -> (decoder: VideoDecoder, copies: () -> Int) {
        final class Count { var value = 0 }
        let copies = Count()
        let decoder = try VideoDecoder(
            asset: asset, streamIndex: try #require(demuxer.videoStream), threads: 2, stillScreen: nil, hardware: .vaapi,
            heldFrames: 0, handOn: nil, prepare: { _, codec in HardwareDecoderSetup.claiming(AV_PIX_FMT_YUV420P, codecID: codec) },
            download: { frame, _ in
                copies.value += 1
                var source: UnsafeMutablePointer<AVFrame>? = frame
                defer { av_frame_free(&source) }
                guard copies.value <= failingFrom, let copy = av_frame_clone(frame) else { return .failure("Input/output error") }
                return .success(copy)
            },
            keptBytes: keptBytes)
        return (decoder, { copies.value })
    }

    /// Each frame of `path` decoded on the stand-in device (`standIn`); the frames, the line and
    /// how many copies were tried.
    static func decode(_ path: String, failingFrom: Int, keptBytes: Int = SoftwareStepDown.keptBytesLimit)
        throws -> (frames: [DecodedFrame], line: String?, copies: Int, decoder: VideoDecoder) {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let (decoder, copies) = try standIn(asset, demuxer, failingFrom: failingFrom, keptBytes: keptBytes)
        let frames = decoder.decodeEveryFrame(from: demuxer)
        return (frames, decoder.takeHardwareRefusal(), copies(), decoder)
    }

    static func software(_ path: String) throws -> [DecodedFrame] {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        return try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream), threads: 2).decodeEveryFrame(from: demuxer)
    }

    @Test func aFrameThatCannotBeCopiedDownStepsDownToSoftwareAtTheFrameAfterTheLastShown() throws {
        let path = try Self.clip()
        let software = try Self.software(path)
        try #require(software.count == 100)
        let (frames, line, copies, decoder) = try Self.decode(path, failingFrom: 20)
        #expect(copies == 21, "20 copied, the 21st failed, none tried after the step down")
        #expect(frames.map(\.pts) == software.map(\.pts), "every frame once, in order: none lost, none repeated")
        let differing = zip(frames, software).enumerated().filter { Self.lumaSum($0.element.0) != Self.lumaSum($0.element.1) }
        #expect(differing.isEmpty, "frames \(differing.prefix(5).map(\.offset)) differ from software decoding's")
        #expect(line == "hardware decoding: vaapi opened for h264, but a frame could not be copied down from the device "
                + "(Input/output error); decoding in software from here, at the frame after the last one shown")
        #expect(decoder.takeHardwareRefusal() == nil, "said once")
        #expect(decoder.lastFrameOnDevice == false)
    }

    /// A decoder hands out a GOP's last frames after the next keyframe was sent (B-frame
    /// reorder, frame threads): a failure on one of them replays the GOP before too.
    @Test(arguments: [45, 47, 48, 49, 50, 51, 52, 55])
    func aFailureAroundAKeyframeLosesNoFrame(failingFrom: Int) throws {
        let path = try Self.clip()
        let software = try Self.software(path)
        let (frames, line, copies, _) = try Self.decode(path, failingFrom: failingFrom)
        #expect(copies == failingFrom + 1)
        #expect(frames.map(\.pts) == software.map(\.pts))
        #expect(zip(frames, software).allSatisfy { Self.lumaSum($0) == Self.lumaSum($1) })
        #expect(line?.hasSuffix("at the frame after the last one shown") == true, "\(line ?? "no line")")
    }

    /// Where the GOP outgrew the bytes kept, the software decoder starts at the next keyframe:
    /// the frames between are not shown (the last picture stays up), none is garbage.
    @Test func withoutTheGOPKeptItGoesOnAtTheNextKeyframe() throws {
        let path = try Self.clip()
        let software = try Self.software(path)
        let (frames, line, _, _) = try Self.decode(path, failingFrom: 20, keptBytes: 1)
        let expected = Array(software[0..<20]) + Array(software[50...])
        #expect(frames.map(\.pts) == expected.map(\.pts))
        #expect(zip(frames, expected).allSatisfy { Self.lumaSum($0) == Self.lumaSum($1) })
        #expect(line?.hasSuffix("decoding in software from here, at the next keyframe") == true, "\(line ?? "no line")")
    }

    /// A failure in the drain at the end: the software decoder is drained too, after the packets
    /// sent again, so the last frames come.
    @Test func aFailureInTheDrainAtTheEndStillGivesTheLastFrames() throws {
        let path = try Self.clip()
        let software = try Self.software(path)
        let (frames, line, copies, _) = try Self.decode(path, failingFrom: 98)
        #expect(copies == 99)
        #expect(frames.map(\.pts) == software.map(\.pts))
        #expect(line?.hasSuffix("at the frame after the last one shown") == true)
    }

    /// After a step down mid-GOP and a seek back, every frame from the start comes again: the
    /// catch-up that dropped frames already shown does not outlive the seek.
    @Test func aSeekAfterTheStepDownDecodesEveryFrameAgain() throws {
        let path = try Self.clip()
        let software = try Self.software(path)
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let (decoder, _) = try Self.standIn(asset, demuxer, failingFrom: 30)
        let first = decoder.decodeEveryFrame(from: demuxer)
        #expect(first.map(\.pts) == software.map(\.pts))
        try demuxer.seek(to: .zero)
        decoder.flush()
        let again = decoder.decodeEveryFrame(from: demuxer)
        #expect(again.map(\.pts) == software.map(\.pts))
    }
}

/// A frame handed on as DRM PRIME and left on its device while the zero-copy path shows such
/// frames (`DecodedFrame(onDevice:)`): what the queue and the presenter read of it (size, bytes,
/// format, matrix) copies nothing; its pixels are copied once, where they are read; a copy that
/// fails gives a black picture of its size, never a crash.
@Suite struct FrameLeftOnDeviceTests {
    static func decodedFrame() throws -> UnsafeMutablePointer<AVFrame> {
        let frames = try HardwareStepDownTests.software(try HardwareStepDownTests.clip())
        let first = try #require(frames.first)
        return try #require(av_frame_clone(first.frame))
    }

    @Test func itsPixelsAreCopiedOnceWhereTheyAreRead() throws {
        var copies = 0
        let frame = DecodedFrame(onDevice: try Self.decodedFrame(), weight: 12_345, copyDown: { copies += 1; return av_frame_clone($0) },
                                 pts: .zero, sampleAspect: .one, rotation: .none)
        #expect(frame.size == PixelSize(width: 320, height: 240) && frame.byteCount == 12_345, "the weight it was made with")
        #expect(frame.pixelFormatName == "yuv420p" && frame.matrix == .bt601)
        #expect(copies == 0 && !frame.isInMemory, "nothing read its pixels yet")
        let view = try #require(frame.yuvView)
        #expect(view.size == frame.size && copies == 1 && frame.isInMemory && frame.wasCopiedLate)
        _ = frame.yuvView
        #expect(copies == 1, "once")
        #expect(frame.byteCount == 12_345, "the queue's weight does not change under it")
    }

    @Test func aCopyThatFailsIsABlackPictureOfItsSize() throws {
        let frame = DecodedFrame(onDevice: try Self.decodedFrame(), weight: 1, copyDown: { _ in nil }, pts: .zero, sampleAspect: .one,
                                 rotation: .none)
        let view = try #require(frame.yuvView)
        #expect(view.size == PixelSize(width: 320, height: 240))
        let luma = (0..<240).flatMap { row in (0..<320).map { view.planes[0].base.load(fromByteOffset: row * view.planes[0].stride + $0, as: UInt8.self) } }
        #expect(Set(luma) == [16], "limited-range black")
    }
}
