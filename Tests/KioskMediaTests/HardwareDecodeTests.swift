import CFFmpeg
import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// `playback.hwdec` through FFmpeg's generic API: every hardware way that cannot open here falls
/// back to software, the same frames come out, and the line says each way's reason. (No machine
/// that runs this suite has a decoder block; the copy-down of device frames is exercised where a
/// device exists: ../shared/FIELD-NOTES.md, and the note of issue 33.)
@Suite struct HardwareDecodeTests {
    static func clip() throws -> String {
        try MediaFixtures.clip("hwdec-1s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    }

    /// Every frame of `path`'s picture, decoded with `hardware`; and the decoder's outcome line.
    static func decode(_ path: String, hardware: HardwareDecoding) throws -> ([DecodedFrame], String?) {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream), hardware: hardware)
        return (decoder.decodeEveryFrame(from: demuxer), decoder.hardwareOutcome)
    }

    @Test func aHardwareWayTheCodecLacksFallsBackToSoftwareWithItsReason() throws {
        let path = try Self.clip()
        let (software, none) = try Self.decode(path, hardware: .off)
        #expect(none == nil, "off says nothing")
        // Upstream FFmpeg's h264 decoder has no DRM PRIME hwaccel (Raspberry Pi's build adds one).
        let (frames, outcome) = try Self.decode(path, hardware: .drm)
        #expect(frames.count == software.count && frames.count == 25)
        #expect(frames.map(\.pts) == software.map(\.pts))
        #expect(outcome == "hardware decoding (hwdec: drm) not available for h264: drm: FFmpeg's h264 decoder cannot use drm; decoding in software")
    }

