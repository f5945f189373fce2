/// Near misses of a word among the words expected, for "did you mean" in messages about what
/// a person wrote (kiosk.conf's keys and values, a URL's scheme).
/// " (did you mean 'gravity'?)" when one of `candidates` is a near miss of `text`. Among
/// equally near ones the longest shared beginning wins ("fil" is 'fill', not 'fit').
package func suggestion(for text: String, among candidates: [String]) -> String {
    nearMiss(for: text, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}

/// The candidate `text` is a near miss of, if any (`suggestion`'s choice).
package func nearMiss(for text: String, among candidates: [String]) -> String? {
    let lowered = text.lowercased()
    var best: (name: String, distance: Int, sharedPrefix: Int)?
    for candidate in candidates {
        let distance = editDistance(lowered, candidate.lowercased())
        guard distance <= max(1, candidate.count / 3) else { continue }
        let shared = zip(lowered, candidate.lowercased()).prefix { $0 == $1 }.count
        if let current = best, (current.distance, -current.sharedPrefix) <= (distance, -shared) { continue }
        best = (candidate, distance, shared)
    }
    return best?.name
}

/// Edit distance: insertions, deletions, substitutions and swaps of two neighbours (the
/// optimal string alignment distance), so the commonest typo, "itmes", is one edit from
/// "items", not two.
package func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
}
