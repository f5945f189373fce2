import CFFmpeg
import CKioskShim
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// Frames flagged interlaced are woven whole on the decode thread (`Deinterlacer`, bwdif): a
/// moving edge shows no comb, every frame keeps its own time, a progressive stream is left as
/// decoded, and a seek starts the weave afresh.
@Suite struct DeinterlacerTests {
    /// 25 interlaced frames a second made of 50 moving pictures a second (each field a picture
    /// of its own moment), the way a 1080i50 broadcast master is, as MPEG-2 in MPEG-TS.
    static func interlacedClip() throws -> String {
        try MediaFixtures.clip("interlaced.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=1.6",
                                                 "-vf", "scroll=horizontal=0.03,tinterlace=mode=interleave_top,setfield=tff",
                                                 "-c:v", "mpeg2video", "-q:v", "2", "-flags", "+ilme+ildct", "-top", "1",
                                                 "-r", "25"])
    }

    static func progressiveClip() throws -> String {
        try MediaFixtures.clip("progressive-scroll.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=0.8",
                                                         "-vf", "scroll=horizontal=0.03", "-c:v", "mpeg2video", "-q:v", "2"])
    }

    static func decode(_ path: String, _ mode: Deinterlacing) throws -> (frames: [DecodedFrame], note: (line: String, isProblem: Bool)?) {
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream))
        decoder.deinterlace = mode
        let frames = decoder.decodeEveryFrame(from: demuxer)
        return (frames, decoder.takeDeinterlaceNote())
    }

    /// How much each luma line differs from the mean of the lines above and below it: a comb
    /// (alternate lines from two moments) makes it large at every moving edge.
    static func combing(_ frame: DecodedFrame) -> Double {
        let picture = frame.frame.pointee
        let width = Int(picture.width), height = Int(picture.height), stride = Int(picture.linesize.0)
        let luma = picture.data.0!
        var total = 0.0
        for y in 1..<(height - 1) {
            for x in 0..<width {
                let above = Double(luma[(y - 1) * stride + x]), below = Double(luma[(y + 1) * stride + x])
                total += abs(Double(luma[y * stride + x]) - (above + below) / 2)
            }
        }
        return total / Double(width * (height - 2))
    }

    @Test func interlacedFramesAreWovenWholeWithTheirOwnTimes() throws {
        let path = try Self.interlacedClip()
        let (combed, quiet) = try Self.decode(path, .off)
        let (woven, note) = try Self.decode(path, .auto)
        #expect(quiet == nil)
        #expect(note?.line.contains("deinterlaced (bwdif)") == true && note?.isProblem == false)
        // One frame out for each frame in, at the same times (the held frame comes out at the end).
        #expect(combed.count == 40 && woven.count == combed.count)
        #expect(woven.map(\.pts) == combed.map(\.pts))
        #expect(woven.allSatisfy { kiosk_frame_is_interlaced($0.frame) == 0 })
        // The comb is gone: measured on the frames where the pattern moves.
        let before = combed.dropFirst(2).map(Self.combing).reduce(0, +), after = woven.dropFirst(2).map(Self.combing).reduce(0, +)
        #expect(after < before * 0.3, "combing \(after) against \(before) as decoded")
    }

    @Test func aProgressiveStreamIsLeftAsDecoded() throws {
        let path = try Self.progressiveClip()
        let (plain, _) = try Self.decode(path, .off)
        let (auto, note) = try Self.decode(path, .auto)
        #expect(note == nil)   // no frame flagged: no filter built
        #expect(auto.count == plain.count && auto.count == 20)
        for (a, b) in zip(auto, plain) { #expect(Self.combing(a) == Self.combing(b)) }
        // `on` weaves every frame, flagged or not.
        let (forced, forcedNote) = try Self.decode(path, .on)
        #expect(forcedNote?.line.contains("deinterlace: on") == true)
        #expect(forced.map(\.pts) == plain.map(\.pts))
    }

    /// After a seek the weave starts again from the new frames: nothing of before comes out.
    @Test func aSeekStartsTheWeaveAfresh() throws {
        let path = try Self.interlacedClip()
        let asset = try Asset(source: path)
        let demuxer = Demuxer(asset: asset, audio: false)
        let decoder = try VideoDecoder(asset: asset, streamIndex: try #require(demuxer.videoStream))
        var early: [DecodedFrame] = []
        while early.count < 5, case .packet(let packet) = demuxer.read() {
            _ = decoder.send(packet)
            while case .frame(let frame) = decoder.receive() { early.append(frame) }
        }
        #expect(!early.isEmpty)
        let target = MediaTime(value: 1, timescale: 1)
        try demuxer.seek(to: target)
        decoder.flush()
        let later = decoder.decodeEveryFrame(from: demuxer)
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { $0.pts >= target - MediaTime(value: 1, timescale: 2) }, "\(later.map(\.pts.seconds))")
        #expect(later.last.map { $0.pts.seconds > 1.4 } == true)
    }

    /// The decoder's `.finished` is also a decode error, after which packets come on (a damaged
    /// TS): a graph told the end takes the next frames in a new one, none lost.
    @Test func framesAfterAnEndAreWovenAgain() throws {
        let (frames, _) = try Self.decode(try Self.interlacedClip(), .off)
        let weave = try Deinterlacer(source: "test", timeBase: AVRational(num: 1, den: 90000), like: frames[0].frame)
        var out: [Int64] = []
        func take() {
            while let frame = weave.pull() {
                out.append(frame.pointee.pts)
                var owned: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&owned)
            }
        }
        for (index, frame) in frames.prefix(10).enumerated() {
            try weave.push(try #require(av_frame_clone(frame.frame)), ticks: Int64(index) * 3600)
            take()
            if index == 4 {
                #expect(weave.finish())
                take()
                #expect(out.count == 5)
            }
        }
        #expect(weave.finish())
        take()
        #expect(out == (0..<10).map { Int64($0) * 3600 })
    }
}
