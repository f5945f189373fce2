import Testing
@testable import KioskPolicy

@Suite("HLS playlists read beside FFmpeg: the media sequence, segments, variants")
struct HLSPlaylistTests {
    @Test func aLiveMediaPlaylistGivesItsSequenceSegmentsAndTargetDuration() throws {
        let text = "#EXTM3U\r\n#EXT-X-VERSION:3\r\n#EXT-X-TARGETDURATION:2\r\n#EXT-X-MEDIA-SEQUENCE:18\r\n"
            + "#EXTINF:2.000000,\r\nlive00018.ts\r\n#EXTINF:2.000000,\r\nlive00019.ts\r\n\r\n#EXTINF:1.96,\r\n  live00020.ts  \r\n"
        let playlist = try #require(HLSPlaylist.parse(text))
        #expect(playlist == HLSPlaylist(mediaSequence: 18, segments: ["live00018.ts", "live00019.ts", "live00020.ts"], targetDuration: 2))
        #expect(playlist.lastSequence == 20)
        #expect(!playlist.hasEnded)
    }

    @Test func endlistAndAMissingSequenceTag() throws {
        let playlist = try #require(HLSPlaylist.parse("\u{FEFF}#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"))
        #expect(playlist.mediaSequence == 0 && playlist.segments == ["a.ts"] && playlist.hasEnded && playlist.targetDuration == 1)
        #expect(HLSPlaylist.parse("#EXTM3U\n")?.lastSequence == -1, "no segment: the one before the first")
    }

    @Test func aMasterPlaylistListsItsVariantsNotAsSegments() throws {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360\nlow/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=3000000\n/hi/index.m3u8\n"
        let playlist = try #require(HLSPlaylist.parse(text))
        #expect(playlist.variants == ["low/index.m3u8", "/hi/index.m3u8"] && playlist.segments.isEmpty)
    }

    /// FFmpeg tags the streams it plays with their variant's bandwidth: the looks follow that
    /// variant. `AVERAGE-BANDWIDTH` is another attribute, and a quoted value may hold commas.
    @Test func theVariantFFmpegPlaysIsFoundByItsBandwidthElseTheFirst() throws {
        let text = "#EXTM3U\n#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=700000,BANDWIDTH=800000,CODECS=\"avc1.4d401e,mp4a.40.2\"\nlow.m3u8\n"
            + "#EXT-X-STREAM-INF:CODECS=\"avc1.640028,BANDWIDTH=1\",BANDWIDTH=3000000\nhi.m3u8\n"
            + "#EXT-X-STREAM-INF:RESOLUTION=320x180\ntiny.m3u8\n"
        let playlist = try #require(HLSPlaylist.parse(text))
        #expect(playlist.variantBandwidths == [800000, 3000000, nil])
        #expect(playlist.variant(bandwidth: 3000000) == "hi.m3u8")
        #expect(playlist.variant(bandwidth: 800000) == "low.m3u8")
        #expect(playlist.variant(bandwidth: 1) == "low.m3u8", "no such variant: the first")
        #expect(playlist.variant(bandwidth: nil) == "low.m3u8")
        #expect(HLSPlaylist.parse("#EXTM3U\na.ts\n")?.variant(bandwidth: 1) == nil, "a media playlist has none")
    }

    @Test(arguments: ["", "garbage", "<html>404</html>", "#EXT-X-MEDIA-SEQUENCE:3\nlive3.ts"])
    func anythingElseIsNoPlaylist(text: String) {
        #expect(HLSPlaylist.parse(text) == nil)
    }

    @Test func aFractionalTargetDurationIsRoundedUpAndAnAbsurdSequenceIsNoPlaylist() throws {
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:6.0\na.ts\n")?.targetDuration == 6)
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:5.2\na.ts\n")?.targetDuration == 6)
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\na.ts\n") == nil, "no overflow: no playlist")
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:99999999999999999999\na.ts\n") == nil)
    }