    /// A device that opens but does not decode the stream (a profile or size its block lacks):
    /// FFmpeg's hwaccel fails at the first frame and the same decoder goes on in software. Stood
    /// in for by VA-API's format asked for with no device behind it (`withoutItsDevice`), which
    /// fails the same way inside FFmpeg. Every frame still comes, in memory; the line says so once.
    @Test func aDeviceThatOpensButDoesNotDecodeFallsBackOnTheSameDecoderAndSaysSoOnce() throws {
        let path = try Self.clip()
        let (software, _) = try Self.decode(path, hardware: .off)
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        guard case .success = HardwareDecoderSetup.withoutItsDevice(.device("vaapi"), codecID: AV_CODEC_ID_H264) else {
            Issue.record("this FFmpeg build's h264 decoder has no VA-API format (Debian's has)")
            return
        }
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream), threads: 0, stillScreen: nil,
                                       hardware: .vaapi, heldFrames: 0, handOn: nil, prepare: HardwareDecoderSetup.withoutItsDevice)
        #expect(decoder.hardwareOutcome == "hardware decoding: vaapi for h264, frames copied to memory", "it opened")
        let frames = decoder.decodeEveryFrame(from: demuxer)
        #expect(frames.count == software.count && frames.count == 25)
        #expect(frames.map(\.pts) == software.map(\.pts))
        #expect(decoder.lastFrameOnDevice == false)
        #expect(decoder.takeHardwareRefusal() == "hardware decoding: vaapi opened for h264, but the device did not decode its "
                + "frames (FFmpeg's reason at --log-level debug); decoding in software")
        #expect(decoder.takeHardwareRefusal() == nil, "said once")
    }

    @Test func autoTriesEachWayInOrderAndSaysWhy() throws {
        let path = try Self.clip()
        let (frames, outcome) = try Self.decode(path, hardware: .auto)
        #expect(frames.count == 25)
        let line = try #require(outcome)
        if line.hasPrefix("hardware decoding: ") { return }   // a box with a device: it decoded there
        #expect(line.hasPrefix("hardware decoding (hwdec: auto) not available for h264: vaapi: "))
        #expect(line.contains("; cuda: ") && line.contains("; drm: FFmpeg's h264 decoder cannot use drm; "))
        #expect(line.contains("; h264_v4l2m2m: ") && line.hasSuffix("; decoding in software"))
    }

    @Test func aMissingVAAPIDeviceIsSaidOnce() throws {
        guard !FileManager.default.fileExists(atPath: "/dev/dri/renderD128") else { return }   // a box that may have one
        let path = try Self.clip()
        let (frames, outcome) = try Self.decode(path, hardware: .vaapi)
        #expect(frames.count == 25)
        #expect(outcome?.hasPrefix("hardware decoding (hwdec: vaapi) not available for h264: vaapi: no vaapi device (") == true)
        #expect(HardwareDecodeLog.once("hwdec test line") == "hwdec test line")
        #expect(HardwareDecodeLog.once("hwdec test line") == nil, "the second time: nothing new to say")
    }

    /// A device's refusal said alone for one item, then with a step down for another: each reason
    /// once per process, so the second item's line is the step down alone (the whole joined line
    /// was the key before, and the refusal was said twice).
    @Test func eachReasonOfAJoinedLineIsSaidOncePerProcess() {
        let tag = UUID().uuidString
        let refusal = "hwdec test \(tag): PRIME refused", stepDown = "hwdec test \(tag): stepped down"
        let first = "hwdec test \(tag): a", second = "hwdec test \(tag): b"
        #expect(HardwareDecodeLog.once(parts: [refusal]) == refusal)
        #expect(HardwareDecodeLog.once(parts: [refusal, stepDown]) == stepDown)
        #expect(HardwareDecodeLog.once(parts: [stepDown, refusal]) == nil, "both said")
        #expect(HardwareDecodeLog.once(parts: []) == nil)
        #expect(HardwareDecodeLog.once(parts: [first, second]) == "\(first); then \(second)", "new ones joined in order")
    }

    @Test func theAttemptsFollowTheChoice() {
        #expect(HardwareDecoding.off.attempts(codec: "h264") == [])
        #expect(HardwareDecoding.vaapi.attempts(codec: "hevc") == [.device("vaapi")])
        #expect(HardwareDecoding.v4l2m2m.attempts(codec: "h264") == [.decoder("h264_v4l2m2m")])
        #expect(HardwareDecoding.v4l2m2m.attempts(codec: "av1") == [], "FFmpeg has no av1_v4l2m2m")
        #expect(HardwareDecoding.auto.attempts(codec: "hevc")
                == [.device("vaapi"), .device("cuda"), .device("drm"), .decoder("hevc_v4l2m2m")])
        #expect(HardwareDecoding.auto.attempts(codec: "mjpeg") == [.device("vaapi"), .device("cuda"), .device("drm")])
    }

    /// A V4L2 wrapper's frames keep their capture buffer while kiosk queues and shows them: its
    /// pool grows from FFmpeg's 20 by what kiosk holds (`HardwareFramePool`), within V4L2's 32.
    @Test func aV4L2WrapperGetsCaptureBuffersForTheFramesKioskHolds() throws {
        guard case .success(let setup) = HardwareDecoderSetup.prepare(.decoder("h264_v4l2m2m"), codecID: AV_CODEC_ID_H264) else {
            Issue.record("this FFmpeg build has no h264_v4l2m2m (Debian's has)")
            return
        }
        var context = avcodec_alloc_context3(setup.codec)
        defer { avcodec_free_context(&context) }
        let pointer = try #require(context)
        let options = try #require(pointer.pointee.priv_data)
        var value: Int64 = 0
        #expect(av_opt_get_int(options, "num_capture_buffers", 0, &value) >= 0 && value == 20)
        setup.configure(pointer, heldFrames: 7, keepsFramesOnDevice: false)
        #expect(av_opt_get_int(options, "num_capture_buffers", 0, &value) >= 0 && value == 27)
        setup.configure(pointer, heldFrames: 40, keepsFramesOnDevice: false)
        #expect(av_opt_get_int(options, "num_capture_buffers", 0, &value) >= 0 && value == 32)
    }

    /// Only devices whose frames can be DRM PRIME keep them for the plane (and grow their pool).
    @Test func onlyTheDRMAndVAAPIDevicesHandFramesOnAsDRMPrime() {
        #expect(VideoDecoder.exportsPrime(.device("drm")) && VideoDecoder.exportsPrime(.device("vaapi")))
        #expect(!VideoDecoder.exportsPrime(.device("cuda")))
        #expect(!VideoDecoder.exportsPrime(.decoder("h264_v4l2m2m")))
    }
}
