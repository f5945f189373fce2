import Testing
@testable import KioskPolicy

/// A periodic service's problems are said once per outage (`RepeatedProblems`).
@Suite struct RepeatedProblemsTests {
    @Test func theSameProblemsPassAfterPassAreSaidOnceAndTheirEndOnce() {
        var problems = RepeatedProblems()
        var said = [problems.shouldSay("a: 404"), problems.shouldSay("b: sha256 is x, not y")]
        var end = problems.endPass()
        #expect(said == [true, true] && end == nil)
        for _ in 0..<5 {   // the same two, poll after poll: nothing said again
            said = [problems.shouldSay("a: 404"), problems.shouldSay("b: sha256 is x, not y")]
            end = problems.endPass()
            #expect(said == [false, false] && end == nil)
        }
        said = [problems.shouldSay("a: 404"), problems.shouldSay("c: cannot connect")]
        end = problems.endPass()
        #expect(said == [false, true] && end == nil, "a new problem is said at once")
        end = problems.endPass()
        #expect(end == 2, "a pass without problems says the two before are gone")
        end = problems.endPass()
        #expect(end == nil, "and only once")
        said = [problems.shouldSay("a: 404")]
        #expect(said == [true], "back after a good pass: said again")
    }
}
