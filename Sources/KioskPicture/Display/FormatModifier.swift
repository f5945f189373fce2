/// DRM format modifiers: how a buffer's pixels are laid out in memory beyond its format (linear,
/// or a vendor's tiling). A plane lists the (format, modifier) pairs it scans out in its
/// IN_FORMATS property; a frame says its own in its PRIME descriptor.
public enum FormatModifier {
    /// DRM_FORMAT_MOD_INVALID: no modifier said (the driver assumes its default, usually linear).
    public static let invalid: UInt64 = 0x00ff_ffff_ffff_ffff
    public static let linear: UInt64 = 0

    /// The vendor in a modifier's top byte (drm_fourcc.h's DRM_FORMAT_MOD_VENDOR_*).
    public static func vendor(_ modifier: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: modifier >> 56) }

    static let broadcomVendor: UInt8 = 0x07
    /// Broadcom's parameter: bits 8-55 (fourcc_mod_broadcom_param), a SAND layout's column height.
    static let broadcomParameterBits: UInt64 = ((1 << 48) - 1) << 8

    /// Broadcom's SAND codes (drm_fourcc.h: fourcc_mod_broadcom_code 2-5) by column width in bytes.
    static let sandCodes: [Int: UInt64] = [32: 2, 64: 3, 128: 4, 256: 5]

    /// DRM_FORMAT_MOD_BROADCOM_SAND*: a Raspberry Pi's HEVC decoder writes its frames in columns
    /// of 32 to 256 bytes, each as tall as the column height the frame carries in its modifier.
    public static func broadcomSAND(columnBytes: Int, columnHeight: UInt64 = 0) -> UInt64 {
        guard let code = sandCodes[columnBytes] else { preconditionFailure("SAND columns are 32, 64, 128 or 256 bytes wide") }
        return UInt64(broadcomVendor) << 56 | (columnHeight << 8 & broadcomParameterBits) | code
    }

    /// The modifier with a vendor's parameter masked out, as drivers list it in IN_FORMATS: a
    /// plane lists SAND128 (column height 0) and takes a frame of any column height
    /// (fourcc_mod_broadcom_mod). Other vendors' modifiers carry no parameter to mask.
    public static func withoutParameter(_ modifier: UInt64) -> UInt64 {
        vendor(modifier) == broadcomVendor && modifier != invalid ? modifier & ~broadcomParameterBits : modifier
    }

    /// Whether a plane listing `listed` in IN_FORMATS scans out a frame of modifier `frame`: the
    /// same modifier, parameter aside. A frame that says none (`invalid`) takes the driver's
    /// default layout, which every plane of that format scans out.
    public static func plane(listing listed: UInt64, takes frame: UInt64) -> Bool {
        frame == invalid || withoutParameter(listed) == withoutParameter(frame)
    }

    /// "linear", "sand128" or "sand128:96" (Broadcom's SAND with a column height), or "0x" and
    /// hex digits; nil for anything else (and for `invalid`, which no frame is described as).
    public static func parse(_ text: String) -> UInt64? {
        let lower = text.lowercased()
        if lower == "linear" { return linear }
        if lower.hasPrefix("0x") {
            guard let value = UInt64(lower.dropFirst(2), radix: 16), value != invalid else { return nil }
            return value
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts[0].hasPrefix("sand"), let columns = Int(parts[0].dropFirst(4)),
              sandCodes[columns] != nil else { return nil }
        guard parts.count == 2 else { return broadcomSAND(columnBytes: columns) }
        guard let height = UInt64(parts[1]), height < 1 << 48 else { return nil }
        return broadcomSAND(columnBytes: columns, columnHeight: height)
    }

    /// A modifier's name for a log line: "LINEAR", "Broadcom SAND128 (column height 96)", or
    /// the vendor's number and the value.
    public static func name(_ modifier: UInt64) -> String {
        if modifier == linear { return "LINEAR" }
        if modifier == invalid { return "none said (the driver's default)" }
        let code = modifier & 0x00ff_ffff_ffff_ffff & ~broadcomParameterBits
        if vendor(modifier) == broadcomVendor, let columns = sandCodes.first(where: { $0.value == code })?.key {
            let height = (modifier & broadcomParameterBits) >> 8
            return "Broadcom SAND\(columns)" + (height == 0 ? "" : " (column height \(height))")
        }
        let vendors: [UInt8: String] = [0x01: "Intel", 0x02: "AMD", 0x03: "NVIDIA", 0x04: "Samsung", 0x05: "Qualcomm",
                                         0x06: "Vivante", 0x07: "Broadcom", 0x08: "Arm", 0x09: "Allwinner", 0x0a: "Amlogic"]
        let value = String(modifier & 0x00ff_ffff_ffff_ffff, radix: 16)
        return "\(vendors[vendor(modifier)] ?? "vendor \(vendor(modifier))") 0x\(value)"
    }

    /// An IN_FORMATS blob (struct drm_format_modifier_blob: a header, the formats, then 24-byte
    /// entries of a 64-bit mask of formats from `offset`, and a modifier) as (format, modifiers)
    /// pairs; nil when it is malformed or lists nothing (then: linear only).
    /// Read here rather than through libdrm's drmModeFormatModifierBlobIterNext, which tests
    /// its mask with a 32-bit `1 << n`: a plane's 32nd format on is matched to the wrong
    /// modifiers (vc4 lists about 35 formats; the review of this code found it in 2.4.114).
    public static func inFormats(_ blob: [UInt8]) -> [FourCC: [UInt64]]? {
        func word(_ at: Int, _ bytes: Int) -> UInt64? {
            guard at >= 0, at <= blob.count - bytes else { return nil }
            return (0..<bytes).reduce(0) { $0 | UInt64(blob[at + $1]) << (8 * UInt64($1)) }
        }
        guard let version = word(0, 4), version >= 1, let formatCount = word(8, 4), let formatsAt = word(12, 4),
              let modifierCount = word(16, 4), let modifiersAt = word(20, 4),
              formatCount <= 1 << 16, modifierCount <= 1 << 16 else { return nil }
        var formats: [FourCC] = []
        for index in 0..<Int(formatCount) {
            guard let code = word(Int(formatsAt) + 4 * index, 4) else { return nil }
            formats.append(FourCC(rawValue: UInt32(code)))
        }
        var pairs: [FourCC: [UInt64]] = [:]
        for index in 0..<Int(modifierCount) {
            let entry = Int(modifiersAt) + 24 * index
            guard let mask = word(entry, 8), let offset = word(entry + 8, 4), let modifier = word(entry + 16, 8) else { return nil }
            for bit in 0..<64 where mask & (UInt64(1) << UInt64(bit)) != 0 {
                let format = Int(offset) + bit
                guard format < formats.count else { break }
                pairs[formats[format], default: []].append(modifier)
            }
        }
        return pairs.isEmpty ? nil : pairs
    }

    /// A plane's IN_FORMATS, formats grouped by the layouts they are listed with, formats in
    /// name order: "LINEAR: AR24 XR24; LINEAR, Broadcom SAND128: NV12 P030"; one group: "LINEAR
    /// (all 33 formats)".
    public static func describe(listed: [FourCC: [UInt64]]) -> String {
        var groups: [(names: String, formats: [String])] = []
        for (format, list) in listed.sorted(by: { $0.key.description < $1.key.description }) {
            let names = list.isEmpty ? "none" : list.map(name).joined(separator: ", ")
            if let index = groups.firstIndex(where: { $0.names == names }) {
                groups[index].formats.append(format.description)
            } else {
                groups.append((names, [format.description]))
            }
        }
        if groups.count == 1, groups[0].formats.count > 1 { return "\(groups[0].names) (all \(groups[0].formats.count) formats)" }
        return groups.isEmpty ? "none" : groups.map { "\($0.names): \($0.formats.joined(separator: " "))" }.joined(separator: "; ")
    }
}