    @Test func badTagValuesKeepTheDefaults() throws {
        let playlist = try #require(HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:x\n#EXT-X-TARGETDURATION:0\nseg.ts\n"))
        #expect(playlist.mediaSequence == 0 && playlist.targetDuration == 1 && playlist.segments == ["seg.ts"])
        #expect(HLSPlaylist.parse("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-4\nseg.ts\n") == nil, "a sequence that is no number: no playlist")
    }

    @Test(arguments: [
        ("low/index.m3u8", "http://cdn.example/live/master.m3u8?token=1", "http://cdn.example/live/low/index.m3u8"),
        ("/hi/index.m3u8", "https://cdn.example:8443/live/master.m3u8", "https://cdn.example:8443/hi/index.m3u8"),
        ("http://other.example/v.m3u8", "http://cdn.example/a.m3u8", "http://other.example/v.m3u8"),
        ("v.m3u8", "http://cdn.example", "http://cdn.example/v.m3u8"),
        ("v.m3u8?next=http://x", "http://cdn.example/live/m.m3u8", "http://cdn.example/live/v.m3u8?next=http://x"),
        ("//edge.example/v.m3u8", "https://cdn.example/m.m3u8", "https://edge.example/v.m3u8"),
    ])
    func referencesResolveAgainstThePlaylistURL(reference: String, base: String, resolved: String) {
        #expect(HLSPlaylist.resolve(reference, against: base) == resolved)
    }

    @Test func aReferenceAgainstNoURLIsNil() {
        #expect(HLSPlaylist.resolve("v.m3u8", against: "/srv/live.m3u8") == nil)
        #expect(HLSPlaylist.resolve("v.m3u8", against: "http:///x.m3u8") == nil)
    }
}

@Suite("HLS restarts told from rejoins by the playlist's media sequence")
struct HLSRestartWatchTests {
    static func playlist(_ first: Int, _ count: Int, target: Int = 1, prefix: String = "live") -> HLSPlaylist {
        HLSPlaylist(mediaSequence: first, segments: (first..<(first + count)).map { "\(prefix)\($0).ts" }, targetDuration: target)
    }

    /// A look before a reopen whose reopen succeeds.
    static func rejoin(_ watch: inout HLSRestartWatch, _ playlist: HLSPlaylist, at seconds: Double) -> HLSRestartWatch.Decision {
        let decision = watch.reconnecting(playlist, at: seconds)
        if decision == .wait { watch.waited(at: seconds) } else { watch.rejoined(playlist, at: seconds) }
        return decision
    }

    @Test func withNoLookBeforeAReconnectRejoinsAsTheSameTimeline() {
        var watch = HLSRestartWatch()
        #expect(Self.rejoin(&watch, Self.playlist(40, 4), at: 100) == .rejoin(newTimeline: false))
    }

