import CDRM
import Glibc
import KioskCore

/// What a card has, copied out of libdrm into KioskCore's plain types so the selection rules
/// (ConnectorSelection, ModeSelection, CRTCSelection, PlaneSelection) run on it.
struct CardSnapshot {
    var connectors: [DisplayConnectorInfo]
    var encoders: [DisplayEncoderInfo]
    var crtcs: [DisplayCRTCInfo]
    var planes: [DisplayPlaneInfo]
    /// Writeback connectors (Writeback.swift), apart from the screens: nothing selects them as one.
    var writebacks: [WritebackConnectorInfo]
    var minSize: PixelSize
    var maxSize: PixelSize
}

extension Card {
    /// Reads connectors (probing them: a fresh EDID), encoders, CRTCs and planes.
    func snapshot() throws(DRMError) -> CardSnapshot {
        guard let resources = drmModeGetResources(fd.rawValue) else {
            throw .notModesetting(path: path, errno: errno)
        }
        defer { drmModeFreeResources(resources) }
        let res = resources.pointee
        let crtcIDs = (0..<Int(res.count_crtcs)).map { res.crtcs[$0] }
        var connectors: [DisplayConnectorInfo] = [], writebacks: [WritebackConnectorInfo] = []
        for index in 0..<Int(res.count_connectors) {
            guard let pointer = drmModeGetConnector(fd.rawValue, res.connectors[index]) else { continue }
            defer { drmModeFreeConnector(pointer) }
            if pointer.pointee.connector_type == writebackConnectorType {
                writebacks.append(writebackConnector(pointer))
            } else {
                connectors.append(connector(pointer.pointee))
            }
        }
        let encoders = (0..<Int(res.count_encoders)).compactMap { encoder(res.encoders[$0]) }
        let crtcs = crtcIDs.enumerated().compactMap { crtc($0.element, index: $0.offset) }
        return CardSnapshot(connectors: connectors, encoders: encoders, crtcs: crtcs, planes: planes(), writebacks: writebacks,
                            minSize: PixelSize(width: Int(res.min_width), height: Int(res.min_height)),
                            maxSize: PixelSize(width: Int(res.max_width), height: Int(res.max_height)))
    }

    /// One connector's cable: `probe` asks the driver to look again (GETCONNECTOR: detect,
    /// and on some drivers an EDID read), else what it last found (GETCONNECTOR_CURRENT, no I/O
    /// to the screen). nil: no such connector (gone with its card).
    func connectorStatus(id: UInt32, probe: Bool) -> ConnectorStatus? {
        guard let pointer = probe ? drmModeGetConnector(fd.rawValue, id) : drmModeGetConnectorCurrent(fd.rawValue, id) else {
            return nil
        }
        defer { drmModeFreeConnector(pointer) }
        return Self.status(pointer.pointee)
    }

    private static func status(_ c: drmModeConnector) -> ConnectorStatus {
        switch c.connection.rawValue {
        case DRM_MODE_CONNECTED.rawValue: .connected
        case DRM_MODE_DISCONNECTED.rawValue: .disconnected
        default: .unknown
        }
    }

    private func connector(_ c: drmModeConnector) -> DisplayConnectorInfo {
        DisplayConnectorInfo(
            id: c.connector_id,
            name: ConnectorType.connectorName(type: c.connector_type, typeID: c.connector_type_id),
            status: Self.status(c),
            modes: (0..<Int(c.count_modes)).map { DisplayMode(c.modes[$0]) },
            encoderIDs: (0..<Int(c.count_encoders)).map { c.encoders[$0] },
            currentEncoderID: c.encoder_id, widthMillimeters: c.mmWidth, heightMillimeters: c.mmHeight)
    }

    private func encoder(_ id: UInt32) -> DisplayEncoderInfo? {
        guard let pointer = drmModeGetEncoder(fd.rawValue, id) else { return nil }
        defer { drmModeFreeEncoder(pointer) }
        return DisplayEncoderInfo(id: id, currentCRTCID: pointer.pointee.crtc_id,
                                  possibleCRTCs: pointer.pointee.possible_crtcs)
    }

