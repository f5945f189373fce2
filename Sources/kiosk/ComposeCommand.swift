import ArgumentParser
import Glibc
import KioskCore
import KioskMedia
import KioskService

/// `kiosk compose A B C -o out.mp4`: the clips one after the other in one file.
struct ComposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Join clips into one mp4 (H.264 + AAC), sizes and rates unified with kiosk's gravity rules.",
        discussion: """
        The output's size is --size, else the first clip's as shown (rotation tag and sample \
        aspect applied); each clip is laid out on it with --gravity (black bars for fit). The frame \
        rate is --fps, else the first clip's; frames are repeated or dropped by their timestamps. \
        The sound is --audio laid over the whole (looped or cut), else each clip's own (silence \
        for a clip without). When every clip already matches (codec parameters, size, rate) and \
        nothing asks for a change, the packets are copied without re-encoding.
        """)

    @Argument(help: "The clips, in order.")
    var clips: [String]

    @Option(help: "A sound track laid over the whole instead of the clips' own sound.")
    var audio: String?

    @Option(help: "Output size WxH (default: the first clip's displayed size).")
    var size: PixelSize?

    @Option(help: "fit (resizeAspect), fill (resizeAspectFill) or stretch (resize).")
    var gravity: VideoGravity = .fit

    @Option(help: "Output frame rate (default: the first clip's).")
    var fps: Double?

    @Option(name: .shortAndLong, help: "The mp4 to write.")
    var output: String

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard !clips.isEmpty else { throw ValidationError("compose needs at least one clip") }
        try checkScreenSize(size, option: "--size")
        if let fps { guard fps > 0, fps <= 240, fps.isFinite else { throw ValidationError("--fps must be between 0 and 240") } }
        for clip in clips + (audio.map { [$0] } ?? []) where PartialOutput.sameFile(clip, output) {
            throw ValidationError("-o \(output) is one of the inputs: it would be overwritten")
        }
    }

    /// --fps as a rational: whole rates exactly, NTSC's 29.97 as 30000/1001.
    var frameRate: Rational? {
        guard let fps else { return nil }
        if fps == fps.rounded() { return Rational(Int64(fps), 1) }
        return Rational(Int64((fps * 1001).rounded()), 1001)
    }

    func run() throws {
        let logger = common.makeLogger()
        // Every input is opened and checked before anything is written.
        var inputs: [ComposeClip] = []
        var total = 0.0
        for path in clips {
            let asset = try Asset(source: path)
            inputs.append(try ComposeClip(asset: asset))
            total += asset.info.durationSeconds ?? 0
        }
        if let audio {
            let track = try Asset(source: audio)
            guard track.info.bestAudio?.decodable == true else { throw MediaError(source: audio, reason: "no sound to lay over the clips") }
        }
        let plan = ComposePlan(clips: inputs, request: ComposeRequest(size: size, gravity: gravity, frameRate: frameRate, audioTrack: audio))
        let file = try PartialOutput(path: output)
        switch plan.mode {
        case .streamCopy: logger.notice("compose: every clip matches: copying packets (no re-encode)")
        case .encode: logger.info("compose: encoding \(plan.size) at \(plan.frameRate.doubleValue) fps: \(plan.encodeReason ?? "")")
        }
        let composer = Composer(plan: plan, clips: inputs, audioTrack: audio)
        var reporter = ProgressReporter(label: "compose", total: total)
        var done = 0.0
        composer.isCancelled = { SignalHub.shared.stopRequested }
        composer.progress = { seconds in done = seconds; reporter.update(seconds) }
        do {
            try file.produce { path in
                try composer.write(to: path)
                if SignalHub.shared.stopRequested { throw ComposeStopped() }
            }
        } catch let error as ComposeStopped {
            writeStandardError("kiosk: compose: \(error); \(output) not written")
            Entry.leave(128 + (SignalHub.shared.stopSignal ?? SIGTERM))   // not a bare exit (ExitGate.swift)
        }
        reporter.finish(done)
    }
}
