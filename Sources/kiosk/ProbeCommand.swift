import ArgumentParser
import Foundation
import KioskAudio
import KioskDisplay
import KioskGPIO
import KioskInput
import KioskMedia

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show what FFmpeg finds in a media file; with no file, the displays (DRM cards, connectors, modes, CRTCs, planes), GPIO chips, sound and input devices.")

    @Argument(help: "A media file or URL; leave out to list the hardware.")
    var media: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        _ = common.makeLogger()
        guard let media else { return try probeHardware() }
        // FFmpeg 5.1 cannot open HEIC: libheif reads its boxes (the picture is not decoded).
        let info = try HeifStill.handles(media) ? HeifStill.probe(media) : Asset(source: media).info
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(info), as: UTF8.self))
        } else {
            print(ProbeCommand.describe(info))
        }
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
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let layout = stream.channelLayout { parts.append(layout) } else if let channels = stream.channels { parts.append("\(channels) ch") }
            if let format = stream.sampleFormat { parts.append(format) }
            if let seconds = stream.durationSeconds { parts.append(String(format: "%.3f s", seconds)) }
            if stream.isDefaultChoice { parts.append("[default]") }
            lines.append(parts.joined(separator: ", ").replacingOccurrences(of: ": \(stream.kind.rawValue) \(stream.codecName),", with: ": \(stream.kind.rawValue) \(stream.codecName)"))
        }
        return lines.joined(separator: "\n")
    }
}
