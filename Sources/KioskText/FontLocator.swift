import Foundation
import KioskCore

/// Finds the overlay's font: kiosk.conf `overlay.font`, or for `auto` DejaVu Sans (Debian's
/// fonts-dejavu-core, in deploy/packages.txt), else another common sans, else any TrueType
/// file under the system font folders.
public enum FontLocator {
    public static let preferred = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    ]
    public static let folders = ["/usr/share/fonts", "/usr/local/share/fonts"]

    /// Opens the configured font; for `.auto` the first candidate that loads.
    public static func open(_ choice: OverlayConfig.Font) throws(FontError) -> FontFace {
        switch choice {
        case .file(let path):
            return try FontFace(path: path)
        case .auto:
            for path in preferred + searchFolders() {
                if let face = try? FontFace(path: path) { return face }
            }
            throw FontError(path: "auto", reason: "no TrueType font found in \(folders.joined(separator: ", ")); install fonts-dejavu-core or set overlay.font")
        }
    }

    /// Every .ttf/.otf below the font folders, in name order (so the choice is stable).
    static func searchFolders() -> [String] {
        var found: [String] = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            while let relative = walker.nextObject() as? String {
                let lower = relative.lowercased()
                if lower.hasSuffix(".ttf") || lower.hasSuffix(".otf") { found.append(folder + "/" + relative) }
            }
        }
        return found.sorted()
    }
}
