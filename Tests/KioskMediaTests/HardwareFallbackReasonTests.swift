import CFFmpeg
import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// Each reason a hardware way gives for stepping down (#33: "a failure drops one step, with one
/// line"; "every fallback reason tested"), provoked here without a device: a way this FFmpeg
/// lacks, a decoder that does not open, frames that cannot be handed on as DRM PRIME, a step
/// down whose software decoder does not open. The frames keep coming in every case.
@Suite struct HardwareFallbackReasonTests {
    static func decoder(_ asset: Asset, _ demuxer: Demuxer, handOn: PrimeHandOn? = nil,
                        prepare: @escaping (HardwareDecodeAttempt, AVCodecID) -> Result<HardwareDecoderSetup, HardwareDecodeFailure>,
                        download: @escaping (UnsafeMutablePointer<AVFrame>, FramePool) -> Result<UnsafeMutablePointer<AVFrame>, HardwareDecodeFailure>
                            = { frame, _ in
                                var source: UnsafeMutablePointer<AVFrame>? = frame
                                defer { av_frame_free(&source) }
                                return av_frame_clone(frame).map { .success($0) } ?? .failure("out of memory")
                            },
                        stepDownSettings: ((UnsafeMutablePointer<AVCodecContext>) -> Void)? = nil) throws -> VideoDecoder {
        try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream), threads: 2, stillScreen: nil, hardware: .vaapi,
                         heldFrames: 0, handOn: handOn, prepare: prepare, download: download, stepDownSettings: stepDownSettings)
    }

    /// Every frame of `demuxer`, the line taken after each one as the engine takes it.
    static func decodeTakingLines(_ decoder: VideoDecoder, _ demuxer: Demuxer) -> (frames: [DecodedFrame], lines: [String]) {
        var lines: [String] = []
        let frames = decoder.decodeEveryFrame(from: demuxer) { if let line = decoder.takeHardwareRefusal() { lines.append(line) } }
        return (frames, lines)
    }

    @Test func aWayThisFFmpegLacksSaysWhich() {
        func reason(_ attempt: HardwareDecodeAttempt, _ codec: AVCodecID = AV_CODEC_ID_H264) -> String? {
            if case .failure(let why) = HardwareDecoderSetup.prepare(attempt, codecID: codec) { return why.description }
            return nil
        }
        #expect(reason(.decoder("kiosk_none_v4l2m2m")) == "this FFmpeg build has no kiosk_none_v4l2m2m")
        #expect(reason(.device("kiosk-none")) == "this FFmpeg build has no kiosk-none support")
        #expect(reason(.device("vaapi"), AV_CODEC_ID_NONE) == "no decoder")
    }

    /// A device's decoder that FFmpeg will not open (here: an audio decoder given the picture's
    /// parameters): the next way, finally software, with that reason in the one line.
    @Test func aDecoderThatDoesNotOpenFallsBackWithFFmpegsReason() throws {
        let path = try HardwareDecodeTests.clip()
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try Self.decoder(asset, demuxer) { _, _ in
            HardwareDecoderSetup.claiming(AV_PIX_FMT_YUV420P, codecID: AV_CODEC_ID_PCM_S16LE)
        }
        let line = try #require(decoder.hardwareOutcome)
        #expect(line.hasPrefix("hardware decoding (hwdec: vaapi) not available for h264: vaapi: ") && line.hasSuffix("; decoding in software"),
                "\(line)")
        #expect(line.count > "hardware decoding (hwdec: vaapi) not available for h264: vaapi: ; decoding in software".count, "FFmpeg's reason is in it")
        #expect(decoder.decodeEveryFrame(from: demuxer).count == 25)
        #expect(decoder.takeHardwareRefusal() == nil)
    }

    /// A device whose frames cannot be mapped to DRM PRIME while the display wants them so: the
    /// frames are copied to memory only, said once; every frame comes.
    @Test func framesThatCannotBeHandedOnAsDRMPrimeAreCopiedOnlyAndSaidOnce() throws {
        let path = try HardwareDecodeTests.clip()
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        // The "device's" frames are software frames: FFmpeg's av_hwframe_map refuses them.
        let decoder = try Self.decoder(asset, demuxer, handOn: PrimeHandOn(wanted: true)) { _, codec in
            HardwareDecoderSetup.claiming(AV_PIX_FMT_YUV420P, codecID: codec)
        }
        #expect(decoder.hardwareOutcome == "hardware decoding: vaapi for h264, frames copied to memory until the video plane shows them as DRM PRIME")
        let (frames, lines) = Self.decodeTakingLines(decoder, demuxer)
        #expect(frames.count == 25 && frames.allSatisfy { $0.prime == nil && $0.isInMemory })
        #expect(lines.count == 1, "\(lines)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("hardware decoding: vaapi opened for h264: its frames cannot be handed on as DRM PRIME (yuv420p to DRM PRIME: ")
                && line.hasSuffix("); copied to memory only"), "\(line)")
    }

    /// Two reasons at one frame (its PRIME mapping refused, then its copy down failed): both
    /// said, in that order. The second used to take the first's place before the engine read it.
    @Test func twoReasonsAtOneFrameAreBothSaid() throws {
        let path = try HardwareDecodeTests.clip()
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try Self.decoder(asset, demuxer, handOn: PrimeHandOn(wanted: true),
                                       prepare: { _, codec in HardwareDecoderSetup.claiming(AV_PIX_FMT_YUV420P, codecID: codec) },
                                       download: { frame, _ in
                                           var source: UnsafeMutablePointer<AVFrame>? = frame
                                           av_frame_free(&source)
                                           return .failure("Input/output error")
                                       })
        let (frames, lines) = Self.decodeTakingLines(decoder, demuxer)
        #expect(frames.count == 25)
        #expect(lines.count == 1, "one line, at the first frame: \(lines)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("hardware decoding: vaapi opened for h264: its frames cannot be handed on as DRM PRIME ("), "\(line)")
        #expect(line.contains("); copied to memory only; then hardware decoding: vaapi opened for h264, but a frame could not be "
                              + "copied down from the device (Input/output error); decoding in software from here"), "\(line)")
    }

    /// A copy down that fails where the software decoder cannot open either: that frame and
    /// each later one that fails are dropped, each said; the frames before all came.
    @Test func aStepDownWhoseSoftwareDecoderDoesNotOpenDropsTheFramesThatFailAndSaysSo() throws {
        let path = try HardwareDecodeTests.clip()
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        var copies = 0
        func standIn(_ asset: Asset, _ demuxer: Demuxer) throws -> VideoDecoder {
            let decoder = try Self.decoder(asset, demuxer, prepare: { _, codec in HardwareDecoderSetup.claiming(AV_PIX_FMT_YUV420P, codecID: codec) },
                                           download: { frame, _ in
                                               copies += 1
                                               var source: UnsafeMutablePointer<AVFrame>? = frame
                                               defer { av_frame_free(&source) }
                                               guard copies <= 10, let copy = av_frame_clone(frame) else { return .failure("Input/output error") }
                                               return .success(copy)
                                           },
                                           // The software decoder is opened with the picture's parameters made an
                                           // audio stream's: FFmpeg refuses it ("Codec type or id mismatches").
                                           stepDownSettings: { $0.pointee.codec_type = AVMEDIA_TYPE_AUDIO })
            return decoder
        }
        let decoder = try standIn(asset, demuxer)
        var frames = 0
        var lines: [String] = []
        func drain() {
            while true {
                let output = decoder.receive()
                if let line = decoder.takeHardwareRefusal() { lines.append(line) }
                guard case .frame = output else { return }
                frames += 1
            }
        }
        while case .packet(let packet) = demuxer.read() {
            while !decoder.send(packet) { drain() }
            drain()
        }
        _ = decoder.send(nil as Packet?)
        drain()
        #expect(frames == 10 && copies == 25, "10 copied, the other 15 failed and were dropped")
        let first = try #require(lines.first)
        #expect(first.hasPrefix("hardware decoding: vaapi opened for h264, but a frame could not be copied down from the device "
                                + "(Input/output error) and no software decoder opened (") && first.hasSuffix("); frames that cannot be copied are dropped"),
                "\(first)")
        #expect(lines.dropFirst().allSatisfy { $0 == "hardware decoding: vaapi opened for h264, but a frame could not be copied down from "
                    + "the device (Input/output error); it was dropped" } && lines.count >= 2, "\(lines)")
        // Not taken until the end (the engine takes it after a frame: several may fail between):
        // why the step down failed is what is said, not the last frame's "it was dropped".
        copies = 0
        let second = try Asset(source: path)
        let again = Demuxer(asset: second, audio: false)
        let untaken = try standIn(second, again)
        #expect(untaken.decodeEveryFrame(from: again).count == 10)
        #expect(untaken.takeHardwareRefusal()?.contains("and no software decoder opened (") == true)
    }
}
