import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Test func mediaTimeArithmeticIsExact() {
    let frame30 = MediaTime(value: 1001, timescale: 30000)
    var t = MediaTime.zero
    for _ in 0..<30000 { t += frame30 }
    #expect(t == MediaTime(value: 1001, timescale: 1))
    let a = MediaTime(value: 1, timescale: 3)
    let b = MediaTime(value: 1, timescale: 7)
    #expect(a + b == MediaTime(value: 10, timescale: 21))
    #expect(a - b == MediaTime(value: 4, timescale: 21))
    #expect((a - a) == .zero)
}

@Test func mediaTimeComparesAcrossTimescales() {
    #expect(MediaTime(value: 1, timescale: 3) > MediaTime(value: 33, timescale: 100))
    #expect(MediaTime(value: 2, timescale: 4) == MediaTime(value: 1, timescale: 2))
    #expect(Set([MediaTime(value: 2, timescale: 4), MediaTime(value: 1, timescale: 2)]).count == 1)
    #expect(MediaTime(seconds: 1.5).seconds == 1.5)
    #expect(MediaTime(seconds: 99).clamped(to: .zero...MediaTime(value: 10, timescale: 1)) == MediaTime(value: 10, timescale: 1))
}

@Test func mediaTimeFromTicksAndBack() {
    let tb = Rational(1, 90000)
    let t = MediaTime(ticks: 180_000, timeBase: tb)
    #expect(t.seconds == 2)
    #expect(t.ticks(in: Rational(1, 1000)) == 2000)
    let ntsc = MediaTime(ticks: 3, timeBase: Rational(1001, 30000))
    #expect(ntsc == MediaTime(value: 3003, timescale: 30000))
    #expect(MediaTime(value: 1, timescale: 2) * Rational(2, 1) == MediaTime(value: 1, timescale: 1))
    #expect(MediaTime(value: 3, timescale: 1) * Rational(1, 4) == MediaTime(value: 3, timescale: 4))
}

@Test func mediaTimeMixedTimescalesStayExactWithinInt32() {
    // 1/48000 (audio) plus 1/90000 (video) share 1/720000.
    let sum = MediaTime(value: 1, timescale: 48000) + MediaTime(value: 1, timescale: 90000)
    #expect(sum == MediaTime(value: 23, timescale: 720000))
}
