import ArgumentParser
import Foundation
import KioskAudio
import KioskDisplay
import KioskGPIO
import KioskInput
import KioskCore
import KioskMedia
import KioskService

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show what FFmpeg finds in a media file; with no file, the displays (DRM cards, connectors, modes, CRTCs, planes), GPIO chips, sound and input devices.")

    @Argument(help: "A media file or URL; leave out to list the hardware.")
    var media: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @Option(help: "With a file: how its video would decode with this playback.hwdec (off, auto, vaapi, drm, cuda, v4l2m2m): the decoder and path, or each way's reason. Default: kiosk.conf's, else off, as `kiosk run` without one.")
    var hwdec: HardwareDecoding?

    @Option(name: .customLong("prime-import"),
            help: "Instead: check that the display takes frames held in another device's memory (hardware decoding's zero-copy path), in this format: nv12 or p010.")
    var primeImport: String?

    @Option(name: .customLong("display"), help: "With a file or --prime-import: the card (card1 or /dev/dri/card1); default: with a file, kiosk.conf's; else the first with a connected screen.")
    var card: String?

    @Option(help: "With a file: the gravity (fit, fill, stretch) its video is shown with, for which plane would show it. Default: kiosk.conf's playback.gravity, else fit.")
    var gravity: VideoGravity?

    @Option(help: "With a file: the kiosk.conf whose display section (card, connector, mode, rotation, video_plane) and playback gravity, region and hwdec the answer follows, as `kiosk run` would (default: /etc/kiosk/kiosk.conf where it exists); none: the defaults.")
    var config: String?

    @Option(help: "With --prime-import: imports in all (most released unshown).")
    var imports = 10_000

    @Option(help: "With --prime-import: how many of the last imports are flipped onto the screen.")
    var flips = 60

    @Option(help: "With --prime-import: a PNG of the screen after the last flip (where the driver can read it back).")
    var screenshot: String?

    @Option(help: "With --prime-import: the memory layout the frames say they are in: linear (default), sand32/64/128/256[:column height] (a Raspberry Pi's decoder), or a modifier in hex. Whether a plane lists it in IN_FORMATS; only linear frames show the bars.")
    var modifier = "linear"

    @OptionGroup var common: CommonOptions

    func run() throws {
        _ = common.makeLogger()
        if let primeImport { return try checkPrimeImport(primeImport) }
        guard let media else { return try probeHardware() }
        // FFmpeg 5.1 cannot open HEIC: libheif reads its boxes (the picture is not decoded);
        // nor decode an animated WebP: libwebpdemux reads its frames for its length.
        let settings = try ProbeSettings(config: config, card: card, gravity: gravity, hwdec: hwdec)
        if let warning = settings.warning { writeStandardError(warning) }
        let info = try HeifStill.handles(media) ? HeifStill.probe(media)
            : AnimatedWebP.isAnimated(path: media) ? WebPAnimationReader.probe(media)
            : Self.probe(media, hardware: settings.hwdec, screen: settings.screen(), gravity: settings.gravity, region: settings.region,
                         videoPlane: settings.videoPlane)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            // The settings only where they were used: a screen's answer for the played video.
            let used = info.streams.contains { $0.shown != nil }
            print(ProbeCommand.describe(info) + (used ? "\n  settings: " + settings.source : ""))
        }
        // The answer is printed either way; the status says `kiosk run` would skip the file
        // (README: 1 for a media error).
        if !Self.wouldPlay(info) { throw ExitCode(1) }
    }

    /// FFmpeg's view of `media`, each video stream with how it would decode with `hardware`
    /// (the decoder is opened, as playback opens it). The stream playback would choose also
    /// decodes its first frame, as playback would for `screen` (shrunk to it): a device accepts
    /// or refuses a stream only then, and the frame says which plane would show it (`gravity`).
    static func probe(_ media: String, hardware: HardwareDecoding, screen: Result<ProbedScreen, Error>? = nil,
                      gravity: VideoGravity = .fit, region: ScreenRegion? = nil, videoPlane: VideoPlanePolicy = .auto) throws -> MediaInfo {
        let asset = try Asset(source: media)
        var info = asset.info
        let played = asset.info.bestVideo?.index
        for (index, stream) in info.streams.enumerated() where stream.kind == .video && stream.decodable {
            do {
                // As playback opens it with the video plane on: a device's frames also kept as
                // DRM PRIME, which the first frame confirms (or says why not).
                let probed = try? screen?.get()
                // A picture (an image file, a song's cover) decodes in software when it plays.
                let still = stream.isCoverPicture == true || info.isPictureFile   // as StillOrientation.isStill: not a one-frame video
                let way = still ? HardwareDecoding.off : hardware
                let decoder = try VideoDecoder(asset: asset, streamIndex: stream.index, stillScreen: probed?.bufferSize, hardware: way,
                                               handOn: way != .off && videoPlane != .off ? PrimeHandOn(wanted: true) : nil)
                decoder.shrinkCovering = probed.map { [$0.viewerSize] } ?? []
                var said = decoder.hardwareOutcome
                    ?? "\(stream.codecName) in software (" + (still ? "a picture: pictures always are)" : "hwdec: \(way.rawValue))")
                let onDevice = decoder.hardwareOutcome?.contains("frames copied to memory") == true
                // Its first frame only where it tells something: whether the device takes the
                // stream, or which plane would show it (a live URL's first frame can take a GOP).
                guard stream.index == played, onDevice || (try? screen?.get()) != nil else {
                    info.streams[index].decoding = said
                    if stream.index == played { info.streams[index].shown = shown(nil, on: screen, gravity: gravity, region: region) }
                    continue
                }
                let first = firstFrame(of: asset, on: decoder)
                if let outcome = decoder.hardwareOutcome, outcome.contains("frames copied to memory") {
                    switch (first, decoder.lastFrameOnDevice) {
                    case (let frame?, true?):
                        said = outcome + " (its first frame decoded there" + (frame.prime.map { "; " + describe($0) } ?? "") + ")"
                            + (decoder.takeHardwareRefusal().map { "; \($0)" } ?? "")
                    case (_?, _): said = decoder.takeHardwareRefusal() ?? outcome
                    case (nil, _): said = outcome + " (no frame decoded to confirm it)"
                    }
                }
                info.streams[index].decoding = said
                info.streams[index].shown = shown(first, on: screen, gravity: gravity, region: region)
            } catch {
                info.streams[index].decoding = "cannot decode: \((error as? MediaError)?.reason ?? "\(error)")"
                info.streams[index].decodable = false
            }
        }
        return reported(info)
    }

    /// Whether `kiosk run` would show `info`'s picture: it plays the video stream FFmpeg picks,
    /// and skips a file whose stream has no decoder or whose decoder refused it (a still past
    /// 16 MP, a size FFmpeg calls invalid). A file with no video is left to say so itself.
    static func wouldPlay(_ info: MediaInfo) -> Bool {
        info.bestVideo?.decodable ?? true
    }

    /// `info` as said to the user: what FFmpeg left unknown is left out rather than a made-up
    /// value (a width of 0 where the header could not be read, image2's 25 fps that is its
    /// default for a sequence of files and not the still's).
    private static func reported(_ info: MediaInfo) -> MediaInfo {
        var reported = info
        for index in reported.streams.indices where reported.streams[index].kind == .video {
            var stream = reported.streams[index]
            if stream.width == 0 || stream.height == 0 { (stream.width, stream.height) = (nil, nil) }
            if stream.isStillImage == true, info.isPictureFile || stream.isCoverPicture == true { stream.frameRate = nil }
            reported.streams[index] = stream
        }
        return reported
    }

    /// "kept as DRM PRIME NV12, modifier 0x0, for the video plane".
    private static func describe(_ picture: PrimePicture) -> String {
        let layers = picture.descriptor.layers.map { "\($0.format)" }.joined(separator: "+")
        let modifier = picture.descriptor.objects.first.map { String($0.modifier, radix: 16) } ?? "?"
        return "kept as DRM PRIME \(layers), modifier 0x\(modifier), for the video plane"
    }

    /// Where `frame` would be shown on `screen`: "on card0 (Virtual-1, 1280x720), fit: plane 40
    /// takes YU12 as decoded, no CPU conversion", or why that cannot be said; nil without a
    /// screen asked about.
    private static func shown(_ frame: DecodedFrame?, on screen: Result<ProbedScreen, Error>?, gravity: VideoGravity,
                              region: ScreenRegion?) -> String? {
        guard let screen else { return nil }
        let probed: ProbedScreen
        switch screen {
        case .success(let opened): probed = opened
        case .failure(let settled as ProbeSettings.Settled): return "\(settled)"
        case .failure(let error): return "no screen to tell (\(error))"
        }
        let head = "on \(probed.name), \(gravity.rawValue)" + (region == nil ? "" : " in playback.region") + ": "
        guard let frame else { return head + "no frame decoded to tell" }
        var described = ProbedScreen.Frame(size: frame.size, sampleAspect: frame.sampleAspect, rotation: frame.rotation,
                                           planarFormat: frame.planarFormat, formatName: frame.pixelFormatName)
        if let picture = frame.prime {
            do {
                let plan = try picture.descriptor.framebufferPlan()
                described.prime = (plan.format, plan.planes.first?.modifier ?? FormatModifier.invalid, picture.descriptor.size)
            } catch {
                described.primeRefusal = "another device's frame cannot be a framebuffer (\(error))"
            }
        }
        return head + probed.scanout(of: described, gravity: gravity, region: region)
    }

    /// `decoder`'s first frame, nil when none came within 300 packets (a broken file).
    private static func firstFrame(of asset: Asset, on decoder: VideoDecoder) -> DecodedFrame? {
        let demuxer = Demuxer(asset: asset, video: true, audio: false)
        var packets = 0
        while packets < 300 {
            let packet: Packet?
            switch demuxer.read() {
            case .packet(let read): packet = read
            case .end: packet = nil
            }
            if let packet, packet.streamIndex != demuxer.videoStream { continue }
            packets += 1
            _ = decoder.send(packet)
            if case .frame(let frame) = decoder.receive() { return frame }
            if packet == nil { break }
        }
        return nil
    }

    /// The machine's outputs, for choosing `--display` and kiosk.conf's display section.
    private func probeHardware() throws {
        let displays = DRMProbe.run()
        let gpio = GPIOProbe.run()
        let input = InputProbe.run()
        let sound = ALSAProbe.probe()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let report = HardwareReport(displays: displays, gpio: gpio, sound: sound, input: input)
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print([displays.text, gpio.text, sound.summary, input.text].joined(separator: "\n\n"))
        }
    }

    /// `--prime-import`: the report, and exit status 1 when the check did not pass.
    private func checkPrimeImport(_ name: String) throws {
        let formats: [String: FourCC] = ["nv12": .nv12, "p010": .p010]
        guard let format = formats[name.lowercased()] else {
            throw ValidationError("--prime-import takes nv12 or p010, not '\(name)'")
        }
        guard let layout = FormatModifier.parse(modifier) else {
            throw ValidationError("--modifier takes linear, sand32, sand64, sand128 or sand256 (with :HEIGHT), or 0x and hex digits, not '\(modifier)'")
        }
        let check = PrimeImportCheck(format: format, modifier: layout, imports: imports, flips: flips, screenshotPath: screenshot)
        let report = try check.run(options: DRMDisplayOptions(card: card))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(PrimeImportCheck.describe(report))
        }
        if !report.passed { throw ExitCode(1) }
    }

    struct HardwareReport: Encodable {
        let displays: DRMProbe
        let gpio: GPIOProbe
        let sound: ALSAProbe
        let input: InputProbe
    }

    static func describe(_ info: MediaInfo) -> String {
        var lines = ["\(info.source)", "  format: \(info.formatName)"]
        lines.append("  duration: " + (info.durationSeconds.map { String(format: "%.3f s", $0) } ?? "unknown"))
        if let bitRate = info.bitRate { lines.append("  bit rate: \(bitRate / 1000) kb/s") }
        for stream in info.streams {
            var parts = ["  stream \(stream.index): \(stream.kind.rawValue) \(stream.codecName)"]
            if !stream.decodable && stream.decoding == nil { parts.append("(no decoder in this FFmpeg)") }
            if let w = stream.width, let h = stream.height { parts.append("\(w)x\(h)") }
            if let format = stream.pixelFormat { parts.append(format) }
            if let sar = stream.sampleAspectRatio, sar != .one { parts.append("SAR \(sar.numerator):\(sar.denominator)") }
            if let rate = stream.frameRate { parts.append(String(format: "%.3f fps", rate.doubleValue)) }
            if let rotation = stream.rotation, rotation != 0 { parts.append("rotate \(rotation)") }
            if let order = stream.fieldOrder { parts.append("interlaced (\(order))") }
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let layout = stream.channelLayout { parts.append(layout) } else if let channels = stream.channels { parts.append("\(channels) ch") }
            if let format = stream.sampleFormat { parts.append(format) }
            if let seconds = stream.durationSeconds { parts.append(String(format: "%.3f s", seconds)) }
            if stream.isDefaultChoice { parts.append("[default]") }
            lines.append(parts.joined(separator: ", ").replacingOccurrences(of: ": \(stream.kind.rawValue) \(stream.codecName),", with: ": \(stream.kind.rawValue) \(stream.codecName)"))
            if let decoding = stream.decoding { lines.append("    decoding: \(decoding)") }
            if let shown = stream.shown { lines.append("    shown: \(shown)") }
        }
        return lines.joined(separator: "\n")
    }
}
