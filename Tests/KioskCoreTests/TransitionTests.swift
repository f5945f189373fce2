import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Transitions at seams (issue 22): kiosk.conf's forms and bad values, each flip's look through
/// a fade and a crossfade, when one may still be decided, the sound's envelope, and the pixel
/// mix exact to the nearest 1/255.
@Suite("Transitions: config, looks, sound envelope, pixel mix")
struct TransitionTests {
    private func parse(_ yaml: String) throws(ConfigError) -> KioskConfig {
        try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: []))
    }

    private func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value, timescale: 1000) }

    // MARK: Config

    @Test func cutIsTheDefault() throws {
        let config = try parse("items: [a.mp4]\n")
        #expect(config.playback.transition == .cut)
        #expect(config.items[0].transition == nil)
    }

    @Test func theShortFormNamesTheKindAtItsDefaultLength() throws {
        let config = try parse("playback: {transition: fade}\nitems: [a.mp4]\n")
        #expect(config.playback.transition == Transition(kind: .fade, duration: MediaTime(value: 4, timescale: 5)))
    }

    @Test func theMapFormAndAnItemsOwn() throws {
        let config = try parse("""
            playback:
              transition: {type: crossfade, duration: 1.5}
            items:
              - a.mp4
              - {path: b.mp4, transition: cut}
              - {path: c.mp4, transition: {type: fade, duration: 2}}
            """)
        #expect(config.playback.transition == Transition(kind: .crossfade, duration: MediaTime(value: 3, timescale: 2)))
        #expect(config.items[0].transition == nil)
        #expect(config.items[1].transition == .cut)
        #expect(config.items[2].transition == Transition(kind: .fade, duration: MediaTime(value: 2, timescale: 1)))
    }

    static let badValues: [ConfigErrorCase] = [
        ConfigErrorCase(afterItems: "playback: {transition: dissolve}\n", line: 2, column: 24,
                        fragment: "'transition' in playback is the string 'dissolve'; expected one of: cut, fade, crossfade"),
        ConfigErrorCase(afterItems: "playback: {transition: {type: fade, duration: 0}}\n", line: 2, column: 47,
                        fragment: "'duration' in 'transition' in playback is 0; expected seconds from 0.1 to 10"),
        ConfigErrorCase(afterItems: "playback: {transition: {type: fade, duration: 30}}\n", line: 2, column: 47,
                        fragment: "'duration' in 'transition' in playback is 30; expected seconds from 0.1 to 10"),
        ConfigErrorCase(afterItems: "playback: {transition: {duration: 1}}\n", line: 2, column: 24,
                        fragment: "'transition' in playback has no 'type'; expected type: followed by one of: cut, fade, crossfade"),
        ConfigErrorCase(afterItems: "playback: {transition: {type: fade, lenght: 1}}\n", line: 2, column: 37,
                        fragment: "unknown key 'lenght' in 'transition' in playback; expected one of: type, duration"),
        ConfigErrorCase(name: "an item's transition", yaml: "items:\n  - {path: a.mp4, transition: crossfed}\n",
                        line: 2, column: 31,
                        fragment: "'transition' in item 1 is the string 'crossfed'; expected one of: cut, fade, crossfade (did you mean 'crossfade'?)"),
    ]

    @Test func aWrongTypeAndAWrongDurationAreBothSaid() throws {
        // `kiosk check` lists every error: the duration was said only once the type was right.
        let diagnostics = parseDiagnostics("items: [a.mp4]\nplayback: {transition: {type: wipe, duration: 20}}\n", files: ["a.mp4"])
        #expect(diagnostics.map(\.message).contains { $0.contains("'type' in 'transition' in playback is the string 'wipe'") },
                "\(diagnostics)")
        #expect(diagnostics.map(\.message).contains { $0.contains("is 20; expected seconds from 0.1 to 10") }, "\(diagnostics)")
    }

    // MARK: Looks

    @Test func aCrossfadeRaisesTheIncomingPictureOverItsLength() {
        let schedule = TransitionSchedule(entry: Transition(kind: .crossfade, duration: seconds(1)))
        #expect(schedule.look(at: seconds(-0.01)) == TransitionLook(incoming: 0, level: 255))
        #expect(schedule.look(at: .zero) == TransitionLook(incoming: 0, level: 255))
        #expect(schedule.look(at: seconds(0.5)) == TransitionLook(incoming: 128, level: 255))   // 127.5 rounds up
        #expect(schedule.look(at: seconds(0.25)).incoming == 64)
        #expect(schedule.look(at: seconds(1)) == .plain)
        #expect(schedule.look(at: seconds(5)) == .plain)
    }

    @Test func aFadeGoesOutOverTheLastHalfAndInOverTheFirst() {
        var schedule = TransitionSchedule(entry: Transition(kind: .fade, duration: seconds(1)))
        #expect(schedule.look(at: .zero).level == 0)
        #expect(schedule.look(at: seconds(0.25)).level == 128)
        #expect(schedule.look(at: seconds(0.5)) == .plain)
        schedule.exit = .init(duration: seconds(2), end: seconds(10))   // the next item fades in over 1 s; this one out over its last 1 s
        #expect(schedule.look(at: seconds(8.9)) == .plain)
        #expect(schedule.look(at: seconds(9.5)).level == 128)
        #expect(schedule.look(at: seconds(10)).level == 0)
        #expect(schedule.look(at: seconds(9.5)).incoming == 255)
    }

    @Test func aShortItemTakesTheDarkerOfItsFadeInAndOut() {
        var schedule = TransitionSchedule(entry: Transition(kind: .fade, duration: seconds(2)))
        schedule.exit = .init(duration: seconds(2), end: seconds(1.5))
        // In: 0.5/1 = 128; out: (1.5 - 0.5)/1 = 255: the in wins. At 1.0: in 255, out 128.
        #expect(schedule.look(at: seconds(0.5)).level == 128)
        #expect(schedule.look(at: seconds(1.0)).level == 128)
    }

    /// A clock that went back after a stall (it restarts at the frame it waited for) must not
    /// take the entry back with it: the entry's look follows where the entry stands, the exit's
    /// the clock (CI on the vkms bed showed a crossfade's mix 250, plain, then 209).
    @Test func theEntryFollowsWhereItStandsTheExitTheClock() {
        var schedule = TransitionSchedule(entry: Transition(kind: .crossfade, duration: seconds(2)))
        schedule.exit = .init(duration: seconds(1), end: seconds(2.5))
        // The clock at 1.6 s, the entry already drawn at 1.9 s: its mix stays at 1.9's.
        #expect(schedule.look(at: seconds(1.6), entryAt: seconds(1.9)).incoming == schedule.look(at: seconds(1.9)).incoming)
        #expect(schedule.look(at: seconds(1.6), entryAt: seconds(1.9)).incoming > schedule.look(at: seconds(1.6)).incoming)
        // The exit (fading out from 2.0 s) follows the clock, not the entry.
        #expect(schedule.look(at: seconds(1.6), entryAt: seconds(2.3)).level == 255)
        #expect(schedule.look(at: seconds(2.25), entryAt: seconds(1.9)).level == 128)
        #expect(schedule.isMoving(at: seconds(5), entryAt: seconds(1)))
    }

    @Test func anEntryIsOverOnceItsLookIsThePlainPicture() {
        let crossfade = TransitionSchedule(entry: Transition(kind: .crossfade, duration: seconds(10)))
        #expect(!crossfade.entryIsOver(at: seconds(9.9)))
        // 254.5 of 255 rounds to the plain picture a little before the length.
        #expect(crossfade.entryIsOver(at: seconds(9.99)))
        #expect(crossfade.entryIsOver(at: seconds(12)))
        let fade = TransitionSchedule(entry: Transition(kind: .fade, duration: seconds(2)))
        #expect(!fade.entryIsOver(at: seconds(0.9)) && fade.entryIsOver(at: seconds(1)))
        #expect(TransitionSchedule().entryIsOver(at: .zero))
    }

    @Test func theScreenRefreshesOnlyAroundATransition() {
        var schedule = TransitionSchedule(entry: Transition(kind: .fade, duration: seconds(1)))
        #expect(schedule.isMoving(at: seconds(0.3)))
        #expect(schedule.isMoving(at: seconds(0.55)))   // the plain picture's flip after it
        #expect(!schedule.isMoving(at: seconds(0.7)))
        schedule.exit = .init(duration: seconds(1), end: seconds(10))
        #expect(!schedule.isMoving(at: seconds(9)))
        #expect(schedule.isMoving(at: seconds(9.45)))
        #expect(!TransitionSchedule().isMoving(at: .zero))
        #expect(TransitionSchedule(entry: .cut).entry == nil)
    }

    @Test func aTransitionIsDecidedOnlyWithTimeForTheSoundToFollow() {
        let fade = Transition(kind: .fade, duration: seconds(1)), crossfade = Transition(kind: .crossfade, duration: seconds(1))
        let lead = seconds(1)
        // The fade-out starts at 9.5: decided at 8.5 at the latest.
        #expect(TransitionSchedule.mayCommit(fade, position: seconds(8.5), end: seconds(10), lead: lead))
        #expect(!TransitionSchedule.mayCommit(fade, position: seconds(8.6), end: seconds(10), lead: lead))
        #expect(TransitionSchedule.mayCommit(crossfade, position: seconds(9), end: seconds(10), lead: lead))
        #expect(!TransitionSchedule.mayCommit(crossfade, position: seconds(9.5), end: seconds(10), lead: lead))
        #expect(!TransitionSchedule.mayCommit(fade, position: .zero, end: nil, lead: lead))   // a stream: no end known
        #expect(!TransitionSchedule.mayCommit(.cut, position: .zero, end: seconds(10), lead: lead))
    }

    @Test func theNextItemOpensEarlyEnoughForItsTransitionToBeDecided() {
        let base = seconds(3), lead = seconds(1), end = seconds(20)
        #expect(TransitionSchedule.openingLead(for: .cut, base: base, lead: lead) == base)
        for transition in [Transition(kind: .crossfade, duration: seconds(4)), Transition(kind: .fade, duration: seconds(4)),
                           Transition(kind: .fade, duration: Transition.longest), Transition(kind: .crossfade, duration: Transition.shortest)] {
            let opened = end - TransitionSchedule.openingLead(for: transition, base: base, lead: lead)
            // A first frame decoded `base` after the opening, as long as a cut gets, still commits;
            // a moment later it does not (the lead is no longer than it needs to be).
            #expect(TransitionSchedule.mayCommit(transition, position: opened + base, end: end, lead: lead), "\(transition)")
            #expect(!TransitionSchedule.mayCommit(transition, position: opened + base + seconds(0.01), end: end, lead: lead), "\(transition)")
        }
    }

    // MARK: Sound

    @Test func theEnvelopeRisesAfterTheStartAndFallsBeforeTheEnd() {
        var envelope = SoundEnvelope()
        #expect(envelope.isEmpty && envelope.gain(at: seconds(3)) == 1)
        envelope.fadeIn = .init(start: seconds(2), length: seconds(1))
        envelope.fadeOut = .init(start: seconds(10), length: seconds(0.5))
        #expect(envelope.gain(at: seconds(1)) == 0)
        #expect(envelope.gain(at: seconds(2.25)) == 0.25)
        #expect(envelope.gain(at: seconds(5)) == 1)
        #expect(envelope.gain(at: seconds(9.75)) == 0.5)
        #expect(envelope.gain(at: seconds(10.5)) == 0)
    }

    @Test func aChunkIsScaledFrameByFrameByItsMediaTime() {
        var envelope = SoundEnvelope()
        envelope.fadeIn = .init(start: .zero, length: MediaTime(value: 4, timescale: 1000))   // 4 ms: 4 frames at 1 kHz
        let format = AudioFormat(sampleFormat: .s16, sampleRate: 1000, channels: 2)
        let samples: [Int16] = Array(repeating: 1000, count: 12)   // 6 frames, both channels
        var chunk = PCMChunk(bytes: samples.withUnsafeBytes { Array($0) }, frameCount: 6, startTime: .zero)
        envelope.apply(to: &chunk, format: format)
        let scaled = chunk.bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(scaled == [0, 0, 250, 250, 500, 500, 750, 750, 1000, 1000, 1000, 1000])
        // A chunk past both ramps is left untouched.
        var later = PCMChunk(bytes: samples.withUnsafeBytes { Array($0) }, frameCount: 6, startTime: seconds(1))
        envelope.apply(to: &later, format: format)
        #expect(later.bytes == samples.withUnsafeBytes { Array($0) })
    }

    // MARK: Pixels

    private func buffer(_ pixels: [UInt32]) -> (PixelBuffer, UnsafeMutablePointer<UInt32>) {
        let memory = UnsafeMutablePointer<UInt32>.allocate(capacity: pixels.count)
        memory.initialize(from: pixels, count: pixels.count)
        return (PixelBuffer(base: UnsafeMutableRawPointer(memory), size: PixelSize(width: pixels.count, height: 1),
                            stride: pixels.count * 4, index: 0), memory)
    }

    @Test(arguments: [0, 1, 64, 127, 128, 200, 254, 255])
    func aMixIsTheNearestToTheExactBlend(_ weight: Int) {
        // Every channel value against a few others, at each weight.
        let values: [UInt32] = (0...255).map { UInt32($0) }
        let incoming = values.map { $0 << 16 | (255 - $0) << 8 | $0 }
        let outgoing = values.map { (255 - $0) << 16 | $0 << 8 | ($0 * 7) % 256 }
        let (picture, p) = buffer(incoming), (held, h) = buffer(outgoing), (target, t) = buffer(Array(repeating: 0, count: 256))
        defer { p.deallocate(); h.deallocate(); t.deallocate() }
        target.mix(picture, over: held, look: TransitionLook(incoming: weight, level: 255))
        for x in 0..<256 {
            for shift in [16, 8, 0] as [UInt32] {
                let a = Double((incoming[x] >> shift) & 0xFF), b = Double((outgoing[x] >> shift) & 0xFF)
                let exact = (a * Double(weight) + b * Double(255 - weight)) / 255
                let got = Double((target.pixel(x: x, y: 0) >> shift) & 0xFF)
                #expect(abs(got - exact) <= 0.5, "x \(x), channel \(shift), weight \(weight)")
                #expect(got >= min(a, b), "darker than both sources at x \(x)")
            }
        }
    }

    @Test func aFadeScalesThePictureTowardsBlack() {
        let (picture, p) = buffer([0x00FF_8040, 0x0010_2030]), (target, t) = buffer([0, 0])
        defer { p.deallocate(); t.deallocate() }
        target.mix(picture, over: nil, look: TransitionLook(incoming: 255, level: 128))
        #expect(target.pixel(x: 0, y: 0) == 0x0080_4020)   // 255·128/255 = 128, 128·128/255 = 64.25, 64·128/255 = 32.1
        #expect(target.pixel(x: 1, y: 0) == 0x0008_1018)
        target.mix(picture, over: nil, look: TransitionLook(incoming: 255, level: 0))
        #expect(target.pixel(x: 0, y: 0) == 0)
        target.mix(picture, over: nil, look: .plain)
        #expect(target.pixel(x: 0, y: 0) == 0x00FF_8040)
    }
}
