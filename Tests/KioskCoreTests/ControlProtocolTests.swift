import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func command(_ line: String) throws -> ControlCommand { try ControlRequestParser.parse(line).command }

/// The error text for `line`, which must be refused.
private func refusal(_ line: String) -> String {
    do {
        let request = try ControlRequestParser.parse(line)
        return "accepted: \(request.command)"
    } catch {
        return error.description
    }
}

@Test func parsesArrayAndBareNameForms() throws {
    let request = try ControlRequestParser.parse(#"{"command": ["seek", 30, "relative"], "request_id": 7}"#)
    #expect(request.command == .request(.skip(by: MediaTime(seconds: 30))))
    #expect(request.requestID == .integer(7))
    #expect(try command(#"{"command": "pause"}"#) == .request(.pause))
    #expect(try ControlRequestParser.parse(#"{"command": "pause"}"#).requestID == nil)
    #expect(try command(#"{"command": ["play"]}"#) == .request(.play))
    #expect(try command(#"{"command": ["toggle"]}"#) == .request(.togglePlayPause))
    #expect(try command(#"{"command": ["next"]}"#) == .request(.nextItem))
    #expect(try command(#"{"command": ["previous"]}"#) == .request(.previousItem))
    #expect(try command(#"{"command": ["commands"]}"#) == .commands)
}

@Test func parsesEveryCommandsArguments() throws {
    #expect(try command(#"{"command": ["seek", 12.5]}"#) == .request(.seek(to: MediaTime(seconds: 12.5))))
    #expect(try command(#"{"command": ["seek", "-5", "relative"]}"#) == .request(.skip(by: MediaTime(seconds: -5))))
    #expect(try command(#"{"command": ["goto", 2]}"#) == .request(.goto(index: 2)))
    #expect(try command(#"{"command": ["goto", "3"]}"#) == .request(.goto(index: 3)))
    #expect(try command(#"{"command": ["load", "a.mp4", "clips/"]}"#) == .load(sources: ["a.mp4", "clips/"]))
    #expect(try command(#"{"command": ["volume", 40]}"#) == .request(.setVolume(40)))
    #expect(try command(#"{"command": ["mute"]}"#) == .request(.setMuted(true)))
    #expect(try command(#"{"command": ["mute", false]}"#) == .request(.setMuted(false)))
    #expect(try command(#"{"command": ["mute", "toggle"]}"#) == .request(.toggleMute))
    // As yes/no and on/off are, 1 and 0 (a switch's, a home automation's).
    #expect(try command(#"{"command": ["mute", 1]}"#) == .request(.setMuted(true)))
    #expect(try command(#"{"command": ["mute", "0"]}"#) == .request(.setMuted(false)))
    #expect(try command(#"{"command": ["rate", 1.5]}"#) == .request(.setSpeed(Rational(3, 2))))
    #expect(try command(#"{"command": ["rate", "0.25"]}"#) == .request(.setSpeed(Rational(1, 4))))
    #expect(try command(#"{"command": ["get", "time_control_status"]}"#) == .get(.timeControlStatus))
    #expect(try command(#"{"command": ["observe", "frames_presented"]}"#) == .observe(.framesPresented))
    #expect(try command(#"{"command": ["unobserve", "volume"]}"#) == .unobserve(.volume))
}

@Test func echoesAnyRequestIDEvenOnErrors() throws {
    #expect(try ControlRequestParser.parse(#"{"command":"play","request_id":"abc"}"#).requestID == .string("abc"))
    do {
        _ = try ControlRequestParser.parse(#"{"command":["volume", 400],"request_id":9}"#)
        Issue.record("volume 400 was accepted")
    } catch {
        #expect(error.requestID == .integer(9))
        #expect(error.description.contains("out of range"))
    }
}

@Test func refusesMalformedJSON() {
    #expect(refusal("").hasPrefix("malformed JSON"))
    #expect(refusal("{\"command\": [\"pause\"]").hasPrefix("malformed JSON"))
    #expect(refusal("pause").hasPrefix("malformed JSON"))
    #expect(refusal("\u{0}\u{1}garbage").hasPrefix("malformed JSON"))
}

@Test func refusesMalformedRequests() {
    #expect(refusal("[\"pause\"]").contains("expected a JSON object"))
    #expect(refusal("42").contains("expected a JSON object"))
    #expect(refusal(#"{"request_id": 1}"#).contains("no \"command\""))
    #expect(refusal(#"{"command": 5}"#).contains("must be an array or a string"))
    #expect(refusal(#"{"command": []}"#).contains("is empty"))
    #expect(refusal(#"{"command": [7]}"#).contains("command name must be a string"))
}

@Test func refusesUnknownCommandsAndProperties() {
    let unknown = refusal(#"{"command": ["explode"]}"#)
    #expect(unknown.contains("unknown command \"explode\""))
    #expect(unknown.contains("seek"))   // lists what exists
    #expect(refusal(#"{"command": ["get", "colour"]}"#).contains("unknown property \"colour\""))
}

@Test func refusesWrongArgumentTypes() {
    #expect(refusal(#"{"command": ["seek", "soon"]}"#) == "seek: seconds must be a number, got a string \"soon\"")
    #expect(refusal(#"{"command": ["seek", true]}"#).contains("seconds must be a number, got a boolean"))
    #expect(refusal(#"{"command": ["seek", "1e999"]}"#) == "seek: seconds must be a finite number, got \"1e999\"", "a number, too large")
    #expect(refusal(#"{"command": ["seek", 3, "sideways"]}"#).contains("mode must be absolute or relative"))
    #expect(refusal(#"{"command": ["seek", 3, 4]}"#).contains("mode must be a string"))
    #expect(refusal(#"{"command": ["goto", 1.5]}"#).contains("index must be a whole number"))
    #expect(refusal(#"{"command": ["goto", null]}"#).hasSuffix("index must be a number, got null"))
    #expect(refusal(#"{"command": ["volume", "0x10"]}"#).contains("volume must be a number, got a string"), "hexadecimal is not taken")
    #expect(refusal(#"{"command": ["volume", [1]]}"#).contains("volume must be a number, got an array"))
    #expect(refusal(#"{"command": ["mute", 2]}"#).contains("true, false or toggle"))
    #expect(refusal(#"{"command": ["load", 3]}"#).contains("source must be a string"))
    #expect(refusal(#"{"command": ["load", ""]}"#).contains("source 1 is empty"))
    #expect(refusal(#"{"command": ["load", "a.mp4", "b.mp4\u0000.png"]}"#).contains("source 2 contains a NUL"))
    #expect(refusal(#"{"command": ["get", {"a": 1}]}"#).contains("property must be a string, got an object"))
}

@Test func refusesWrongArgumentCounts() {
    #expect(refusal(#"{"command": ["pause", 1]}"#) == "pause: takes 0 arguments, got 1")
    #expect(refusal(#"{"command": ["seek"]}"#).contains("takes 1 to 2 arguments (<seconds> [absolute|relative]), got 0"))
    #expect(refusal(#"{"command": ["goto"]}"#).contains("takes 1 to 2 arguments"))
    #expect(refusal(#"{"command": ["load"]}"#).contains("needs at least one source"))
    #expect(refusal(#"{"command": ["get"]}"#).contains("takes 1 argument"))
}

@Test func refusesValuesOutOfRange() {
    #expect(refusal(#"{"command": ["volume", 101]}"#).contains("volume 101 is out of range"))
    #expect(refusal(#"{"command": ["volume", -1]}"#).contains("out of range"))
    #expect(refusal(#"{"command": ["rate", 5]}"#).contains("rate 5.0 is out of range: use 0.25...4"))
    #expect(refusal(#"{"command": ["rate", 0]}"#).contains("out of range"))
    // A number beyond Int64 once trapped converting to a fraction: refused like any other.
    #expect(refusal(#"{"command": ["rate", 1e300]}"#).contains("out of range"))
    #expect(refusal(#"{"command": ["rate", -1e300]}"#).contains("out of range"))
    #expect(refusal(#"{"command": ["goto", -1]}"#).contains("index -1 is out of range"))
    #expect(refusal(#"{"command": ["goto", 1, -2]}"#).contains("seconds -2.0 is out of range"))
    #expect(refusal(#"{"command": ["goto", 1, "soon"]}"#).contains("seconds must be a number"))
    #expect(refusal(#"{"command": ["goto", 1, 2, 3]}"#).contains("takes"))
    #expect(refusal(#"{"command": ["seek", 1e300]}"#).contains("out of range"))
}

@Test func encodesRepliesAndEventsAsOneLineOfJSON() {
    #expect(ControlMessage.success(.string("paused"), requestID: .integer(7)).json
            == #"{"request_id":7,"error":"success","data":"paused"}"#)
    #expect(ControlMessage.success(.null, requestID: nil).json == #"{"error":"success","data":null}"#)
    #expect(ControlMessage.failure("seek: \"x\"\n", requestID: .string("a")).json
            == #"{"request_id":"a","error":"seek: \"x\"\n"}"#)
    #expect(ControlMessage.event(.itemStarted, item: 0, time: 12.5).json == #"{"event":"item_started","item":0,"time":12.5}"#)
    #expect(ControlMessage.event(.time, item: nil, time: 2).json == #"{"event":"time","item":null,"time":2.0}"#)
    #expect(ControlValue.number(.nan).json == "null")
    #expect(ControlValue.number(0.000001).json == "0.000001")
    #expect(ControlValue.number(-2.5).json == "-2.5")
    #expect(ControlValue.number(3).json == "3.0")
    #expect(ControlValue.string("tab\there \u{1}").json == #""tab\there \u0001""#)
    // What the server writes, a client parses back to the same value.
    let round = ControlMessage.event(.seek, item: 3, time: 1.25, [("target", .number(1.25))])
    #expect(ControlValue.parse(round.json) == .object([("event", .string("seek")), ("item", .integer(3)),
                                                      ("target", .number(1.25)), ("time", .number(1.25))]))
}

