import Testing
@testable import KioskCore
@testable import KioskMedia

/// What a live item's open tells FFmpeg: the generic live options by scheme, then the item's own.
@Suite("Stream options: live opens and an item's transport and latency")
struct StreamOptionsTests {
    @Test func anItemsOwnOptionsGoOnlyToTheSchemeTheyMeanSomethingTo() {
        let options = StreamOptions(transport: .tcp, latency: MediaTime(value: 1, timescale: 4))
        #expect(options.ffmpegOptions(scheme: "rtsp").map { "\($0)=\($1)" } == ["rtsp_transport=tcp"])
        #expect(options.ffmpegOptions(scheme: "srt").map { "\($0)=\($1)" } == ["latency=250000"], "SRT's latency is in microseconds")
        #expect(options.ffmpegOptions(scheme: "udp").isEmpty)
        #expect(StreamOptions().ffmpegOptions(scheme: "rtsp").isEmpty)
    }

    @Test func liveSchemesProbeBrieflyAndUDPSurvivesAnOverrun() {
        let udp = Dictionary(uniqueKeysWithValues: NetworkOpenOptions.liveOptions(scheme: "udp"))
        #expect(udp["analyzeduration"] == "500000" && udp["fflags"] == "nobuffer")
        #expect(udp["overrun_nonfatal"] == "1" && udp["timeout"] == "2000000")
        let rtsp = Dictionary(uniqueKeysWithValues: NetworkOpenOptions.liveOptions(scheme: "rtsp"))
        #expect(rtsp["timeout"] == "2000000" && rtsp["overrun_nonfatal"] == nil)
    }
}
