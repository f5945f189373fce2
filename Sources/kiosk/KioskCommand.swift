import ArgumentParser
import Glibc
import KioskBasics
import KioskCore
import KioskMedia
import KioskService
import Logging

/// The `kiosk` command line. Exit codes are part of the public contract: 0 success,
/// 1 a media or runtime error, 2 a usage error.
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "A lean video player for Linux signage boxes: FFmpeg -> DRM/KMS, ALSA, evdev.",
        // The MQTT status's `version` too (KioskVersion).
        version: KioskVersion.text,
        subcommands: [RunCommand.self, CheckCommand.self, ScheduleCommand.self, PlayCommand.self, SnapshotCommand.self, BenchCommand.self, ProbeCommand.self, CtlCommand.self, CECCommand.self, ReportCommand.self, ComposeCommand.self, RecordCommand.self, SyncCommand.self, ManifestCommand.self, WebPasswordCommand.self])
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .notice

    /// Sets up logging to stderr (FFmpeg's own lines included at debug level) and returns the logger.
    func makeLogger(label: String = "kiosk") -> Logger {
        let level = logLevel
        // Every logger (the modules make their own) starts at the level asked for.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            // The web page's log keeps the last lines too (RecentLog).
            return MultiplexLogHandler([handler, RecentLogHandler(label: label, level: level)])
        }
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        FFmpegLog.route(to: logger)
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

extension VideoGravity: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

@main
enum Entry {
    static func main() {
        // First of all: a stop at any later moment must find kiosk ready for it (SignalHub.swift).
        SignalHub.shared.install()
        // Before any picture is allocated: decoded frames in mappings of their own (FrameHeap.swift).
        FrameHeap.holdMappingThreshold()
        do {
            var command = try KioskCommand.parseAsRoot()
            if command is RunCommand || command is PlayCommand || command is ComposeCommand || command is RecordCommand {
                SignalHub.shared.holdStops()
            } else {
                SignalHub.shared.exitOnStop()
            }
            try command.run()
            // Not a plain return: that would run the libraries' destructors beside threads
            // still closing their items (ExitGate.swift).
            leave(0)
        } catch let error as MediaError {
            fail("\(error)", code: 1)
        } catch let error as RuntimeFailure {
            fail("\(error)", code: 1)
        } catch let error as ConfigFailure {
            writeStandardError(error.text)
            leave(2)
        } catch {
            let code = KioskCommand.exitCode(for: error)
            let message = KioskCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                leave(0)
            }
            // ArgumentParser says 64 for usage errors; kiosk's contract says 2.
            fail(message, code: code == .validationFailure ? 2 : code.rawValue)
        }
    }

    /// Ends the process with `code` once the threads inside FFmpeg are done, at most 1 s
    /// (ExitGate.swift); one still running then is named, and the libraries' destructors are
    /// skipped (`_exit`) rather than run under it.
    static func leave(_ code: Int32) -> Never {
        let timeout = 1.0
        let running = ExitGate.waitForThreads(timeout: timeout)
        guard running.isEmpty else {
            let names = Dictionary(grouping: running, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted()
            writeStandardError("kiosk: \(running.count) worker threads still in a library call \(timeout) s after the stop "
                               + "(\(names.joined(separator: ", "))): ending without the libraries' destructors")
            fflush(nil)
            _exit(code)
        }
        exit(code)
    }

    static func fail(_ message: String, code: Int32) -> Never {
        if !message.isEmpty {
            writeStandardError(message.hasPrefix("Error:") || message.hasPrefix("kiosk:") ? message : "kiosk: \(message)")
        }
        leave(code)
    }
}

/// One line to stderr, unbuffered (the stdio `stderr` global is not concurrency-safe in Swift 6).
func writeStandardError(_ line: String) {
    var text = line
    if !text.hasSuffix("\n") { text += "\n" }
    text.utf8CString.withUnsafeBufferPointer { bytes in
        _ = Glibc.write(2, bytes.baseAddress, bytes.count - 1)
    }
}

/// A size given on the command line (`--size`): each side 1 to 16384 pixels, DRM's limit and
/// kiosk.conf's; larger is a typo that would ask for tens of gigabytes (it stopped kiosk with
/// a Swift allocation failure).
func checkScreenSize(_ size: PixelSize?, option: String) throws {
    guard let size else { return }
    guard (1...DisplaySpec.largestSide).contains(size.width), (1...DisplaySpec.largestSide).contains(size.height) else {
        throw ValidationError("\(option) \(size.width)x\(size.height): each side must be 1 to \(DisplaySpec.largestSide) pixels")
    }
}

/// Seconds given on the command line: a number above 0 (or 0 and above, `allowingZero`) and
/// under 1e12, kiosk.conf's bound (`inf` and `nan` parse as numbers; MediaTime's ticks of a
/// number past ~1e14 trap).
func checkSeconds(_ value: Double?, option: String, allowingZero: Bool = false) throws {
    guard let value else { return }
    guard value.isFinite, allowingZero ? value >= 0 : value > 0, value < 1e12 else {
        throw ValidationError("\(option) must be a number of seconds " + (allowingZero ? "from 0" : "more than 0") + " and under 1e12")
    }
}
