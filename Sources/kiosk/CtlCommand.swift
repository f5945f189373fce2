import ArgumentParser
import Foundation
import KioskControl
import KioskCore
import KioskService

/// `kiosk ctl`: the shell client of the control socket. Prints the reply's data (plain for
/// scalars, JSON otherwise); exit 0 on success, 1 on an error reply, 2 on a usage or
/// connection problem. `kiosk ctl watch` prints event lines until interrupted.
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send a command to a running kiosk's control socket (see `kiosk ctl commands`).",
        discussion: """
            Examples: kiosk ctl pause; kiosk ctl seek 30; kiosk ctl seek -5 relative;
            kiosk ctl get time_control_status; kiosk ctl load a.mp4 b.mp4; kiosk ctl screenshot now.png;
            kiosk ctl trigger welcome (a trigger of kiosk.conf); kiosk ctl cap alert.xml (a CAP alert, as alerts.cap takes it);
            kiosk ctl watch
            """)

    @Option(help: "The control socket; default: control.socket of --config.")
    var socket: String?

    @Option(help: "The configuration file whose control.socket to use.")
    var config: String = "/etc/kiosk/kiosk.conf"

    @Argument(parsing: .captureForPassthrough, help: "A command and its arguments, or watch.")
    var words: [String] = []

    func validate() throws {
        // Everything after the first word is passed through (so `seek -5` works), --help too.
        if let first = words.first, first == "--help" || first == "-h" { throw CleanExit.helpRequest(self) }
        guard !words.isEmpty else { throw ValidationError("give a command, such as pause, seek 30, get time, or watch") }
    }

    func run() throws {
        let path = try socketPath()
        do {
            let client = try ControlClient(path: path)
            if words == ["watch"] {
                // Unbuffered, so a pipe sees each event as it comes.
                while let line = try client.readLine() { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
                return
            }
            var arguments = Array(words.dropFirst())
            // Relative paths mean the caller's directory, not kiosk's.
            if words[0] == "load" || words[0] == "screenshot" { arguments = arguments.map(Self.absolute) }
            // A CAP file is read here and its text sent: kiosk never opens a path a client names for it.
            if words[0] == "cap", arguments.count == 1 { arguments = [try Self.capText(arguments[0])] }
            let reply = try client.request([words[0]] + arguments)
            guard reply["error"] == .string("success") else {
                writeStandardError("kiosk ctl: \(reply["error"]?.plainText ?? reply.json)")
                throw ExitCode(1)
            }
            // A property without a value (duration while nothing plays) prints null, as the socket
            // says it: nothing at all read as an empty value in scripts.
            if let data = reply["data"], data != .null || words[0] == "get" { print(data.plainText) }
        } catch let error as ControlSocketError {
            throw ConfigFailure(text: "kiosk ctl: \(error)")   // exit 2, without the usage text
        }
    }

    private func socketPath() throws -> String {
        if let socket { return socket }
        let settings: KioskConfig
        do {
            settings = try ConfigLoader.load(path: config)
        } catch {
            throw ConfigFailure(text: "kiosk ctl: no --socket, and \(config) cannot be read for control.socket:\n\(error)")
        }
        guard let path = settings.control.socketPath else {
            throw ConfigFailure(text: "kiosk ctl: no --socket, and \(config) sets control.socket to none")
        }
        return path
    }

    static func capText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigFailure(text: "kiosk ctl: cannot read \(path): \(ReportCommand.reason(path))")
        }
        // The socket takes lines of 64 KiB; a bigger feed is served to alerts.cap.url instead.
        guard data.count < 60 * 1024 else {
            throw ConfigFailure(text: "kiosk ctl: \(path) is \(data.count) bytes, over the 60 KiB a command line carries; serve it at alerts.cap.url")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func absolute(_ source: String) -> String {
        // An empty source stays empty, for kiosk to refuse ("source 1 is empty"): made
        // absolute, it was the working directory, and `load ""` played every file in it.
        if source.isEmpty || source.hasPrefix("/") || source.contains("://") { return source }
        return FileManager.default.currentDirectoryPath + "/" + source
    }
}