    @Test func aPackagerRestartedFromZeroIsANewTimeline() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(14, 4), at: 100)   // segments 14-17
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 105) == .rejoin(newTimeline: true))
    }

    @Test func theSameStreamMovedOnIsTheSameTimelineHoweverLongAway() {
        for away in [0.5, 2.0, 3.5, 10.0, 300.0] {
            var watch = HLSRestartWatch()
            watch.played(Self.playlist(14, 4), at: 100)
            // One segment a second, its playlist written one late: at least floor(away) - 1 more.
            let advance = max(0, Int(away) - 1)
            #expect(Self.rejoin(&watch, Self.playlist(14 + advance, 4), at: 100 + away) == .rejoin(newTimeline: false), "away \(away) s")
        }
    }

    @Test func aPackagerThatStalledAndResumedItsNumberingIsTheSameTimeline() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(20, 4), at: 100)
        #expect(Self.rejoin(&watch, Self.playlist(20, 4), at: 104) == .rejoin(newTimeline: false))
        #expect(Self.rejoin(&watch, Self.playlist(20, 4), at: 106) == .wait)
        // A minute later it goes on from 24: the names it still lists are the ones it listed.
        #expect(Self.rejoin(&watch, Self.playlist(21, 4), at: 160) == .rejoin(newTimeline: false))
    }

    @Test func aRestartNumberedPastTheOldOneIsToldByItsNames() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2, prefix: "a"), at: 100)
        #expect(Self.rejoin(&watch, Self.playlist(0, 4, prefix: "b"), at: 108) == .rejoin(newTimeline: true))
    }

    @Test func aCachedPlaylistASegmentBehindIsNotARestart() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(14, 4), at: 100)
        #expect(Self.rejoin(&watch, Self.playlist(13, 4), at: 101) == .rejoin(newTimeline: false))
    }

    @Test func aShortLivedStreamRestartedWithTheSameNamesIsANewTimelineOnceTimeSaysSo() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 1), at: 100)
        // Seconds later its playlist is where it was: a continuing stream would be 5 on.
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 106) == .rejoin(newTimeline: true))
    }

    @Test func aDeadPackagersPlaylistLookedAtWhileItsLastSegmentsPlayIsNotARestart() {
        // Killed: FFmpeg plays the three segments it is behind, the looks find the playlist
        // standing still each second, and the reconnect comes after 2 s of silence. Counted
        // from its last change (4.5 s) it would pass for a restart and be replayed.
        var watch = HLSRestartWatch()
        for second in 100...103 { watch.played(Self.playlist(10, 4), at: Double(second)) }
        #expect(Self.rejoin(&watch, Self.playlist(10, 4), at: 105.5) == .rejoin(newTimeline: false))
        #expect(Self.rejoin(&watch, Self.playlist(10, 4), at: 106) == .wait)
    }

    @Test func aPlaylistGoneAndBackNotMovedOnIsARestart() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        // Too soon for the pace to tell (one segment back after 2 s), but the server said 404 between.
        #expect(watch.reconnecting(Self.playlist(0, 1), at: 102) == .rejoin(newTimeline: false))
        watch.vanished()
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 102.5) == .rejoin(newTimeline: true))
        // The same stream served again after a 404 has moved on: its names say it continues.
        var served = HLSRestartWatch()
        served.played(Self.playlist(10, 4), at: 100)
        served.vanished()
        #expect(Self.rejoin(&served, Self.playlist(12, 4), at: 103) == .rejoin(newTimeline: false))
    }

    @Test func aDeadPlaylistAServerFailsToFindNowAndThenIsReplayedTwiceNotAtEachFailure() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(10, 4), at: 100)
        var at = 100.0
        for replay in 0..<HLSRestartWatch.vanishingRejoinsBeforeDoubt {
            at += 5
            watch.vanished()
            #expect(Self.rejoin(&watch, Self.playlist(10, 4), at: at) == .rejoin(newTimeline: true), "taken for a restart: \(replay)")
            watch.packetsCame()                              // its segments, replayed
            watch.played(Self.playlist(10, 4), at: at + 1)   // the looks meanwhile find it as it was
        }
        watch.vanished()
        #expect(Self.rejoin(&watch, Self.playlist(10, 4), at: at + 5) == .rejoin(newTimeline: false), "judged by the other rules")
        #expect(Self.rejoin(&watch, Self.playlist(10, 4), at: at + 6) == .wait)
    }

    @Test func aRestartWhoseStreamWasNeverSeenToGrowIsARestartTwiceInARow() {
        // A packager restarted with the same names, each stream killed before a look saw it grow.
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        watch.vanished()
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 102) == .rejoin(newTimeline: true))
        watch.packetsCame()
        watch.played(Self.playlist(0, 1), at: 102.1)
        watch.vanished()
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 105) == .rejoin(newTimeline: true))
    }

    @Test func aPackagerRestartedAgainAndAgainWithTheSameNamesIsARestartEachTime() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        for restart in 0..<3 {
            let at = 102 + 4 * Double(restart)
            watch.vanished()
            #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: at) == .rejoin(newTimeline: true), "restart \(restart)")
            watch.packetsCame()
            watch.played(Self.playlist(0, 2), at: at + 1)   // it ran a second: the playlist moved on
        }
    }

    @Test func aLiveStreamLookedAtAgainWithinATargetDurationAfterA404IsNotARestart() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(10, 4, target: 6), at: 100)
        watch.vanished()
        #expect(Self.rejoin(&watch, Self.playlist(10, 4, target: 6), at: 103) == .rejoin(newTimeline: false))
    }

    @Test func aVanishingIsForgottenOncePacketsComeOrALookWhilePlayingIsMade() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        watch.vanished()
        watch.packetsCame()
        #expect(Self.rejoin(&watch, Self.playlist(0, 2), at: 101) == .rejoin(newTimeline: false))
        watch.vanished()
        // That rejoin brought nothing: a dead playlist, waited on, 404 or not.
        #expect(Self.rejoin(&watch, Self.playlist(0, 2), at: 102.5) == .wait)
        var looked = HLSRestartWatch()
        looked.played(Self.playlist(0, 2), at: 100)
        looked.vanished()
        looked.played(Self.playlist(0, 2), at: 101)
        // A segment back 1.5 s on: too soon for the pace, and the 404 was before the last look.
        #expect(looked.reconnecting(Self.playlist(0, 1), at: 102.5) == .rejoin(newTimeline: false))
    }

    @Test func aDeadPackagersPlaylistIsWaitedOnAfterOneRejoinUntilItChanges() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(20, 4), at: 100)
        let dead = Self.playlist(21, 4)
        #expect(Self.rejoin(&watch, dead, at: 103) == .rejoin(newTimeline: false), "the first rejoin is tried")
        #expect(Self.rejoin(&watch, dead, at: 106) == .wait)
        #expect(Self.rejoin(&watch, dead, at: 112) == .wait)
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 113) == .rejoin(newTimeline: true), "its restart")
    }

    @Test func aWaitEndsWithARejoinAfterTenSecondsOrThreeTargetDurations() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(20, 4, target: 6), at: 100)
        let same = Self.playlist(21, 4, target: 6)
        #expect(Self.rejoin(&watch, same, at: 103) == .rejoin(newTimeline: false))
        #expect(Self.rejoin(&watch, same, at: 104) == .wait)
        #expect(Self.rejoin(&watch, same, at: 121) == .wait, "17 s of 18")
        #expect(Self.rejoin(&watch, same, at: 122.5) == .rejoin(newTimeline: false), "a stale copy must not hold it for ever")
        #expect(Self.rejoin(&watch, same, at: 124) == .wait, "and the count starts again")
    }

    @Test func aReopenThatFailedIsDecidedAgainAtTheNextLook() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(14, 4), at: 100)
        // Decided a restart, but the reopen failed (nothing recorded): the next look decides the same.
        #expect(watch.reconnecting(Self.playlist(0, 1), at: 105) == .rejoin(newTimeline: true))
        #expect(watch.reconnecting(Self.playlist(0, 1), at: 105.5) == .rejoin(newTimeline: true))
    }

    @Test func packetsAfterARejoinEndTheWaitForAPlaylistLikeIt() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 104) == .rejoin(newTimeline: true))
        watch.played(Self.playlist(0, 2), at: 105)
        // Restarted again, its segments named as before: not the dead playlist of the last rejoin.
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 110) == .rejoin(newTimeline: true))
    }

    @Test func aRestartLikeTheLastRejoinsPlaylistIsNotWaitedOnOncePacketsCame() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(0, 2), at: 100)
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 104) == .rejoin(newTimeline: true))
        watch.packetsCame()   // it played a second, and died before a look while playing
        #expect(Self.rejoin(&watch, Self.playlist(0, 1), at: 110) == .rejoin(newTimeline: true))
    }

    @Test func longerSegmentsPaceTheExpectation() {
        var watch = HLSRestartWatch()
        watch.played(Self.playlist(100, 5, target: 6), at: 1000)
        // 12 s with 6 s segments: one more at least (a continuing stream), not a restart.
        #expect(Self.rejoin(&watch, Self.playlist(101, 5, target: 6), at: 1012) == .rejoin(newTimeline: false))
        // An hour on and three segments back: a restart.
        var later = HLSRestartWatch()
        later.played(Self.playlist(100, 5, target: 6), at: 1000)
        #expect(Self.rejoin(&later, Self.playlist(0, 3, target: 6), at: 4600) == .rejoin(newTimeline: true))
    }
}
