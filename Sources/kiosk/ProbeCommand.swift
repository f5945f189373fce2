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

    @Option(help: "With a file: how its video would decode with this playback.hwdec (off, auto, vaapi, drm, cuda, v4l2m2m): the decoder and path, or each way's reason.")
    var hwdec: HardwareDecoding = .auto

    @Option(name: .customLong("prime-import"),
            help: "Instead: check that the display takes frames held in another device's memory (hardware decoding's zero-copy path), in this format: nv12 or p010.")
    var primeImport: String?

    @Option(name: .customLong("display"), help: "With --prime-import: the card (card1 or /dev/dri/card1); default: the first with a connected screen.")
    var card: String?

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
        let info = try HeifStill.handles(media) ? HeifStill.probe(media)
            : AnimatedWebP.isAnimated(path: media) ? WebPAnimationReader.probe(media) : Self.probe(media, hardware: hwdec)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(ProbeCommand.describe(info))
        }
    }

    /// FFmpeg's view of `media`, each video stream with how it would decode with `hardware`
    /// (the decoder is opened, as playback opens it). The stream playback would choose also
    /// decodes its first frame on a device: a hwaccel accepts or refuses a stream only then.
    static func probe(_ media: String, hardware: HardwareDecoding) throws -> MediaInfo {
        let asset = try Asset(source: media)
        var info = asset.info
        let played = asset.info.bestVideo?.index
        for (index, stream) in info.streams.enumerated() where stream.kind == .video && stream.decodable {
            do {
                // As playback opens it with the video plane on: a device's frames also kept as
                // DRM PRIME, which the first frame confirms (or says why not).
                PrimeHandOn.wanted.store(true, ordering: .relaxed)
                let decoder = try VideoDecoder(asset: asset, streamIndex: stream.index, hardware: hardware,
                                               primeFrames: hardware != .off)
                var said = decoder.hardwareOutcome ?? "\(stream.codecName) in software (hwdec: \(hardware.rawValue))"
                if stream.index == played, let outcome = decoder.hardwareOutcome, outcome.contains("frames copied to memory") {
                    switch firstFrame(of: asset, on: decoder) {
                    case .onDevice(let prime?): said = outcome + " (its first frame decoded there; \(prime))"
                    case .onDevice(nil): said = outcome + " (its first frame decoded there)"
                        + (decoder.takeHardwareRefusal().map { "; \($0)" } ?? "")
                    case .inSoftware: said = decoder.takeHardwareRefusal() ?? outcome
                    case .none: said = outcome + " (no frame decoded to confirm it)"
                    }
                }
                info.streams[index].decoding = said
            } catch {
                info.streams[index].decoding = "cannot decode: \((error as? MediaError)?.reason ?? "\(error)")"
            }
        }
        return info
    }

    /// Where the first frame was decoded; on a device, what its DRM PRIME picture is (nil: not
    /// kept as one, the decoder says why).
    private enum FirstFrame { case onDevice(String?), inSoftware, none }

    /// Where `decoder`'s first frame was decoded; `.none` when no frame came within 300 packets
    /// (a broken file). The frame itself is dropped.
    private static func firstFrame(of asset: Asset, on decoder: VideoDecoder) -> FirstFrame {
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
            if case .frame(let frame) = decoder.receive() {
                guard decoder.lastFrameOnDevice == true else { return .inSoftware }
                return .onDevice(frame.prime.map { picture in
                    let layers = picture.descriptor.layers.map { "\($0.format)" }.joined(separator: "+")
                    let modifier = picture.descriptor.objects.first.map { String($0.modifier, radix: 16) } ?? "?"
                    return "kept as DRM PRIME \(layers), modifier 0x\(modifier), for the video plane (whether a plane takes it: the log while playing)"
                })
            }
            if packet == nil { break }
        }
        return .none
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
            if !stream.decodable { parts.append("(no decoder in this FFmpeg)") }
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
        }
        return lines.joined(separator: "\n")
    }
}
