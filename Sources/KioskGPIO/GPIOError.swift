import Glibc
import SystemPackage

/// Why a GPIO chip or line could not be used. Each names the chip (and line) and the system's
/// reason, because the person reading it is at the box with a button that did nothing.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chip as kiosk.conf named it, or its path.
    public let chip: String
    /// "line 3", "line 'GPIO17'", or nil for the chip itself.
    public let line: String?
    /// What failed: "cannot open", "cannot request it", ...
    public let what: String
    /// The errno, when the failure was the system's.
    public let errno: Int32?
    /// Extra words: a hint, a list of what there is.
    public let detail: String?

    public init(chip: String, line: String? = nil, what: String, errno: Int32? = nil, detail: String? = nil) {
        self.chip = chip
        self.line = line
        self.what = what
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        var text = chip + (line.map { " \($0)" } ?? "") + ": " + what
        if let errno { text += ": " + Errno(rawValue: errno).description + hint(errno) }
        if let detail { text += " (\(detail))" }
        return text
    }

    /// What the errno usually means for a GPIO line.
    private func hint(_ code: Int32) -> String {
        switch code {
        case EBUSY: " (another program or a kernel driver holds the line; gpioinfo names it)"
        case EACCES, EPERM: " (kiosk's user needs read and write access to the chip: the group that owns /dev/gpiochipN, often gpio)"
        default: ""
        }
    }
}