    private func crtc(_ id: UInt32, index: Int) -> DisplayCRTCInfo? {
        guard let pointer = drmModeGetCrtc(fd.rawValue, id) else { return nil }
        defer { drmModeFreeCrtc(pointer) }
        let c = pointer.pointee
        return DisplayCRTCInfo(id: id, index: index, currentFramebufferID: c.buffer_id,
                               currentMode: c.mode_valid != 0 ? DisplayMode(c.mode) : nil)
    }

    /// All planes; empty when the plane API is missing (pre-3.x kernels).
    private func planes() -> [DisplayPlaneInfo] {
        guard let list = drmModeGetPlaneResources(fd.rawValue) else { return [] }
        defer { drmModeFreePlaneResources(list) }
        return (0..<Int(list.pointee.count_planes)).compactMap { plane(list.pointee.planes[$0]) }
    }

    private func plane(_ id: UInt32) -> DisplayPlaneInfo? {
        guard let pointer = drmModeGetPlane(fd.rawValue, id) else { return nil }
        defer { drmModeFreePlane(pointer) }
        let p = pointer.pointee
        let props = properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE))
        return DisplayPlaneInfo(
            id: id, type: planeType(props), possibleCRTCs: p.possible_crtcs,
            formats: (0..<Int(p.count_formats)).map { FourCC(rawValue: p.formats[$0]) },
            currentCRTCID: p.crtc_id, currentFramebufferID: p.fb_id,
            rotation: props.first { $0.name == "rotation" && $0.isBitmask }.map { PlaneRotationSupport(entries: $0.enumEntries) },
            scaling: props.contains { $0.name == "SCALING_FILTER" } ? .yes : .unknown,
            modifiers: props.first { $0.name == "IN_FORMATS" }.flatMap { formatModifiers(blob: $0.value) })
    }

    /// A plane's IN_FORMATS blob as (format, modifiers) pairs (`FormatModifier.inFormats`); nil
    /// when it cannot be read (the plane is then taken to scan out linear buffers only).
    private func formatModifiers(blob id: UInt64) -> [FourCC: [UInt64]]? {
        guard id != 0, id <= UInt64(UInt32.max), let blob = drmModeGetPropertyBlob(fd.rawValue, UInt32(id)) else { return nil }
        defer { drmModeFreePropertyBlob(blob) }
        guard let data = blob.pointee.data, blob.pointee.length > 0 else { return nil }
        return FormatModifier.inFormats(Array(UnsafeRawBufferPointer(start: data, count: Int(blob.pointee.length))))
    }

    /// From the "type" enum property; without universal planes only overlays are listed.
    private func planeType(_ props: [DRMProperty]) -> PlaneType {
        guard let type = props.first(where: { $0.name == "type" }) else { return .overlay }
        switch type.valueText {
        case "Primary": return .primary
        case "Cursor": return .cursor
        default: return .overlay
        }
    }
}

extension DisplayMode {
    init(_ info: drmModeModeInfo) {
        self.init(clockKHz: info.clock,
                  hdisplay: info.hdisplay, hsyncStart: info.hsync_start, hsyncEnd: info.hsync_end,
                  htotal: info.htotal, hskew: info.hskew,
                  vdisplay: info.vdisplay, vsyncStart: info.vsync_start, vsyncEnd: info.vsync_end,
                  vtotal: info.vtotal, vscan: info.vscan,
                  nominalRefresh: info.vrefresh, flags: info.flags, type: info.type, name: cString(info.name))
    }

    /// Back to the kernel's structure, field for field.
    var drmModeInfo: drmModeModeInfo {
        var info = drmModeModeInfo()
        info.clock = clockKHz
        info.hdisplay = hdisplay; info.hsync_start = hsyncStart; info.hsync_end = hsyncEnd
        info.htotal = htotal; info.hskew = hskew
        info.vdisplay = vdisplay; info.vsync_start = vsyncStart; info.vsync_end = vsyncEnd
        info.vtotal = vtotal; info.vscan = vscan
        info.vrefresh = nominalRefresh; info.flags = flags; info.type = type
        withUnsafeMutableBytes(of: &info.name) { raw in
            for (i, byte) in name.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        return info
    }
}
