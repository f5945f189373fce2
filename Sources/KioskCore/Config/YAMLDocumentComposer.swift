import Yams

/// A 1-based line and column in the text, as Yams' `Mark`.
struct TextPosition: Hashable {
    var line: Int
    var column: Int
    init(line: Int, column: Int) { self.line = line; self.column = column }
    init(_ mark: Mark) { self.init(line: mark.line, column: mark.column) }
}

/// The YAML tree of a config file, or why there is none.
struct ComposedDocument {
    /// nil for an empty document or a syntax error.
    var root: Node?
    /// Later copies of duplicated keys, renamed so the rest of the file could still be read;
    /// the config walker skips them (they already have a diagnostic).
    var ignoredKeys: Set<TextPosition> = []
    var diagnostics: [ConfigDiagnostic] = []
}

/// Composes YAML text with Yams and turns its errors into diagnostics with line:column.
///
/// Yams stops at the first duplicated key (and reports only the first copy). To still report
/// every problem of the file, the later copy is found in the text, renamed to a placeholder of
/// the same length (so every other position stays put) and the text is composed again.
enum YAMLDocumentComposer {
    static let maximumDuplicateRecoveries = 64

    static func compose(_ text: String, fileName: String) -> ComposedDocument {
        var document = ComposedDocument()
        // Split on the scalar: as Characters, CR LF is one grapheme that "\n" does not match.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        var current = text
        func diagnose(_ line: Int, _ column: Int, _ message: String) {
            document.diagnostics.append(ConfigDiagnostic(file: fileName, line: line, column: column, message: message))
        }
        if let stray = strayLineBreak(in: lines) {
            // libyaml would start a new line there and every position after it would be off
            // from what an editor shows.
            diagnose(stray.line, stray.column, "a line break character (\(stray.name)) inside a line; "
                     + "expected lines that end in a plain newline (LF or CR LF)")
            return document
        }
        for attempt in 0...maximumDuplicateRecoveries {
            do {
                document.root = try Yams.compose(yaml: current)
                return document
            } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
                let key = duplicates.first ?? "?"
                // Quoted as every value is (one line, at most 160 characters): a key is the file's text.
                let shown = quotedForMessage(key)
                let first = TextPosition(context.mark)
                guard attempt < maximumDuplicateRecoveries,
                      let later = DuplicateKeyLocator.laterCopy(of: key, after: first, in: lines) else {
                    diagnose(first.line, first.column,
                             "duplicate key '\(shown)' in this mapping; each key may appear only once")
                    return document
                }
                diagnose(later.position.line, later.position.column,
                         "duplicate key '\(shown)' (first at \(first.line):\(first.column)); each key may appear only once")
                DuplicateKeyLocator.rename(later, placeholderNumber: attempt, in: &lines)
                document.ignoredKeys.insert(later.position)
                current = lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
            } catch let error as YamlError {
                let (position, message) = describe(error, lines: lines)
                diagnose(position.line, position.column, message)
                return document
            } catch {
                diagnose(1, 1, "cannot read the YAML: \(error); expected a YAML document")
                return document
            }
        }
        return document
    }

    /// The first CR not followed by LF, NEL, LINE or PARAGRAPH SEPARATOR: YAML breaks lines
    /// there, editors do not.
    static func strayLineBreak(in lines: [[Unicode.Scalar]]) -> (line: Int, column: Int, name: String)? {
        let names: [Unicode.Scalar: String] = ["\r": "CR", "\u{85}": "U+0085 NEL", "\u{2028}": "U+2028", "\u{2029}": "U+2029"]
        for (lineIndex, line) in lines.enumerated() {
            for (index, scalar) in line.enumerated() {
                guard let name = names[scalar] else { continue }
                if scalar == "\r" && index == line.count - 1 { continue }   // CR LF, or CR at the very end
                return (lineIndex + 1, index + 1, name)
            }
        }
        return nil
    }

    /// Where a Yams error happened and a message in "what; expected" form.
    static func describe(_ error: YamlError, lines: [[Unicode.Scalar]]) -> (TextPosition, String) {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let position = TextPosition(mark)
            if problem.contains("tab") || scalar(at: position, in: lines) == "\t" {
                return (position, "tab character in indentation; indent with spaces (YAML does not allow tabs)")
            }
            if problem.contains("another document") {
                return (position, "a second YAML document starts here; a config file holds exactly one")
            }
            if problem.contains("Maximum nesting level") {
                return (position, "nested too deeply (libyaml stops at 1000 levels); a kiosk.conf needs a few levels")
            }
            if problem.contains("undefined alias") {
                return (position, "alias to an undefined anchor; define '&name' before using '*name'")
            }
            var what = "YAML syntax error: \(problem)"
            if let context { what += " (\(context.text) at \(context.mark.line):\(context.mark.column))" }
            return (position, what + "; check the indentation, colons, quotes and brackets around here")
        case let .reader(problem, offset, _, yaml):
            let position = offset.map { characterPosition(offset: $0, in: yaml) } ?? TextPosition(line: 1, column: 1)
            return (position, "unreadable text: \(problem); expected UTF-8 text without control characters")
        default:
            return (TextPosition(line: 1, column: 1), "cannot read the YAML: \(error); expected a YAML document")
        }
    }

    private static func scalar(at position: TextPosition, in lines: [[Unicode.Scalar]]) -> Unicode.Scalar? {
        guard position.line >= 1, position.line <= lines.count else { return nil }
        let line = lines[position.line - 1]
        return position.column >= 1 && position.column <= line.count ? line[position.column - 1] : nil
    }

    /// Line and column of the `offset`-th Character of `text` (Yams reports reader errors so).
    private static func characterPosition(offset: Int, in text: String) -> TextPosition {
        var line = 1, column = 1
        for character in text.prefix(offset) {
            if character == "\n" || character == "\r\n" { line += 1; column = 1 } else { column += character.unicodeScalars.count }
        }
        return TextPosition(line: line, column: column)
    }
}

