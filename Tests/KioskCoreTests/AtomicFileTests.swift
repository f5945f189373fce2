import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The one temporary-fsync-rename writer: a file replaced whole, no temporary left behind, a
/// failure naming the step, the file and the system's reason.
@Suite struct AtomicFileTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test(arguments: [true, false])
    func replacesTheFileWholeAndLeavesNoTemporary(durable: Bool) throws {
        let path = directory + "/state.json"
        try AtomicFile.write("first, and longer than the second\n", to: path, durable: durable)
        try AtomicFile.write("second\n", to: path, durable: durable)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    @Test func aMissingDirectoryIsOneFailureNamingTheTemporaryAndTheReason() {
        let path = directory + "/missing/state.json"
        #expect {
            try AtomicFile.write([1, 2, 3], to: path)
        } throws: { error in
            "\(error)" == "cannot create \(path).tmp: No such file or directory"
        }
    }

    @Test func commitMovesAFinishedFileIntoPlaceAndRemovesItWhenItCannot() throws {
        let temporary = directory + "/.clip.mp4.part", target = directory + "/clip.mp4"
        FileManager.default.createFile(atPath: temporary, contents: Data("movie".utf8))
        try AtomicFile.commit(temporary, to: target)
        #expect(FileManager.default.contents(atPath: target) == Data("movie".utf8))
        #expect(!FileManager.default.fileExists(atPath: temporary))
        // A target that is a non-empty directory cannot be renamed over: the temporary goes.
        FileManager.default.createFile(atPath: temporary, contents: Data("again".utf8))
        try FileManager.default.createDirectory(atPath: directory + "/taken/inner", withIntermediateDirectories: true)
        #expect(throws: AtomicFile.Failure.self) { try AtomicFile.commit(temporary, to: directory + "/taken") }
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }
}
