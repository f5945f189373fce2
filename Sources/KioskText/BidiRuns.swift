import CFriBidi

/// A stretch of a line in one direction: `range` indexes the line's Unicode scalars (logical
/// order); `level` is its UAX #9 embedding level (odd: right to left).
struct BidiRun: Equatable, Sendable {
    var range: Range<Int>
    var level: UInt8
    var isRightToLeft: Bool { level & 1 == 1 }
}

/// Splits a line into runs of one direction, in visual order (left to right on the screen).
/// HarfBuzz shapes one direction at a time and does no bidi; FriBidi resolves the levels
/// (paragraph direction from the text's first strong character) and applies rule L1 (trailing
/// white space back to the paragraph level); rule L2 (reversal of runs) is `visualOrder`.
enum BidiLine {
    static func runs(_ scalars: [UInt32]) -> [BidiRun] {
        let count = scalars.count
        guard count > 0, count < Int(Int32.max) else { return [] }
        var types = [FriBidiCharType](repeating: FriBidiCharType(0), count: count)
        var brackets = [FriBidiBracketType](repeating: 0, count: count)
        var levels = [FriBidiLevel](repeating: 0, count: count)
        var direction = kiosk_fribidi_par_auto
        let length = FriBidiStrIndex(count)
        scalars.withUnsafeBufferPointer { text in
            fribidi_get_bidi_types(text.baseAddress, length, &types)
            fribidi_get_bracket_types(text.baseAddress, length, types, &brackets)
        }
        // A return of 0 is FriBidi's failure (out of memory): draw the line left to right.
        guard fribidi_get_par_embedding_levels_ex(types, brackets, length, &direction, &levels) != 0,
              fribidi_reorder_line(0, types, length, 0, direction, &levels, nil, nil) != 0 else {
            return [BidiRun(range: 0..<count, level: 0)]
        }
        var logical: [BidiRun] = []
        for index in 0..<count {
            let level = UInt8(bitPattern: levels[index])
            if let last = logical.last, last.level == level, last.range.upperBound == index {
                logical[logical.count - 1].range = last.range.lowerBound..<(index + 1)
            } else {
                logical.append(BidiRun(range: index..<(index + 1), level: level))
            }
        }
        return visualOrder(logical)
    }

    /// UAX #9 rule L2: from the highest level down to the lowest odd one, reverse every
    /// sequence of runs at that level or higher.
    static func visualOrder(_ logical: [BidiRun]) -> [BidiRun] {
        guard let highest = logical.map(\.level).max(), let lowest = logical.map(\.level).min() else { return logical }
        var runs = logical
        let lowestOdd = lowest | 1
        guard highest >= lowestOdd else { return runs }
        for level in stride(from: Int(highest), through: Int(lowestOdd), by: -1) {
            var index = 0
            while index < runs.count {
                guard runs[index].level >= level else { index += 1; continue }
                var end = index
                while end < runs.count, runs[end].level >= level { end += 1 }
                runs[index..<end].reverse()
                index = end
            }
        }
        return runs
    }
}
