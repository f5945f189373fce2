/// `kiosk probe`'s GPIO part: the chips there are, for naming one in a trigger's `gpio:`.
public struct GPIOProbe: Encodable, Sendable {
    public struct Chip: Encodable, Sendable {
        public var path: String
        public var name: String
        public var label: String
        public var lines: Int
        /// Lines the board names or something holds; unnamed, unused ones are left out.
        public var namedLines: [Line]
        /// Why the chip could not be read, when it could not.
        public var error: String?
    }

    public struct Line: Encodable, Sendable {
        public var offset: Int
        public var name: String
        public var consumer: String
    }

    public var libgpiodAPI: Int
    public var chips: [Chip]

    public static func run(directory: String = GPIOChip.deviceDirectory) -> GPIOProbe {
        let chips = GPIOChip.chipPaths(in: directory).map { path -> Chip in
            let name = path.split(separator: "/").last.map(String.init) ?? path
            do {
                let chip = try GPIOChip(path: path)
                let facts = try chip.facts()
                let lines = (0..<facts.lineCount).compactMap { try? chip.line(at: $0) }
                    .filter { !$0.name.isEmpty || $0.isUsed }
                    .map { Line(offset: $0.offset, name: $0.name, consumer: $0.consumer.isEmpty && $0.isUsed ? "(in use)" : $0.consumer) }
                return Chip(path: path, name: facts.name, label: facts.label, lines: facts.lineCount, namedLines: lines)
            } catch {
                return Chip(path: path, name: name, label: "", lines: 0, namedLines: [], error: "\(error)")
            }
        }
        return GPIOProbe(libgpiodAPI: GPIOChip.libgpiodAPI, chips: chips)
    }

    public var text: String {
        guard !chips.isEmpty else { return "GPIO: no chips (no /dev/gpiochip*)" }
        var lines = ["GPIO chips (libgpiod \(libgpiodAPI)); a trigger's gpio: names one by name, path or label:"]
        for chip in chips {
            if let error = chip.error {
                lines.append("  \(chip.name): \(error)")
                continue
            }
            lines.append("  \(chip.name) [\(chip.label)] \(chip.lines) line\(chip.lines == 1 ? "" : "s") (\(chip.path))")
            if !chip.namedLines.isEmpty {
                let described = chip.namedLines.map { line in
                    "\(line.offset)" + (line.name.isEmpty ? "" : " \(line.name)") + (line.consumer.isEmpty ? "" : " (used by \(line.consumer))")
                }
                lines.append("    lines: " + described.joined(separator: ", "))
            }
        }
        return lines.joined(separator: "\n")
    }
}
