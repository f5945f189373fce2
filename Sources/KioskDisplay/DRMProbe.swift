import CDRM
import Glibc
import KioskCore

/// Everything kiosk can learn about the machine's DRM cards without taking the screen: what
/// `kiosk probe` prints, as text or JSON. Errors per card are recorded, not thrown, so one
/// broken card does not hide the others.
public struct DRMProbe: Sendable, Codable {
    public var directory: String
    public var cards: [CardReport]
    /// Set when there is nothing to probe (no /dev/dri, no card nodes).
    public var error: String?

    public struct Capabilities: Sendable, Codable, Hashable {
        public var atomic: Bool
        public var universalPlanes: Bool
        public var dumbBuffer: Bool
        /// The driver suggests drawing into a shadow buffer and copying (dumb buffers are slow to read).
        public var preferShadow: Bool
        public var asyncPageFlip: Bool
        public var monotonicTimestamps: Bool
    }

    public struct PropertyReport: Sendable, Codable, Hashable {
        public var name: String
        public var value: UInt64
        /// The value as a name ("Primary", "rotate-0|rotate-180") where the property has names.
        public var text: String
        /// Every name an enum or bitmask property accepts.
        public var choices: [String]?
        public var immutable: Bool
    }

    public struct ConnectorReport: Sendable, Codable, Hashable {
        public var info: DisplayConnectorInfo
        public var properties: [PropertyReport]
    }

    public struct CRTCReport: Sendable, Codable, Hashable {
        public var info: DisplayCRTCInfo
        public var properties: [PropertyReport]
    }

    public struct PlaneReport: Sendable, Codable, Hashable {
        public var info: DisplayPlaneInfo
        /// Clockwise rotations the plane can do in hardware (from its "rotation" property).
        public var rotations: [Int]
        public var properties: [PropertyReport]
    }

    public struct CardReport: Sendable, Codable, Hashable {
        public var path: String
        public var driver: String
        public var error: String?
        public var capabilities: Capabilities?
        public var connectors: [ConnectorReport] = []
        public var encoders: [DisplayEncoderInfo] = []
        public var crtcs: [CRTCReport] = []
        public var planes: [PlaneReport] = []
        /// Which plane would show NV12/YUV420 video (DRMProbeVideoPlane.swift).
        public var videoPlanes: [VideoPlaneReport] = []
        /// Writeback connectors: screenshots of what a CRTC composes (Writeback.swift).
        public var writebacks: [WritebackConnectorInfo] = []
    }

    /// Probes every card in `directory`.
    public static func run(directory: String = DRMDevices.defaultDirectory) -> DRMProbe {
        do {
            let paths = try DRMDevices.cardPaths(in: directory)
            return DRMProbe(directory: directory, cards: paths.map(probeCard), error: nil)
        } catch {
            return DRMProbe(directory: directory, cards: [], error: error.description)
        }
    }

    /// Probes one card node.
    public static func probeCard(_ path: String) -> CardReport {
        let card: KioskDisplay.Card
        do {
            card = try KioskDisplay.Card(path: path, wantAtomic: true)
        } catch {
            return CardReport(path: path, driver: "", error: error.description)
        }
        defer { card.close() }
        // Opening a card nobody drives makes this file master; let go at once so probing
        // never stands in the way of a player starting meanwhile.
        card.dropMaster()
        var result = CardReport(path: path, driver: card.driverName)
        result.capabilities = Capabilities(
            atomic: card.hasAtomic, universalPlanes: card.hasUniversalPlanes,
            dumbBuffer: card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0,
            preferShadow: card.capability(DRM_CAP_DUMB_PREFER_SHADOW) ?? 0 != 0,
            asyncPageFlip: card.capability(DRM_CAP_ASYNC_PAGE_FLIP) ?? 0 != 0,
            monotonicTimestamps: card.capability(DRM_CAP_TIMESTAMP_MONOTONIC) ?? 0 != 0)
        do {
            let snapshot = try card.snapshot()
            result.connectors = snapshot.connectors.map {
                ConnectorReport(info: $0, properties: properties(card, $0.id, DRM_MODE_OBJECT_CONNECTOR))
            }
            result.encoders = snapshot.encoders
            result.writebacks = snapshot.writebacks
            result.crtcs = snapshot.crtcs.map { CRTCReport(info: $0, properties: properties(card, $0.id, DRM_MODE_OBJECT_CRTC)) }
            result.planes = snapshot.planes.map {
                PlaneReport(info: $0, rotations: $0.rotation?.rotations.map(\.degrees) ?? [],
                      properties: properties(card, $0.id, DRM_MODE_OBJECT_PLANE))
            }
            result.videoPlanes = videoPlanes(snapshot: snapshot, hasAtomic: card.hasAtomic,
                                             hasUniversalPlanes: card.hasUniversalPlanes)
        } catch {
            result.error = error.description
        }
        return result
    }

    private static func properties(_ card: KioskDisplay.Card, _ id: UInt32, _ type: UInt32) -> [PropertyReport] {
        card.properties(of: id, type: type).map { prop in
            PropertyReport(name: prop.name, value: prop.value, text: prop.isBlob ? "blob \(prop.value)" : prop.valueText,
                     choices: prop.enumEntries.isEmpty ? nil : prop.enumEntries.map(\.name),
                     immutable: prop.isImmutable)
        }
    }
}
