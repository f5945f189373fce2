/// Keeps a live stream's buffered media within [latency, latency + 0.5 s] (#35's clock) without
/// a seek: a sender whose clock runs fast fills kiosk's queues a few seconds a day (a crystal
/// 50 ppm off: 4.3 s), one that runs slow empties them into a rebuffer, and a pause leaves the
/// picture behind the live edge for good. Outside the band the item plays 1 % faster or slower
/// (its sound resampled, swresample's compensation; frames dropped or held by the pacer as the
/// clock goes) until it is back inside, past a quarter of the band from the edge it crossed.
///
/// Judged on the least buffered over the last `window`: what arrives in bursts (a whole HLS
/// segment at once, a jittery network) swings the buffer up and back, and only its floor says
/// how far behind the live edge the picture is. Nothing is decided until a window has passed
/// since the stream (re)started to play.
public struct LiveLatencySteering: Sendable {
    public enum Pace: Sendable, Equatable {
        case normal, faster, slower

        /// The sound's compensation for it, in parts per million of its length (positive: played longer).
        public var soundCompensationPPM: Int {
            switch self {
            case .normal: 0
            case .faster: -LiveLatencySteering.correctionPPM
            case .slower: LiveLatencySteering.correctionPPM
            }
        }

        /// The clock's rate factor for it, where no sound leads the clock.
        public var clockFactor: Rational {
            switch self {
            case .normal: Rational(1, 1)
            case .faster: Rational(Int64(1_000_000 + LiveLatencySteering.correctionPPM), 1_000_000)
            case .slower: Rational(Int64(1_000_000 - LiveLatencySteering.correctionPPM), 1_000_000)
            }
        }
    }

    public static let correctionPPM = 10_000
    public static let band = MediaTime(value: 1, timescale: 2)
    public static let window = MediaTime(value: 10, timescale: 1)
    /// Samples closer together than this are one.
    static let sampleSpacing = MediaTime(value: 1, timescale: 10)

    public let latency: MediaTime
    public private(set) var pace = Pace.normal
    private var samples: [(at: MediaTime, buffered: MediaTime)] = []
    private var since: MediaTime?

    public init(latency: MediaTime) { self.latency = latency }

    /// The least buffered over the last window, once a window has passed (else nil).
    public var floor: MediaTime? {
        guard let since, let last = samples.last, last.at - since >= Self.window else { return nil }
        return samples.map(\.buffered).min()
    }

    /// The stream stopped playing on (it waits for data, a seek, a loss): its buffer starts
    /// afresh, at the normal pace. Returns `.normal` when the pace changes.
    public mutating func restart() -> Pace? {
        samples.removeAll()
        since = nil
        return change(to: .normal)
    }

    /// What is buffered ahead of the clock at `host` while the stream plays; returns the new
    /// pace when it changes.
    public mutating func observe(buffered: MediaTime, atHost host: MediaTime) -> Pace? {
        if since == nil { since = host }
        if let last = samples.last, host - last.at < Self.sampleSpacing {
            samples[samples.count - 1].buffered = Swift.min(last.buffered, buffered)
        } else {
            samples.append((host, buffered))
        }
        samples.removeAll { host - $0.at > Self.window }
        guard let floor else { return nil }
        let quarter = Self.band * Rational(1, 4)
        switch pace {
        case .normal where floor > latency + Self.band: return change(to: .faster)
        case .normal where floor < latency: return change(to: .slower)
        case .faster where floor <= latency + Self.band - quarter: return change(to: .normal)
        case .slower where floor >= latency + quarter: return change(to: .normal)
        default: return nil
        }
    }

    private mutating func change(to new: Pace) -> Pace? {
        guard new != pace else { return nil }
        pace = new
        return new
    }
}
