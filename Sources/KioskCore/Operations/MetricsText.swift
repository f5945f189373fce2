import Foundation

/// Prometheus' text exposition format (`text/plain; version=0.0.4`), what node_exporter's
/// textfile collector and a Prometheus scrape both read: for each family a `# HELP` and a
/// `# TYPE` line, then its samples, `name{label="value"} number`. Written by hand rather than
/// with a client library: the format is a page long, and no Swift client library is packaged
/// for Debian.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case gauge, counter
    }

    public struct Sample: Sendable, Equatable {
        public var labels: [(name: String, value: String)]
        public var value: Double

        public init(_ value: Double, labels: [(name: String, value: String)] = []) {
            self.labels = labels
            self.value = value
        }

        public static func == (a: Sample, b: Sample) -> Bool {
            a.value == b.value && a.labels.map(\.name) == b.labels.map(\.name) && a.labels.map(\.value) == b.labels.map(\.value)
        }
    }

    /// `kiosk_frames_presented_total`: base units in the name (`_seconds`, `_bytes`,
    /// `_celsius`), `_total` on counters.
    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(_ name: String, _ kind: Kind, help: String, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    public init(_ name: String, _ kind: Kind, help: String, value: Double) {
        self.init(name, kind, help: help, samples: [Sample(value)])
    }
}

public enum MetricsText {
    /// The exposition of `families`, in their order; a family with no samples is left out
    /// (a value that is unknown is absent, not 0).
    public static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families where !family.samples.isEmpty {
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                text += family.name
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.name)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
                }
                text += " \(number(sample.value))\n"
            }
        }
        return text
    }

    /// Whole numbers without a fraction or exponent (counters read as they are), others as
    /// Swift prints them (shortest round-trip), and the format's NaN, +Inf, -Inf.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabel(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A HELP text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
