import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `playback.decoder_threads: auto`: threads by picture size, never more than FFmpeg's own
/// choice (cores + 1, one on a single core), above 1080p never more than the cores, at least
/// one; a number is taken
/// as it is; 0 is FFmpeg's choice.
@Suite struct DecoderThreadsTests {
    @Test(arguments: [
        (640, 360, 2, 2), (1280, 720, 2, 2), (1280, 720, 8, 2),
        (1920, 1080, 2, 3), (1920, 1080, 4, 4), (1920, 1080, 8, 4), (1920, 1088, 8, 4),
        (3840, 2160, 2, 2), (3840, 2160, 4, 4), (3840, 2160, 16, 8), (7680, 4320, 64, 8),
        (2560, 1440, 2, 2), (3840, 2160, 1, 1), (3840, 2160, 0, 1),
        (1280, 720, 1, 1), (1920, 1080, 1, 1), (1920, 1080, 0, 1),
    ])
    func autoFollowsTheTable(width: Int, height: Int, cores: Int, threads: Int) {
        #expect(DecoderThreads.auto.count(width: width, height: height, cores: cores) == threads)
    }

    @Test func aSizeTheContainerDoesNotSayIsFFmpegsChoice() {
        #expect(DecoderThreads.auto.count(width: nil, height: 1080, cores: 4) == 0)
        #expect(DecoderThreads.auto.count(width: 0, height: 0, cores: 4) == 0)
    }

    @Test func aNumberIsTakenAsItIs() {
        #expect(DecoderThreads.fixed(3).count(width: 3840, height: 2160, cores: 2) == 3)
        #expect(DecoderThreads.fixed(0).count(width: 640, height: 360, cores: 8) == 0)
    }

    @Test func kioskConfReadsAutoOrANumber() throws {
        let disk = FakeFileSystem(files: [])
        func parse(_ value: String) throws -> DecoderThreads {
            try ConfigLoader.parse(text: "playback: {decoder_threads: \(value)}\nitems: [a.mp4]\n", fileName: "kiosk.conf",
                                   baseDirectory: "/srv", fileSystem: disk).playback.decoderThreads
        }
        #expect(try parse("auto") == .auto)
        #expect(try parse("3") == .fixed(3))
        #expect(try parse("16") == .fixed(16))
        #expect(try ConfigLoader.parse(text: "items: [a.mp4]\n", fileName: "kiosk.conf", baseDirectory: "/srv",
                                       fileSystem: disk).playback.decoderThreads == .auto)
        for bad in ["0", "17", "many", "2.5", "\"4\""] {
            do {
                _ = try parse(bad)
                Issue.record("decoder_threads: \(bad) was taken")
            } catch {
                #expect("\(error)".contains("'decoder_threads' in playback is"), "\(error)")
                #expect("\(error)".contains("expected auto or a whole number from 1 to 16"), "\(error)")
            }
        }
    }
}
