/// Reads a size as people write it in kiosk.conf: `10M`, `512K`, `1G`, `4096` (bytes); the
/// suffixes are binary (K = 1024) and may be followed by `B` or `iB` (10MB, 10MiB), any case.
enum ByteSizeText {
    /// A limit smaller than this would rotate after every few lines.
    static let smallestRotationLimit = 4 * 1024

    static func parse(_ text: String) -> Int? {
        var body = text.trimmingWhitespace().uppercased()
        for unit in ["IB", "B"] where body.hasSuffix(unit) && body.count > unit.count {
            body.removeLast(unit.count)
            break
        }
        var factor = 1
        if let last = body.last, let power = ["K": 1, "M": 2, "G": 3][String(last)] {
            factor = 1 << (10 * power)
            body.removeLast()
        }
        guard !body.isEmpty, body.allSatisfy(\.isASCII), let value = Int(body), value >= 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }
}
