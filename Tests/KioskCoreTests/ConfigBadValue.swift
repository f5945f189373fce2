import Testing
@testable import KioskCore

/// A piece of kiosk.conf with one mistake, where it is, and what the message must say: the
/// tables of the sections' tests (music bed, layers).
struct ConfigBadValue: Sendable, CustomTestStringConvertible {
    let yaml: String
    let line: Int
    let column: Int
    let fragment: String
    var testDescription: String { fragment }

    /// Checks that `parse` refuses the piece with exactly one diagnostic, at its place.
    func expectReported(by parse: (String) throws(ConfigError) -> KioskConfig) {
        do {
            _ = try parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            let diagnostic = error.diagnostics.first
            #expect(error.diagnostics.count == 1, "\(error.diagnostics)")
            #expect(diagnostic?.message.contains(fragment) == true, "\(diagnostic?.message ?? "")")
            #expect(diagnostic.map { ($0.line, $0.column) }! == (line, column), "\(diagnostic?.description ?? "")")
        }
    }
}
