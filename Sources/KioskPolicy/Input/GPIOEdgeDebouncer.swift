/// Which edges of a GPIO line fire its trigger, as pure logic over the kernel's timestamps.
///
/// The rule: an edge fires when it is the edge the trigger wants and the line was quiet (no
/// edge of either kind) for the debounce window before it. A press's contact bounces, and a
/// release's, are edges closer together than the window, so a press fires once, at its first
/// edge (no wait for the line to settle). Both edges are always read from the kernel so the
/// quiet time counts every change; `active_low` swaps what rising and falling mean here rather
/// than in the kernel, so libgpiod 1 and 2 read the same.
///
/// libgpiod 2 also debounces in the kernel (it then reports a change once the line has been
/// steady for the window); this rule still runs on what it reports, which is already quiet,
/// so a line behaves the same on Debian 12 (libgpiod 1, no kernel debounce) and 13.
public struct GPIOEdgeDebouncer: Sendable {
    public let edge: GPIOTriggerLine.Edge
    public let activeLow: Bool
    /// Seconds.
    public let window: Double
    /// The kernel's timestamp of the last edge seen, fired or not.
    private var lastEdge: Double?
    /// The pin's level after the last edge seen (true: high).
    private var lastLevel: Bool?

    public init(edge: GPIOTriggerLine.Edge, activeLow: Bool = false, window: Double) {
        self.edge = edge
        self.activeLow = activeLow
        self.window = max(0, window)
    }

    public init(_ line: GPIOTriggerLine) {
        self.init(edge: line.edge, activeLow: line.activeLow, window: line.debounce)
    }

    /// An edge the kernel reported: `rising` as the pin went (physical), at `time` seconds on
    /// the kernel's clock. True when it fires the trigger.
    public mutating func fires(rising: Bool, at time: Double) -> Bool {
        firedEdge(rising: rising, at: time) != nil
    }

    /// The edge that fired the trigger, as the trigger names edges (active low applied), or nil.
    /// For a one-edge trigger it is always that edge, also where the kernel named the edge it
    /// read late as its opposite (below): a log saying "rising" for a falling trigger would send
    /// an integrator looking for a wiring fault that is not there.
    public mutating func firedEdge(rising: Bool, at time: Double) -> GPIOTriggerLine.Edge? {
        // A timestamp going backwards (a clock the kernel changed) counts as quiet, not as a
        // bounce that would silence the line until the clock caught up.
        let quiet = lastEdge.map { time - $0 >= window || time < $0 } ?? true
        // An edge to the level the line already had: the edge away from it came first and was
        // not seen as such. With both edges requested the kernel names an edge by reading the
        // line when its handler runs, so on a busy box (or gpio-sim in a slow guest) a bounce's
        // first edge can be read after the next one and come as its opposite. That missed edge
        // is the one the quiet window saw first: it fires when it is the one wanted.
        let missedOpposite = lastLevel == rising
        lastEdge = time
        lastLevel = rising
        guard quiet else { return nil }
        let logicalRising = rising != activeLow
        switch edge {
        case .both: return logicalRising ? .rising : .falling
        case .rising: return logicalRising || missedOpposite ? .rising : nil
        case .falling: return !logicalRising || missedOpposite ? .falling : nil
        }
    }
}
