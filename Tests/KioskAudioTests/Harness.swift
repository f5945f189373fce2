import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import KioskTestSupport

/// ALSA configuration for the tests: `kiosktest`, a plug PCM whose slave is fixed to a format,
/// rate and channel count and records into a file through ALSA's `file` plugin (with the
/// `null` PCM behind it: no sound card needed, and it never blocks). alsa.conf loads
/// $XDG_CONFIG_HOME/alsa/asoundrc, so pointing that variable at a temporary directory adds the
/// definition to the system configuration without touching the user's ~/.asoundrc.
enum ALSATestConfig {
    static let asoundrc = """
    pcm.kiosktest {
        @args [ FILE CHANNELS RATE FORMAT ]
        @args.FILE { type string }
        @args.CHANNELS { type integer default 2 }
        @args.RATE { type integer default 48000 }
        @args.FORMAT { type string default S16_LE }
        type plug
        slave {
            pcm { type file slave.pcm null file $FILE format raw }
            channels $CHANNELS
            rate $RATE
            format $FORMAT
        }
    }
    """

    /// Installs the configuration; every test touching ALSA calls this first (alsa-lib reads
    /// its configuration once, at the first open).
    static let installed: Void = {
        let home = MediaFixtures.directory.appendingPathComponent("xdg").path
        try? FileManager.default.createDirectory(atPath: home + "/alsa", withIntermediateDirectories: true)
        try? asoundrc.write(toFile: home + "/alsa/asoundrc", atomically: true, encoding: .utf8)
        setenv("XDG_CONFIG_HOME", home, 1)
    }()

    /// A `kiosktest` PCM name recording to `file` with the device fixed to these parameters.
    static func device(recordingTo file: String, channels: Int = 2, rate: Int = 48_000, format: String = "S16_LE") -> String {
        _ = installed
        return "kiosktest:FILE=\(file),CHANNELS=\(channels),RATE=\(rate),FORMAT=\(format)"
    }
}

/// Plays a clip through an output the way the engine will: the calling thread converts and
/// pushes chunks into a `PCMQueue`, a dedicated thread runs the `AudioWriter`.
struct PlaybackRun {
    var requested = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channels: 2)
    var rate: Rational = .one
    var volume = 100
    var isMuted = false
    /// No keep-alive silence: the file plugin's null device takes samples as fast as they
    /// come, so the writer outruns the decoder all the time, which on a real device would be
    /// nothing but a full buffer.
    var writerOptions = AudioWriter.Options(keepAliveWithSilence: false)

    struct Result {
        var format: AudioFormat
        var statistics: AudioWriterStatistics
        var lastReport: AudioClockReport?
    }

    /// Returns once everything is written and the output drained and closed.
    func play(_ clip: String, through output: AudioOutput, whilePlaying: ((AudioWriter) -> Void)? = nil) throws -> Result {
        let format = try output.configure(requested)
        let queue = PCMQueue(format: format)
        let writer = AudioWriter(output: output, queue: queue, options: writerOptions, volume: volume, isMuted: isMuted)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            writer.run()
            finished.signal()
        }
        thread.start()
        let reader = try AudioSampleReader(asset: Asset(source: clip), output: format, rate: rate)
        while let chunk = try reader.nextChunk() { queue.push(chunk) }
        whilePlaying?(writer)
        while queue.queuedFrames > 0 { Thread.sleep(forTimeInterval: 0.002) }
        writer.stop()
        finished.wait()
        // The writer thread is done: the output is this thread's now.
        try output.drain()
        output.close()
        return Result(format: format, statistics: writer.currentStatistics, lastReport: writer.lastReport)
    }
}

/// A recording's channels and where the sound is.
struct Recording {
    let channels: [[Float]]
    let format: AudioFormat

    init(file: String, format: AudioFormat) throws {
        self.format = format
        channels = Signal.channels(of: try Signal.readFile(file), format: format.sampleFormat, channelCount: format.channels)
    }

    /// Seconds between the first and last audible frame of `channel`.
    func soundingSeconds(channel: Int = 0) -> Double {
        Double(Signal.soundingRange(channels[channel]).count) / Double(format.sampleRate)
    }

    /// The audible part of `channel`, minus `margin` frames each side (ramps, filter edges).
    func steadyPart(channel: Int = 0, margin: Int = 2400) -> [Float] {
        let range = Signal.soundingRange(channels[channel])
        guard range.count > 2 * margin else { return [] }
        return Array(channels[channel][(range.lowerBound + margin)..<(range.upperBound - margin)])
    }
}
