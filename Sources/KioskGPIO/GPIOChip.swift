import CGpiod
import Glibc

/// What a chip says of itself: `kiosk probe`'s lines and how a label finds its chip.
public struct GPIOChipFacts: Sendable, Equatable {
    public var path: String
    /// gpiochip0
    public var name: String
    /// The driver's label: pinctrl-bcm2711, gpio-sim.0-node0.
    public var label: String
    public var lineCount: Int
}

/// One line as the chip describes it.
public struct GPIOLineFacts: Sendable, Equatable {
    public var offset: Int
    /// Empty when the board names none.
    public var name: String
    /// Who holds it (a driver, a program); empty when nobody does.
    public var consumer: String
    public var isUsed: Bool
}

/// An open GPIO chip (/dev/gpiochipN). Closed when released; a line requested from it keeps it open.
public final class GPIOChip: @unchecked Sendable {
    // Safe to share: the handle is only read after init; libgpiod calls on it are per-call.
    let handle: OpaquePointer
    public let path: String

    /// Where the kernel puts GPIO character devices.
    public static let deviceDirectory = "/dev"

    public init(path: String) throws(GPIOError) {
        guard let handle = kiosk_gpio_chip_open(path) else {
            throw GPIOError(chip: path, what: "cannot open", errno: Glibc.errno)
        }
        self.handle = handle
        self.path = path
    }

    deinit { kiosk_gpio_chip_close(handle) }

    public func facts() throws(GPIOError) -> GPIOChipFacts {
        var facts = kiosk_gpio_chip_facts()
        guard kiosk_gpio_chip_describe(handle, &facts) == 0 else {
            throw GPIOError(chip: path, what: "cannot read what the chip is", errno: Glibc.errno)
        }
        return GPIOChipFacts(path: path, name: Self.text(&facts.name), label: Self.text(&facts.label),
                             lineCount: Int(facts.lines))
    }

    public func line(at offset: Int) throws(GPIOError) -> GPIOLineFacts {
        var facts = kiosk_gpio_line_facts()
        guard offset >= 0, offset <= Int(UInt32.max), kiosk_gpio_line_describe(handle, UInt32(offset), &facts) == 0 else {
            throw GPIOError(chip: path, line: "line \(offset)", what: "cannot read the line", errno: Glibc.errno)
        }
        return GPIOLineFacts(offset: offset, name: Self.text(&facts.name), consumer: Self.text(&facts.consumer),
                             isUsed: facts.used != 0)
    }

    /// The offset of the line the board calls `name`.
    public func offset(ofLineNamed name: String) throws(GPIOError) -> Int {
        let offset = kiosk_gpio_line_offset(handle, name)
        guard offset >= 0 else {
            let code = Glibc.errno
            throw GPIOError(chip: path, line: "line '\(name)'", what: code == ENOENT ? "no line of that name on the chip" : "cannot look the line up",
                            errno: code == ENOENT ? nil : code, detail: code == ENOENT ? "gpioinfo lists the names" : nil)
        }
        return Int(offset)
    }

    /// Requests line `offset` as an input with edge events; the kernel debounces for
    /// `kernelDebounce` seconds where libgpiod offers it (`GPIOChip.kernelDebounces`).
    public func requestEdges(line offset: Int, kernelDebounce: Double, consumer: String) throws(GPIOError) -> GPIOLineRequest {
        let microseconds = UInt(max(0, min(kernelDebounce, 10)) * 1_000_000)
        guard offset >= 0, offset <= Int(UInt32.max),
              let request = kiosk_gpio_request_edges(handle, UInt32(offset), microseconds, consumer) else {
            throw GPIOError(chip: path, line: "line \(offset)", what: "cannot request it for edge events", errno: Glibc.errno)
        }
        return GPIOLineRequest(request, chip: self, offset: offset)
    }

    /// 1 or 2: the libgpiod API kiosk was built with.
    public static var libgpiodAPI: Int { Int(kiosk_gpiod_api()) }
    /// Whether the kernel debounces a request (libgpiod 2); else only kiosk's own rule does.
    public static var kernelDebounces: Bool { kiosk_gpiod_kernel_debounce() != 0 }

    /// /dev/gpiochip* in number order: the chips there are.
    public static func chipPaths(in directory: String = deviceDirectory) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("gpiochip"), let number = Int(name.dropFirst("gpiochip".count)) { numbers.append(number) }
        }
        return numbers.sorted().map { "\(directory)/gpiochip\($0)" }
    }

    /// The path of the chip kiosk.conf names: a path as it is, gpiochipN in /dev, or else the
    /// chip whose label it is. Throws when there is none (yet).
    public static func resolve(_ chip: String, in directory: String = deviceDirectory) throws(GPIOError) -> String {
        if chip.hasPrefix("/") { return chip }
        let paths = chipPaths(in: directory)
        if let path = paths.first(where: { $0.hasSuffix("/" + chip) }) { return path }
        for path in paths {
            if let facts = try? GPIOChip(path: path).facts(), facts.label == chip { return path }
        }
        let there = paths.isEmpty ? "no GPIO chips in \(directory)" : "there are " + paths.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
        throw GPIOError(chip: chip, what: "no such chip", detail: "\(there); kiosk probe lists names and labels")
    }

    static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
