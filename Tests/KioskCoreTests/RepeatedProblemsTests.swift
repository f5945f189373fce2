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
        #expect(said == [false, true], "a new problem is said at once")
        // The one of two fixed is said gone while the other stays (nothing said so before).
        #expect(end == RepeatedProblems.Gone(lines: ["b: sha256 is x, not y"], remaining: 2))
        #expect(end.map(RepeatedProblems.goneLine) == "not seen in this pass: 'b: sha256 is x, not y'; 2 problems remain")
        end = problems.endPass()
        #expect(end == RepeatedProblems.Gone(lines: ["a: 404", "c: cannot connect"], remaining: 0))
        #expect(end.map(RepeatedProblems.goneLine) == "no problem in this pass; the 2 said before are gone")
        end = problems.endPass()
        #expect(end == nil, "and only once")
        said = [problems.shouldSay("a: 404")]
        #expect(said == [true], "back after a good pass: said again")
    }

    @Test func libcurlsTimingsDoNotMakeALineNew() {
        var problems = RepeatedProblems()
        let first = problems.shouldSay("u: Failed to connect to h port 443 after 3 ms: Couldn't connect to server; the current set plays on")
        let stall = problems.shouldSay("f: stalled (Operation timed out after 10001 milliseconds with 512 out of 2048 bytes received)")
        _ = problems.endPass()
        let again = problems.shouldSay("u: Failed to connect to h port 443 after 0 ms: Couldn't connect to server; the current set plays on")
        let stallAgain = problems.shouldSay("f: stalled (Operation timed out after 10002 milliseconds with 900 out of 2048 bytes received)")
        let otherPort = problems.shouldSay("u: Failed to connect to h port 8443 after 1 ms: Couldn't connect to server; the current set plays on")
        let otherStatus = problems.shouldSay("m: HTTP 503; the current set plays on")
        #expect(first && stall && !again && !stallAgain)
        #expect(otherPort && otherStatus, "a port or a status is not a timing")
        #expect(RepeatedProblems.withoutTimings("HTTP 404 after 5 ms") == "HTTP 404 after N ms")
        // Gone, it is quoted as first said.
        _ = problems.endPass()
        #expect(problems.shouldSay("u: Failed to connect to h port 443 after 7 ms: Couldn't connect to server; the current set plays on") == false)
        #expect(problems.endPass()?.lines == ["f: stalled (Operation timed out after 10001 milliseconds with 512 out of 2048 bytes received)",
                                              "u: Failed to connect to h port 8443 after 1 ms: Couldn't connect to server; the current set plays on",
                                              "m: HTTP 503; the current set plays on"])
    }
}