/// Finds the second copy of a key in the text, given where the first copy is.
enum DuplicateKeyLocator {
    struct Occurrence: Equatable {
        /// Where the key's token starts (its opening quote, if quoted), as Yams marks it.
        var position: TextPosition
        /// Where the key's own characters start and how many there are (quotes excluded).
        var textStart: Int
        var textLength: Int
    }

    static func laterCopy(of key: String, after first: TextPosition, in lines: [[Unicode.Scalar]]) -> Occurrence? {
        let keyScalars = Array(key.unicodeScalars)
        guard !keyScalars.isEmpty, first.line >= 1, first.line <= lines.count else { return nil }
        let firstLine = lines[first.line - 1]
        let firstIndex = first.column - 1
        guard firstIndex >= 0, firstIndex <= firstLine.count,
              let firstToken = token(matching: keyScalars, in: firstLine, at: firstIndex) else { return nil }
        let isBlock = firstLine[..<firstIndex].allSatisfy { $0 == " " || $0 == "-" }
        if isBlock {
            // Keys of one block mapping all start in the first key's column; the mapping ends
            // at the first content line indented less.
            for lineIndex in first.line..<lines.count {
                let line = lines[lineIndex]
                guard let indent = line.firstIndex(where: { $0 != " " }), line[indent] != "#" else { continue }
                if indent < firstIndex { return nil }
                if indent == firstIndex, let found = token(matching: keyScalars, in: line, at: indent) {
                    return Occurrence(position: TextPosition(line: lineIndex + 1, column: indent + 1),
                                      textStart: found.textStart, textLength: keyScalars.count)
                }
            }
            return nil
        }
        return laterFlowCopy(of: keyScalars, after: first, tokenLength: firstToken.length, in: lines)
    }

    /// In a flow mapping `{a: 1, a: 2}`: a key right after a comma at the mapping's own depth.
    private static func laterFlowCopy(of key: [Unicode.Scalar], after first: TextPosition, tokenLength: Int,
                                      in lines: [[Unicode.Scalar]]) -> Occurrence? {
        var depth = 0
        var quote: Unicode.Scalar?
        var afterComma = false
        for lineIndex in (first.line - 1)..<lines.count {
            let line = lines[lineIndex]
            var index = lineIndex == first.line - 1 ? first.column - 1 + tokenLength : 0
            while index < line.count {
                let scalar = line[index]
                if let open = quote {
                    if scalar == open { quote = nil }
                } else if afterComma && depth == 0 && scalar != " ",
                          let found = token(matching: key, in: line, at: index) {
                    return Occurrence(position: TextPosition(line: lineIndex + 1, column: index + 1),
                                      textStart: found.textStart, textLength: key.count)
                } else {
                    switch scalar {
                    case "\"", "'": quote = scalar
                    case "{", "[": depth += 1
                    case "}", "]": depth -= 1; if depth < 0 { return nil }
                    default: break
                    }
                }
                if quote == nil && scalar != " " { afterComma = scalar == "," && depth == 0 }
                index += 1
            }
        }
        return nil
    }

    /// `key`, `"key"` or `'key'` at `index`, followed by optional spaces and a ':' that ends
    /// the key (then a space, the end of the line or a flow indicator).
    private static func token(matching key: [Unicode.Scalar], in line: [Unicode.Scalar],
                              at index: Int) -> (textStart: Int, length: Int)? {
        guard index < line.count else { return nil }
        let quoted = line[index] == "\"" || line[index] == "'"
        let textStart = quoted ? index + 1 : index
        var end = textStart + key.count
        guard end <= line.count, Array(line[textStart..<end]) == key else { return nil }
        if quoted {
            guard end < line.count, line[end] == line[index] else { return nil }
            end += 1
        }
        var colon = end
        while colon < line.count, line[colon] == " " { colon += 1 }
        guard colon < line.count, line[colon] == ":" else { return nil }
        let next = colon + 1
        guard next == line.count || " \t,}]\r".unicodeScalars.contains(line[next]) else { return nil }
        return (textStart, end - index)
    }

    /// Overwrites the key's characters with private-use characters (valid YAML text that no
    /// real key uses), unique per recovery, keeping the line's length.
    static func rename(_ occurrence: Occurrence, placeholderNumber: Int, in lines: inout [[Unicode.Scalar]]) {
        let lineIndex = occurrence.position.line - 1
        for offset in 0..<occurrence.textLength {
            let value = offset == 0 ? 0xE000 + UInt32(placeholderNumber) : 0xE000
            lines[lineIndex][occurrence.textStart + offset] = Unicode.Scalar(value)!
        }
    }
}
