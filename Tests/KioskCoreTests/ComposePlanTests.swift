import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `kiosk compose`'s pure decisions: the output's size and rate, when packets are copied, which
/// output frames each input frame fills, how much sound each clip gets, the temporary name.
@Suite struct ComposePlanTests {
    static func clip(_ name: String, _ width: Int, _ height: Int, fps: Int64? = 25, rotation: Rotation = .none,
                     sar: Rational = .one, audio: Bool = true, key: String = "h264") -> ComposeClip {
        ComposeClip(path: name, codedSize: PixelSize(width: width, height: height), sampleAspect: sar, rotation: rotation,
                    frameRate: fps.map { Rational($0, 1) }, hasAudio: audio, videoCodecKey: key + "\(width)x\(height)",
                    audioCodecKey: audio ? "aac" : nil)
    }

    @Test func theFirstClipsDisplayedSizeAndRateAreTheDefault() {
        let plan = ComposePlan(clips: [Self.clip("a", 640, 360, fps: 30, rotation: .clockwise90), Self.clip("b", 320, 240)],
                               request: ComposeRequest())
        #expect(plan.size == PixelSize(width: 360, height: 640))
        #expect(plan.frameRate == Rational(30, 1))
        #expect(plan.gravity == .fit)
        #expect(plan.mode == .encode)
        #expect(plan.hasAudio)
    }

    @Test func anamorphicAndOddSizesBecomeEvenDisplayedSizes() {
        let wide = ComposePlan(clips: [Self.clip("a", 720, 576, sar: Rational(16, 15))], request: ComposeRequest())
        #expect(wide.size == PixelSize(width: 768, height: 576))
        let odd = ComposePlan(clips: [Self.clip("a", 321, 241)], request: ComposeRequest())
        #expect(odd.size == PixelSize(width: 320, height: 240))
        #expect(odd.mode == .encode)
    }

    @Test func askedSizeRateAndGravityWin() {
        let plan = ComposePlan(clips: [Self.clip("a", 640, 360, fps: nil)],
                               request: ComposeRequest(size: PixelSize(width: 1280, height: 720), gravity: .fill, frameRate: Rational(50, 1)))
        #expect(plan.size == PixelSize(width: 1280, height: 720))
        #expect(plan.gravity == .fill)
        #expect(plan.frameRate == Rational(50, 1))
        #expect(ComposePlan(clips: [Self.clip("a", 64, 64, fps: nil)], request: ComposeRequest()).frameRate == ComposePlan.fallbackFrameRate)
    }

    @Test func matchingClipsAreCopied() {
        let same = [Self.clip("a", 640, 360), Self.clip("b", 640, 360), Self.clip("c", 640, 360)]
        #expect(ComposePlan(clips: same, request: ComposeRequest()).mode == .streamCopy)
        // Asking for the size they already have changes nothing.
        #expect(ComposePlan(clips: same, request: ComposeRequest(size: PixelSize(width: 640, height: 360))).mode == .streamCopy)
        #expect(ComposePlan(clips: same, request: ComposeRequest(frameRate: Rational(25, 1))).mode == .streamCopy)
    }

    @Test(arguments: [
        ("size", [clip("a", 640, 360), clip("b", 320, 240)], ComposeRequest()),
        ("rate", [clip("a", 640, 360), clip("b", 640, 360, fps: 30)], ComposeRequest()),
        ("rotation", [clip("a", 640, 360), clip("b", 640, 360, rotation: .clockwise180)], ComposeRequest()),
        ("codec", [clip("a", 640, 360), clip("b", 640, 360, key: "hevc")], ComposeRequest()),
        ("sound", [clip("a", 640, 360), clip("b", 640, 360, audio: false)], ComposeRequest()),
        ("--audio", [clip("a", 640, 360)], ComposeRequest(audioTrack: "music.m4a")),
        ("--size", [clip("a", 640, 360)], ComposeRequest(size: PixelSize(width: 320, height: 180))),
        ("--fps", [clip("a", 640, 360)], ComposeRequest(frameRate: Rational(30, 1))),
    ])
    func anyDifferenceMeansEncoding(what: String, clips: [ComposeClip], request: ComposeRequest) {
        let plan = ComposePlan(clips: clips, request: request)
        #expect(plan.mode == .encode, "\(what)")
        #expect(plan.encodeReason != nil)
    }

