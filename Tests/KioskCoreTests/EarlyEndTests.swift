import Testing
@testable import KioskPolicy

/// A file that ends well before its header's length is said (`EarlyEnd`); one that ends where
/// it says, give or take a second or a tenth, is not.
@Suite struct EarlyEndTests {
    @Test func aFileCutShortIsSaidWithWhereItEnds() throws {
        let line = try #require(EarlyEnd.line(source: "/media/menu.mp4", reached: 0.68, promised: 3))
        #expect(line == "/media/menu.mp4: the file ends at 0.68 s of the 3.0 s its header promises "
                + "(cut short: a copy or a download that did not finish?); played to where it ends")
        #expect(EarlyEnd.line(source: "a", reached: 1800, promised: 3723.5)?.contains("ends at 30:00 of the 1:02:04") == true)
        #expect(EarlyEnd.line(source: "a", reached: -1, promised: 5)?.contains("ends at 0.0 s") == true)
    }

    @Test func anEndWithinASecondOrATenthIsTheFilesLength() {
        #expect(EarlyEnd.line(source: "a", reached: 2.1, promised: 3) == nil, "a second short: a header's rounding")
        #expect(EarlyEnd.line(source: "a", reached: 3600 - 300, promised: 3600) == nil, "under a tenth of an hour")
        #expect(EarlyEnd.line(source: "a", reached: 3600 - 400, promised: 3600) != nil)
        #expect(EarlyEnd.line(source: "a", reached: 12, promised: 10) == nil, "longer than promised is not short")
        #expect(EarlyEnd.line(source: "a", reached: 0, promised: .infinity) == nil)
        #expect(EarlyEnd.line(source: "a", reached: 0, promised: 0) == nil)
    }
}
