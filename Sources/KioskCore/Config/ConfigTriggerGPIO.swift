import Yams

/// A trigger's `gpio: {chip, line, edge, debounce, active_low}`: the GPIO line it reads.
/// Whether the chip and line exist is known only on the box (`kiosk run` says so in one line
/// and retries); here, what the file can say wrong.
extension ConfigWalker {
    static let gpioKeys = ["chip", "line", "edge", "debounce", "active_low"]
    /// uAPI line offsets are 32 bits; no chip has more lines than this.
    static let largestGPIOLine = 65_535

    func gpioLine(_ node: Node, label: String) -> GPIOTriggerLine? {
        let name = "gpio of \(label)"
        guard node.mapping != nil, let section = section(node, name: name, allowedKeys: Self.gpioKeys) else {
            report(node, "'gpio' in \(label) is \(describe(node)); expected a map like {chip: gpiochip0, line: 3, edge: falling}")
            return nil
        }
        let before = diagnostics.count
        for key in ["chip", "line"] where section[key] == nil && !section.hasUntakenKeys {
            report(node, "\(name) has no '\(key)'; expected "
                   + (key == "chip" ? "chip: gpiochip0 (a name, /dev/gpiochip0 or the chip's label; kiosk probe lists them)"
                                    : "line: N (the line's offset on the chip, from 0) or line: NAME (the line's name)"))
        }
        let chip = section["chip"].flatMap { gpioChip($0, in: name) }
        let line = section["line"].flatMap { gpioLineNumberOrName($0, in: name) }
        let edge = choice(section, "edge", GPIOTriggerLine.Edge.allCases.map { ($0.rawValue, $0) })
        let debounce = gpioDebounce(section)
        let activeLow = bool(section, "active_low")
        guard diagnostics.count == before, let chip, let line else { return nil }
        return GPIOTriggerLine(chip: chip, line: line, edge: edge ?? .falling,
                               debounce: debounce ?? GPIOTriggerLine.defaultDebounce, activeLow: activeLow ?? false)
    }

    /// A name (gpiochip0), an absolute path (/dev/gpiochip0) or a label: text, not a number
    /// (libgpiod 2 has no lookup by number, and `0` would read as a line, not a chip).
    private func gpioChip(_ node: Node, in name: String) -> String? {
        let expected = "expected a chip's name (gpiochip0), its path (/dev/gpiochip0) or its label (kiosk probe lists them)"
        guard let scalar = node.scalar, !isNull(node), !scalar.string.isEmpty,
              !(scalar.style == .plain && Int(scalar.string) != nil) else {
            report(node, "'chip' in \(name) is \(describe(node)); \(expected)")
            return nil
        }
        let text = scalar.string
        if text.contains("/") && !text.hasPrefix("/") {
            report(node, "'chip' in \(name) is the string '\(text)', a relative path; \(expected)")
            return nil
        }
        return text
    }

    /// An offset (a plain whole number from 0) or the line's name (any other text).
    private func gpioLineNumberOrName(_ node: Node, in name: String) -> GPIOTriggerLine.Line? {
        let expected = "expected the line's offset on the chip (a whole number from 0 to \(Self.largestGPIOLine)) "
            + "or its name (like GPIO17)"
        guard let scalar = node.scalar, !isNull(node), !scalar.string.isEmpty else {
            report(node, "'line' in \(name) is \(describe(node)); \(expected)")
            return nil
        }
        let isPlainNumber = scalar.style == .plain && (node.int != nil || node.float != nil)
        guard isPlainNumber else { return .name(scalar.string) }
        guard let offset = node.int, (0...Self.largestGPIOLine).contains(offset) else {
            report(node, "'line' in \(name) is \(describe(node)); \(expected)")
            return nil
        }
        return .offset(offset)
    }

    /// Seconds from 0 to `GPIOTriggerLine.longestDebounce`.
    private func gpioDebounce(_ section: SectionMap) -> Double? {
        guard let node = section["debounce"] else { return nil }
        let type = node.tag.rawValue.split(separator: ":").last
        guard node.scalar?.style == .plain, type == "int" || type == "float", let value = node.float, value.isFinite,
              (0...GPIOTriggerLine.longestDebounce).contains(value) else {
            report(node, "'debounce' in \(section.name) is \(describe(node)); expected seconds from 0 to "
                   + "\(formatted(GPIOTriggerLine.longestDebounce)) (like 0.05; 0: every edge fires)")
            return nil
        }
        return value
    }
}
