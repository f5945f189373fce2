import ArgumentParser
import KioskCore
import KioskDisplay
import KioskMedia

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the frame at a given time as the display would show it, as a PNG.")

    @Argument(help: "A media file or URL.")
    var media: String

    @Option(help: "Screen mode, WxH (e.g. 1280x800), as the panel scans out.")
    var size: PixelSize

    @Option(help: "fit (resizeAspect), fill (resizeAspectFill) or stretch (resize).")
    var gravity: VideoGravity = .fit

    // Unconditional: "--at -1" is a value to refuse, not an option named "-1".
    @Option(parsing: .unconditional, help: "Media time in seconds.")
    var at: Double = 0

    @Option(help: "Display rotation, clockwise degrees: 0, 90, 180 or 270 (portrait screens).")
    var rotation: Int = 0

    @Option(name: .shortAndLong, help: "The PNG to write.")
    var output: String

    @OptionGroup var common: CommonOptions

    func validate() throws {
        try checkSeconds(at, option: "--at", allowingZero: true)
        try checkScreenSize(size, option: "--size")
        if PartialOutput.sameFile(media, output) {
            throw ValidationError("-o \(output) is the media file: it would be overwritten")
        }
        guard Rotation(degrees: rotation) != nil, (0..<360).contains(rotation) else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270")
        }
    }

    func run() throws {
        _ = common.makeLogger()
        if let still = try HeifStill.decodeIfHeif(media) { return try write(still) }
        let asset = try Asset(source: media)
        if let duration = asset.info.durationSeconds, at > duration {
            throw MediaError(source: media, reason: String(format: "--at %.3f s is past the end (%.3f s)", at, duration))
        }
        // A large JPEG still decodes at the smallest size still covering --size, as on a screen.
        let reader = try VideoFrameReader(asset: asset, stillScreen: size)
        guard let frame = try reader.frame(at: MediaTime(seconds: at)) else {
            throw MediaError(source: media, reason: "no picture could be decoded")
        }
        try write(frame)
    }

    /// Draws `frame` on a --size screen, as the player would, and writes it as a PNG.
    private func write(_ frame: DecodedFrame) throws {
        let displayRotation = Rotation(degrees: rotation)!
        // --size is the panel's mode, as scanned out; a turned screen gets the picture turned.
        let display = HeadlessDisplay(size: size, paced: false)
        let buffer = try display.backBuffer()
        let layout = Scaler.layout(for: frame, on: size, gravity: gravity, displayRotation: displayRotation)
        try Scaler().draw(frame, layout: layout, into: buffer)
        try PNGWriter.write(buffer, to: output)
    }
}