@Test func namesEndedItemsByTheIndexTheyStartedWith() {
    var names = ControlEventNames()
    let clip = PlayerItemReference(serial: 4, name: "/m/a.mp4")
    let started = names.event(for: .itemStarted(clip), current: 2, time: 0)
    #expect(started?["event"] == .string("item_started"))
    #expect(started?["item"] == .integer(2))
    // The engine reports the end once the next item (index 3) is current.
    let ended = names.event(for: .itemEnded(clip), current: 3, time: 0.04)
    #expect(ended?["item"] == .integer(2))
    #expect(names.event(for: .volumeChanged(3), current: 3, time: 0) == nil)
    let waiting = names.event(for: .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .buffering),
                              current: 3, time: 1)
    #expect(waiting?["time_control_status"] == .string("waitingToPlayAtSpecifiedRate"))
    #expect(waiting?["reason"] == .string("buffering"))
}

@Test func screenshotTakesOneAbsoluteFilePath() throws {
    #expect(try command(#"{"command": ["screenshot", "/var/lib/kiosk/now.png"]}"#) == .screenshot(path: "/var/lib/kiosk/now.png"))
    #expect(refusal(#"{"command": ["screenshot", "now.png"]}"#).contains("screenshot: path must be absolute"))
    #expect(refusal(#"{"command": ["screenshot", "/tmp/"]}"#).contains("names a directory"))
    #expect(refusal(#"{"command": ["screenshot", "/tmp/a\u0000b.png"]}"#).contains("NUL"))
    #expect(refusal(#"{"command": ["screenshot"]}"#).contains("takes 1 argument (<absolute path.png>), got 0"))
    #expect(refusal(#"{"command": ["screenshot", 5]}"#).contains("path must be a string"))
}

@Test func parsesLayerCommands() throws {
    #expect(try command(#"{"command": ["layer", "show", "logo"]}"#) == .request(.layer(name: "logo", .show)))
    #expect(try command(#"{"command": ["layer", "hide", "logo"]}"#) == .request(.layer(name: "logo", .hide)))
    #expect(try command(#"{"command": ["layer", "text", "news", "Closed today"]}"#) == .request(.layer(name: "news", .text("Closed today"))))
    #expect(refusal(#"{"command": ["layer", "blink", "logo"]}"#).contains("action must be show, hide or text"))
    #expect(refusal(#"{"command": ["layer", "text", "news"]}"#).contains("takes 3 arguments"))
    #expect(refusal(#"{"command": ["layer", "show", "logo", "x"]}"#).contains("takes 2 arguments"))
    #expect(refusal(#"{"command": ["layer", "show", ""]}"#).contains("name is empty"))
    #expect(PlayerRequest.layer(name: "x", .show).isPlaylistRequest, "the engine carries it out, not PlaybackState")
    #expect(TimelineSteering.refusal(of: .layer(name: "x", .hide)) == nil)
}
