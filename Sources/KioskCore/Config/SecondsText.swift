import Foundation

/// Reads a number of seconds exactly, so "0.1" is 1/10 s and not the nearest double:
/// `10`, `2.5`, `1_000`, `1:30` (m:ss), `1:02:03.5` (h:mm:ss), `-3`; exponents (`1e3`) go
/// through Double. nil for anything else, including infinities and NaN.
enum SecondsText {
    /// Nine fraction digits at most: the timescale 10^9 still fits MediaTime's Int32.
    static let maximumFractionDigits = 9
    /// Seconds at most (exclusive), however written: past ~1e14 MediaTime's ticks overflow.
    static let bound = 1e12

    static func parse(_ text: String) -> MediaTime? {
        var body = Substring(text.replacingOccurrences(of: "_", with: ""))
        var negative = false
        if body.first == "-" || body.first == "+" { negative = body.first == "-"; body = body.dropFirst() }
        if body.contains(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Double(text.replacingOccurrences(of: "_", with: "")), value.isFinite,
                  abs(value) < bound else { return nil }
            return MediaTime(seconds: value, timescale: 1_000)
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var wholeSeconds: Int64 = 0
        for (index, part) in parts.dropLast().enumerated() {
            // Minutes and seconds after the first field are 0-59, as YAML's base-60 numbers.
            guard let value = digits(part), index == 0 || value < 60 else { return nil }
            wholeSeconds = wholeSeconds * 60 + value
        }
        guard let last = parts.last, let (lastWhole, fraction, scale) = decimal(last),
              parts.count == 1 || lastWhole < 60 else { return nil }
        let (scaledWhole, overflow1) = (wholeSeconds * 60 + lastWhole).multipliedReportingOverflow(by: scale)
        guard !overflow1 else { return nil }
        let (total, overflow2) = scaledWhole.addingReportingOverflow(fraction)
        // The same bound as an exponent's, whichever way it is written (999999999999:00:00 too).
        guard !overflow2, Double(total) / Double(scale) < bound else { return nil }
        return MediaTime(value: negative ? -total : total, timescale: Int32(scale))
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), text.count <= 12 else { return nil }
        return Int64(text)
    }

    /// "2.5" -> (2, 5, 10); ".5" and "5." are accepted as YAML does.
    private static func decimal(_ text: Substring) -> (whole: Int64, fraction: Int64, scale: Int64)? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let wholeText = pieces[0]
        let fractionText = pieces.count > 1 ? pieces[1] : ""
        guard !(wholeText.isEmpty && fractionText.isEmpty), fractionText.count <= maximumFractionDigits else { return nil }
        let whole = wholeText.isEmpty ? 0 : digits(wholeText)
        let fraction = fractionText.isEmpty ? 0 : digits(fractionText)
        guard let whole, let fraction else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fractionText.count { scale *= 10 }
        return (whole, fraction, scale)
    }
}