    /// Feeds frames at `inputRate` for `seconds` and returns how many output frames each filled.
    static func map(inputRate: Int64, outputRate: Int64, seconds: Int64) -> [Int64] {
        var mapper = FrameRateMapper(rate: Rational(outputRate, 1))
        var counts: [Int64] = []
        let frames = inputRate * seconds
        for n in 0..<frames {
            let filled = mapper.arrive(pts: MediaTime(value: n, timescale: Int32(inputRate)))
            if n > 0 { counts.append(filled) }
        }
        counts.append(mapper.finish(end: MediaTime(value: frames, timescale: Int32(inputRate))))
        #expect(mapper.emitted == outputRate * seconds, "the clip keeps its length at the new rate")
        #expect(mapper.duration == MediaTime(value: seconds, timescale: 1))
        return counts
    }

    @Test func sameRateIsOneToOne() {
        #expect(Self.map(inputRate: 25, outputRate: 25, seconds: 2).allSatisfy { $0 == 1 })
    }

    @Test func fasterInputDropsFramesSlowerRepeatsThem() {
        let dropped = Self.map(inputRate: 30, outputRate: 25, seconds: 2)
        #expect(dropped.filter { $0 == 0 }.count == 10)   // 60 in, 50 out
        #expect(dropped.allSatisfy { $0 <= 1 })
        let repeated = Self.map(inputRate: 15, outputRate: 25, seconds: 2)
        #expect(repeated.reduce(0, +) == 50)
        #expect(Set(repeated) == [1, 2])
    }

    @Test func untrustedTimestampsNeverGoBackNorLoseAClip() {
        var mapper = FrameRateMapper(rate: Rational(25, 1))
        #expect(mapper.arrive(pts: MediaTime(seconds: 0.4)) == 0)
        // A frame stamped before the one held counts as at its time: the held one, which
        // stands for the clip's start, fills 0 ... 0.36; time does not go back.
        #expect(mapper.arrive(pts: MediaTime(seconds: 0.2)) == 10)
        #expect(mapper.heldPTS == MediaTime(seconds: 0.4))
        #expect(mapper.arrive(pts: MediaTime(seconds: 0.48)) == 2)
        var single = FrameRateMapper(rate: Rational(25, 1))
        _ = single.arrive(pts: .zero)
        #expect(single.finish(end: MediaTime(seconds: 0.001)) == 1)
    }

    @Test func soundSpansAddUpExactlyAcrossClips() {
        var span = AudioSpan(sampleRate: 48_000)
        var total: Int64 = 0
        let rate = FrameRateMapper(rate: Rational(30_000, 1001))
        for end in [37, 75, 113, 400] { total += span.samples(untilVideoEnd: rate.time(ofFrame: Int64(end))) }
        #expect(total == rate.time(ofFrame: 400).ticks(in: Rational(1, 48_000)))
        #expect(span.samples(untilVideoEnd: .zero) == 0)
    }

    @Test func partialNamesAreHiddenAndNotMedia() {
        #expect(PartialFile.temporaryPath(for: "library/clip.mp4") == "library/.clip.mp4.part")
        #expect(PartialFile.temporaryPath(for: "/srv/a b.mp4") == "/srv/.a b.mp4.part")
        #expect(PartialFile.temporaryPath(for: "clip.mp4") == ".clip.mp4.part")
        #expect(PartialFile.directory(of: "clip.mp4") == ".")
        #expect(PartialFile.directory(of: "/clip.mp4") == "/")
        #expect(PartialFile.directory(of: "a/b/clip.mp4") == "a/b")
        // The watched-folder code passes over it.
        #expect(!WatchedFolders.isCandidate(name: ".clip.mp4.part"))
    }

    @Test func theProgressLineIsThrottled() {
        var line = ProgressLine(label: "compose", total: 30)
        #expect(line.text(done: 12, now: 100) == "compose: 12.0 s of 30.0 s (40%)")
        #expect(line.text(done: 12.1, now: 100.1) == nil)
        #expect(line.text(done: 13, now: 100.3) != nil)
        #expect(line.text(done: 30, now: 100.31, final: true) == "compose: 30.0 s of 30.0 s (100%)")
    }
}
