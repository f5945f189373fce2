import KioskCore

extension DRMProbe {
    /// The probe as `kiosk probe` prints it for people: one block per card, objects indented.
    public var text: String {
        var lines: [String] = []
        if let error { lines.append(error) }
        for card in cards { lines += card.lines }
        return lines.joined(separator: "\n")
    }
}

extension DRMProbe.CardReport {
    var lines: [String] {
        var lines = ["\(path)" + (driver.isEmpty ? "" : "  driver \(driver)")]
        if let error { lines.append("  error: \(error)") }
        if let caps = capabilities {
            let flags = [("atomic", caps.atomic), ("universal planes", caps.universalPlanes),
                         ("dumb buffers", caps.dumbBuffer), ("prefer shadow", caps.preferShadow),
                         ("async flip", caps.asyncPageFlip), ("monotonic timestamps", caps.monotonicTimestamps)]
            lines.append("  caps: " + flags.map { "\($0.0) \($0.1 ? "yes" : "no")" }.joined(separator: ", "))
        }
        for connector in connectors {
            let info = connector.info
            let millimeters = info.widthMillimeters > 0 ? ", \(info.widthMillimeters)x\(info.heightMillimeters) mm" : ""
            lines.append("  connector \(info.id) \(info.name): \(info.status.rawValue)\(millimeters)"
                         + (info.currentEncoderID != 0 ? ", encoder \(info.currentEncoderID)" : ""))
            if !info.modes.isEmpty {
                lines.append("    modes: " + ModeSelection.uniqueDescriptions(info.modes).joined(separator: ", "))
            }
            lines += propertyLines(connector.properties)
        }
        for writeback in writebacks {
            lines.append("  writeback connector \(writeback.id) \(writeback.name): CRTCs \(crtcIndices(writeback.possibleCRTCs)), "
                         + "formats " + writeback.formats.map(\.description).joined(separator: " "))
        }
        for encoder in encoders {
            lines.append("  encoder \(encoder.id): CRTCs \(crtcIndices(encoder.possibleCRTCs))"
                         + (encoder.currentCRTCID != 0 ? ", on CRTC \(encoder.currentCRTCID)" : ""))
        }
        for crtc in crtcs {
            let showing = crtc.info.currentMode.map { "\($0) framebuffer \(crtc.info.currentFramebufferID)" } ?? "off"
            lines.append("  CRTC \(crtc.info.id) (#\(crtc.info.index)): \(showing)")
            lines += propertyLines(crtc.properties)
        }
        for plane in planes {
            let info = plane.info
            let rotation = plane.rotations.isEmpty ? "no rotation"
                : "rotates " + plane.rotations.map { "\($0)°" }.joined(separator: "/")
            lines.append("  plane \(info.id) \(info.type.rawValue): CRTCs \(crtcIndices(info.possibleCRTCs)), \(rotation)"
                         + (info.currentCRTCID != 0 ? ", on CRTC \(info.currentCRTCID) framebuffer \(info.currentFramebufferID)" : ""))
            lines.append("    formats: " + info.formats.map(\.description).joined(separator: " "))
            if let modifiers = info.modifiers { lines.append("    layouts (IN_FORMATS): " + FormatModifier.describe(listed: modifiers)) }
            lines += propertyLines(plane.properties)
        }
        lines += videoPlanes.map(\.line)
        return lines
    }

    private func propertyLines(_ properties: [DRMProbe.PropertyReport]) -> [String] {
        guard !properties.isEmpty else { return [] }
        return ["    properties: " + properties.map { prop in
            let choices = prop.choices.map { " [\($0.joined(separator: ","))]" } ?? ""
            return "\(prop.name)=\(prop.text)\(choices)\(prop.immutable ? " (immutable)" : "")"
        }.joined(separator: "; ")]
    }

    /// "#0 #2" from a possible_crtcs bitmask.
    private func crtcIndices(_ mask: UInt32) -> String {
        let indices = (0..<32).filter { mask & (1 << UInt32($0)) != 0 }.map { "#\($0)" }
        return indices.isEmpty ? "none" : indices.joined(separator: " ")
    }
}
