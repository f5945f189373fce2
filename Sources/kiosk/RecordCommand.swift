import ArgumentParser
import Foundation
import Glibc
import KioskAudio
import KioskCore
import KioskMedia
import KioskService

/// `kiosk record --device /dev/video0 --duration 30 -o library/clip.mp4`.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a V4L2 capture device (webcam, HDMI grabber) to an mp4 (H.264, AAC with --audio).",
        discussion: """
        Written under a hidden temporary name in the output's directory (.NAME.part) and renamed \
        when complete, so a watched folder never plays half a file. SIGINT or SIGTERM stop early \
        and keep what was recorded, finished and playable. The length is the device's timestamps', \
        not the wall clock's.
        """)

    @Option(help: "The capture device, e.g. /dev/video0.")
    var device: String

    @Option(help: "An ALSA capture PCM to record the sound from (hw:1,0, plughw:1,0, a PCM name); none by default.")
    var audio: String?

    @Option(help: "Seconds to record (by the frames' timestamps).")
    var duration: Double

    @Option(name: .shortAndLong, help: "The mp4 to write.")
    var output: String

    @OptionGroup var common: CommonOptions

    func validate() throws {
        try checkSeconds(duration, option: "--duration")
        guard !device.isEmpty else { throw ValidationError("--device names a capture device, e.g. /dev/video0") }
    }

    func run() throws {
        let logger = common.makeLogger()
        let path = device.hasPrefix("/") ? device : FileManager.default.currentDirectoryPath + "/" + device
        let file = try PartialOutput(path: output)
        let recorder = try Recorder(device: path)
        // alsa-lib's own lines (a missing card) go to the debug log: kiosk says it in one line.
        if audio != nil { ALSALog.route(to: logger) }
        let sound = try audio.map { try AudioCapture(pcm: $0) }
        sound?.start()
        defer { sound?.stop() }
        let interrupt = recorder.interrupt
        let watcher = SignalWatcher(stop: { _ in interrupt.cancel() }, reload: nil)
        defer { withExtendedLifetime(watcher) {} }
        var reporter = ProgressReporter(label: "record", total: duration)
        let result = try file.produce { path in
            try recorder.record(to: path, duration: duration, audio: sound, shouldStop: { SignalHub.shared.stopRequested },
                                progress: { reporter.update($0) })
        }
        reporter.finish(result.seconds)
        logger.notice("record: \(output): \(result.frames) frames, \(String(format: "%.2f", result.seconds)) s, \(result.size)\(sound?.alignment.map { "; sound lined up \($0)" } ?? "")")
    }
}
