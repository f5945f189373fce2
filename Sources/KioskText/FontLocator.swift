import Foundation
import KioskCore

/// Finds the fonts: kiosk.conf `overlay.font` (auto, a path, or a list of those), then the
/// system's fallbacks that are installed. For `auto` DejaVu Sans (Debian's fonts-dejavu-core, in
/// deploy/packages.txt), else another common sans, else any TrueType file under the font folders.
public enum FontLocator {
    public static let preferred = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    ]
    /// Appended after the configured fonts when installed (Debian's paths): scripts the first
    /// font may lack, and last Noto Color Emoji (CBDT colour bitmaps at one size, scaled and
    /// drawn as coverage in the text's one colour).
    public static let fallbacks = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
    ]
    public static let folders = ["/usr/share/fonts", "/usr/local/share/fonts"]

    /// The configured fonts, then the installed fallbacks. A font of a list that cannot be
    /// used is in `problems` and left out; none usable at all is the error.
    public static func open(_ choice: OverlayConfig.Font) throws(FontError) -> FontStack {
        var faces: [FontFace] = [], problems: [FontError] = []
        let configured: [OverlayConfig.Font]
        if case .list(let fonts) = choice { configured = fonts } else { configured = [choice] }
        for font in configured {
            do { faces.append(try openOne(font)) } catch { problems.append(error) }
        }
        guard !faces.isEmpty else {
            throw configured.count == 1 ? problems[0]
                : FontError(path: "font list", reason: "none can be used: " + problems.map(\.description).joined(separator: "; "))
        }
        for path in fallbacks where !faces.contains(where: { $0.path == path }) && FileManager.default.fileExists(atPath: path) {
            if let face = try? FontFace(path: path) { faces.append(face) }
        }
        return FontStack(faces: faces, problems: problems)
    }

    static func openOne(_ font: OverlayConfig.Font) throws(FontError) -> FontFace {
        switch font {
        case .file(let path):
            return try FontFace(path: path)
        case .auto, .list:
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
