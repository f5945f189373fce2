import Foundation

// Shared by layers (KioskPicture) and text cards (KioskPolicy's TextCard), hence here.

/// A length on the screen: pixels, or a percentage of the screen's height (text size, margin)
/// or width (an image's width), as `LayerPlacement` says for each.
public enum LayerLength: Sendable, Hashable {
    case pixels(Int)
    case percent(Double)

    /// In pixels, for a screen dimension of `whole` pixels.
    public func pixels(of whole: Int) -> Int {
        switch self {
        case .pixels(let value): return value
        case .percent(let share): return Int((Double(whole) * share / 100).rounded())
        }
    }

    /// `48`, `48px` or `5%`; nil for anything else (negative, over 100 %, over 10,000 px).
    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasSuffix("%") {
            guard let value = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)), value.isFinite,
                  (0...100).contains(value) else { return nil }
            self = .percent(value)
        } else {
            let digits = trimmed.hasSuffix("px") ? String(trimmed.dropLast(2)).trimmingCharacters(in: .whitespaces) : trimmed
            guard let value = Int(digits), (0...10_000).contains(value) else { return nil }
            self = .pixels(value)
        }
    }

    /// As kiosk.conf writes it (`48px`, `10%`), which `init(text:)` reads back.
    public var written: String {
        switch self {
        case .pixels(let value): return "\(value)px"
        case .percent(let share):
            return share == share.rounded() && abs(share) < 1e6 ? "\(Int(share))%" : "\(share)%"
        }
    }
}

/// A colour with its opacity, written `#rrggbb` or `#rrggbbaa` (aa: 00 transparent, ff opaque).
public struct LayerColor: Sendable, Hashable {
    /// 0x00RRGGBB, as PixelBuffer's blends take it.
    public var rgb: UInt32
    public var alpha: UInt8

    public init(rgb: UInt32, alpha: UInt8 = 255) { self.rgb = rgb & 0xFF_FFFF; self.alpha = alpha }

    public static let white = LayerColor(rgb: 0xFF_FFFF)
    public static let expected = "a colour like #ffffff or #000000a0 (red, green, blue and optionally opacity, in hex)"

    public init?(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("#") else { return nil }
        let hex = trimmed.dropFirst()
        guard hex.count == 6 || hex.count == 8, let value = UInt32(hex, radix: 16),
              hex.allSatisfy(\.isHexDigit) else { return nil }
        if hex.count == 6 {
            self.init(rgb: value)
        } else {
            self.init(rgb: value >> 8, alpha: UInt8(value & 0xFF))
        }
    }

    /// As kiosk.conf writes it (`#ffffff`, `#000000a0` when not opaque), which `init(text:)` reads back.
    public var written: String {
        let hex = String(rgb, radix: 16)
        let colour = "#" + String(repeating: "0", count: 6 - hex.count) + hex
        guard alpha != 255 else { return colour }
        let opacity = String(alpha, radix: 16)
        return colour + (opacity.count < 2 ? "0" : "") + opacity
    }
}
