import ArgumentParser
import Foundation
import KioskService

/// `kiosk web-password`: the Argon2id line for kiosk.conf's `web.password_hash`, from a password
/// read on standard input (never an argument: it would stay in the shell's history and `ps`).
struct WebPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-password",
        abstract: "Print the web.password_hash line for a password read from standard input.")

    func run() throws {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("no password on standard input: echo it in, or type it and press Enter")
        }
        guard line.count >= 8 else { throw ValidationError("the password has \(line.count) characters; use at least 8") }
        guard let hash = WebPasswordHash.make(line) else { throw ExitCode.failure }
        print("web:\n  password_hash: '\(hash)'")
    }
}
