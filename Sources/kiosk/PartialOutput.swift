import Foundation
import Glibc
import KioskCore
import KioskMedia
import KioskService
import SystemPackage

/// A file written under a temporary name beside its final one (`PartialFile`) and renamed
/// into place with rename(2) only when complete; removed on failure or a stop. `kiosk compose`
/// and `kiosk record` write through it, so a watched folder never sees half a file.
final class PartialOutput {
    let path: String
    let temporaryPath: String
    private var settled = false

    /// Checks that `path`'s directory is there and writable; the temporary file is not made yet.
    init(path: String) throws {
        self.path = path
        temporaryPath = PartialFile.temporaryPath(for: path)
        let directory = PartialFile.directory(of: path)
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw RuntimeFailure("\(path): cannot write: no such directory \(directory)")
        }
        guard access(directory, W_OK) == 0 else {
            throw RuntimeFailure("\(path): cannot write into \(directory): \(Errno(rawValue: errno).description)")
        }
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw RuntimeFailure("\(path): is a directory")
        }
    }

    /// Runs `body` with the temporary path, then moves the file into place; on any error the
    /// temporary file is removed (an encoder's or muxer's error becomes the one-line failure).
    func produce<T>(_ body: (String) throws -> T) throws -> T {
        do {
            let value = try body(temporaryPath)
            try commit()
            return value
        } catch let error as EncoderError {
            discard()
            throw RuntimeFailure("\(error)")
        } catch {
            discard()
            throw error
        }
    }

    /// Moves the complete file into place, durably (`AtomicFile`: a power cut right after
    /// leaves the whole file or none).
    func commit() throws {
        do {
            try AtomicFile.commit(temporaryPath, to: path)
        } catch {
            discard()
            throw RuntimeFailure("\(path): cannot put the finished file into place: \(error)")
        }
        settled = true
    }

    /// Removes the temporary file (a failure, a stop before the end).
    func discard() {
        guard !settled else { return }
        unlink(temporaryPath)
        settled = true
    }

    deinit { discard() }

    /// Whether `a` and `b` name the same file (the same path, or the same inode).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        if stat(a, &first) == 0, stat(b, &second) == 0 {
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        return URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }
}

/// The progress line on stderr: rewritten in place with `\r` on a terminal, one line each
/// time otherwise (logs), at most four times a second.
struct ProgressReporter {
    private var line: ProgressLine
    private let isTerminal = isatty(2) == 1

    init(label: String, total: Double) {
        line = ProgressLine(label: label, total: total)
    }

    mutating func update(_ done: Double) {
        guard let text = line.text(done: done, now: ProcessInfo.processInfo.systemUptime) else { return }
        write(text)
    }

    mutating func finish(_ done: Double) {
        guard let text = line.text(done: done, now: ProcessInfo.processInfo.systemUptime, final: true) else { return }
        write(text)
        if isTerminal { writeStandardError("") }
    }

    private func write(_ text: String) {
        if isTerminal {
            ("\r" + text).utf8CString.withUnsafeBufferPointer { _ = Glibc.write(2, $0.baseAddress, $0.count - 1) }
        } else {
            writeStandardError(text)
        }
    }
}
