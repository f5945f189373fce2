import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `playback.resume`'s pure parts: the state file's bytes, what is refused, finding the item
/// in a changed playlist, and the requests that take a player there.
@Suite struct ResumeStateTests {
    static let config = "/etc/kiosk/kiosk.conf"
    static let saved = ResumeState(config: config, index: 2, path: "/m/c.mp4", position: 12.5,
                                   saved: Date(timeIntervalSince1970: 1_795_435_200))

    @Test func encodingRoundTrips() throws {
        let data = Self.saved.encoded()
        #expect(data.last == 0x0A)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""path":"/m/c.mp4""#) && text.contains(#""format":"kiosk-resume""#))
        #expect(ResumeState.decode(data, config: Self.config) == .success(Self.saved))
    }

    @Test func aTornFileIsRefusedAtEveryCut() {
        let data = Self.saved.encoded()
        // Every prefix that is not the whole object (the newline aside) is torn or empty.
        for length in 0..<(data.count - 1) {
            let result = ResumeState.decode(data.prefix(length), config: Self.config)
            #expect(result == .failure(length == 0 ? .empty : .torn), "cut at \(length)")
        }
        #expect(ResumeState.decode(Data(repeating: 0, count: 64), config: Self.config) == .failure(.empty))
        #expect(ResumeState.decode(Data("garbage\n".utf8), config: Self.config) == .failure(.torn))
    }

    @Test func foreignFilesAreRefusedWithTheirReason() throws {
        func decoded(_ edit: (inout [String: Any]) -> Void) throws -> Result<ResumeState, ResumeState.Rejection> {
            var object = try #require(try JSONSerialization.jsonObject(with: Self.saved.encoded()) as? [String: Any])
            edit(&object)
            return ResumeState.decode(try JSONSerialization.data(withJSONObject: object), config: Self.config)
        }
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("not a kiosk resume file", { $0["format"] = "mpv-watch-later" }),
            ("not a kiosk resume file (format missing)", { $0.removeValue(forKey: "format") }),
            ("another kiosk version (format version 2, this kiosk reads 1)", { $0["version"] = 2 }),
            ("another configuration (/srv/other.conf)", { $0["config"] = "/srv/other.conf" }),
            ("its fields are not those of version 1", { $0["index"] = "two" }),
            ("out of range", { $0["position"] = -4 }),
        ]
        for (fragment, edit) in cases {
            guard case .failure(.foreign(let why)) = try decoded(edit) else {
                Issue.record("accepted: \(fragment)")
                continue
            }
            #expect(why.contains(fragment), "\(why)")
        }
        #expect(ResumeState.decode(Data("[1,2]".utf8), config: Self.config) == .failure(.torn))
    }

    @Test func theItemIsFoundByPathWithTheIndexAsTieBreaker() {
        func find(_ sources: [String], _ mode: ResumeMode = .position) -> ResumePoint? {
            ResumePoint.find(Self.saved, in: sources, mode: mode)
        }
        #expect(find(["/m/a.mp4", "/m/b.mp4", "/m/c.mp4"]) == .entry(index: 2, position: 12.5))
        #expect(find(["/m/a.mp4", "/m/b.mp4", "/m/c.mp4"], .item) == .entry(index: 2, position: nil))
        #expect(find(["/m/a.mp4", "/m/b.mp4", "/m/c.mp4"], .off) == nil)
        // An item added before it: found where it moved to.
        #expect(find(["/m/new.mp4", "/m/a.mp4", "/m/b.mp4", "/m/c.mp4"]) == .entry(index: 3, position: 12.5))
        // The same file twice: the one at the saved index, else the nearest (earlier on a tie).
        #expect(find(["/m/c.mp4", "/m/x.mp4", "/m/c.mp4", "/m/c.mp4"]) == .entry(index: 2, position: 12.5))
        #expect(find(["/m/x.mp4", "/m/c.mp4", "/m/y.mp4", "/m/c.mp4"]) == .entry(index: 1, position: 12.5))
        #expect(find(["/m/c.mp4", "/m/x.mp4", "/m/y.mp4", "/m/z.mp4", "/m/c.mp4"]) == .entry(index: 0, position: 12.5))
        // Gone (and an empty list).
        #expect(find(["/m/a.mp4", "/m/b.mp4"]) == .itemGone)
        #expect(find([]) == .itemGone)
    }

    @Test func thePlayerStartsAtTheSavedEntryAndPlaceAndSettlesWhenItBegins() {
        var start = ResumeStart(.entry(index: 2, position: 12.5))
        // Opened there, seeked before its first frame: no goto, no seek after the item's start.
        #expect(start.startPoint == PlaylistStartPoint(index: 2, position: MediaTime(seconds: 12.5, timescale: 1000)))
        #expect(!start.isSettled)
        start.itemStarted(index: 0)   // not the saved entry: the place is not reached yet
        #expect(!start.isSettled)
        start.itemStarted(index: 2)
        #expect(start.isSettled)
    }

    @Test func theFirstEntryStartsAtItsPlaceAndItemModeAtItsStart() {
        let first = ResumeStart(.entry(index: 0, position: 3))
        #expect(first.startPoint == PlaylistStartPoint(index: 0, position: MediaTime(seconds: 3, timescale: 1000)))
        var itemOnly = ResumeStart(.entry(index: 4, position: nil))
        #expect(itemOnly.startPoint == PlaylistStartPoint(index: 4, position: nil))
        itemOnly.itemStarted(index: 4)
        #expect(itemOnly.isSettled)
        for point in [nil, ResumePoint.itemGone] {
            let none = ResumeStart(point)
            #expect(none.isSettled && none.startPoint == nil)
        }
        var refused = ResumeStart(.entry(index: 1, position: 8))
        refused.giveUp()
        #expect(refused.isSettled)
    }
}
