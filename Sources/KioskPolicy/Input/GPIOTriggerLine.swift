/// A trigger's `gpio:` in kiosk.conf: one GPIO line read through libgpiod (a button, a PIR
/// motion sensor), as `{chip: gpiochip0, line: 3, edge: falling, debounce: 0.05}` says.
public struct GPIOTriggerLine: Sendable, Equatable, CustomStringConvertible {
    /// Which line of the chip: its offset, or the name the board gives it (`GPIO17`).
    public enum Line: Sendable, Equatable, CustomStringConvertible {
        case offset(Int)
        case name(String)

        public var description: String {
            switch self {
            case .offset(let offset): "line \(offset)"
            case .name(let name): "line '\(name)'"
            }
        }
    }

    /// Which change of the line fires: `falling` (default: a button pulls its pin to ground),
    /// `rising` (a PIR sensor's output going high) or `both`.
    public enum Edge: String, Sendable, Equatable, CaseIterable {
        case rising, falling, both
    }

    public static let defaultDebounce = 0.05
    /// The longest debounce accepted: a second already swallows a visitor's second press.
    public static let longestDebounce = 1.0

    /// `chip`: a name (`gpiochip0`), a path (`/dev/gpiochip0`) or the chip's label
    /// (`pinctrl-bcm2711`), as `kiosk probe` lists them.
    public var chip: String
    public var line: Line
    public var edge: Edge
    /// `debounce`, seconds: edges closer than this to the one before are bounces (0..1).
    public var debounce: Double
    /// `active_low`: the line reads 1 when its pin is low, so `rising` means the pin fell.
    public var activeLow: Bool

    public init(chip: String, line: Line, edge: Edge = .falling, debounce: Double = Self.defaultDebounce,
                activeLow: Bool = false) {
        self.chip = chip
        self.line = line
        self.edge = edge
        self.debounce = debounce
        self.activeLow = activeLow
    }

    /// "gpiochip0 line 3", as log lines name it.
    public var description: String { "\(chip) \(line)" }
}
