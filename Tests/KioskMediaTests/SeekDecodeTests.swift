import CFFmpeg
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// Decoding up to a seek target while skipping the frames nothing refers to (VideoDecoder's
/// `unshownBefore`): the frame at the target must come out bit-identical, with less decoding.
@Suite struct SeekDecodeTests {
    /// x264's defaults with B-frames (some of them non-reference) and one keyframe for 3 s.
    static func clip() throws -> String {
        try MediaFixtures.clip("bframes-3s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3",
                                                  "-c:v", "libx264", "-preset", "medium", "-bf", "3", "-g", "300",
                                                  "-pix_fmt", "yuv420p"])
    }

    /// Decodes the whole clip, feeding `unshownBefore: target`; returns the frames that came out.
    static func decode(_ path: String, unshownBefore target: MediaTime) throws -> [DecodedFrame] {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream), threads: 2)
        var frames: [DecodedFrame] = []
        func drain() { while case .frame(let frame) = decoder.receive() { frames.append(frame) } }
        while case .packet(let packet) = demuxer.read() {
            while !decoder.send(packet, unshownBefore: target) { drain() }
            drain()
        }
        _ = decoder.send(nil as Packet?)
        drain()
        return frames
    }

    /// The luma plane, row by row (the stride may differ between decodes).
    static func luma(_ frame: DecodedFrame) -> [UInt8] {
        let f = frame.frame.pointee
        var bytes: [UInt8] = []
        for row in 0..<Int(f.height) {
            bytes += UnsafeBufferPointer(start: f.data.0! + row * Int(f.linesize.0), count: Int(f.width))
        }
        return bytes
    }

    @Test func theTargetFrameIsIdenticalAndFewerFramesAreDecodedBeforeIt() throws {
        let path = try Self.clip()
        let target = MediaTime(value: 2, timescale: 1)
        let all = try Self.decode(path, unshownBefore: .zero)
        let skipping = try Self.decode(path, unshownBefore: target)
        #expect(all.count == 90)
        let before = skipping.filter { $0.pts < target }.count
        #expect(before < 60 * 3 / 4, "\(before) of 60 frames before the target decoded; B-frames skipped")
        // From the target on, nothing is skipped and every picture is the same.
        let expected = all.filter { $0.pts >= target }, got = skipping.filter { $0.pts >= target }
        #expect(got.map(\.pts) == expected.map(\.pts))
        for (a, b) in zip(expected, got) {
            #expect(Self.luma(a) == Self.luma(b), "frame at \(a.pts.seconds) s differs")
        }
    }
}
