import CDRM
import Glibc
import KioskCore

/// The card, connector, mode, CRTC and primary plane kiosk will drive, chosen by KioskCore's
/// rules from what the card reports.
struct SelectedOutput {
    let card: Card
    let snapshot: CardSnapshot
    let connector: DisplayConnectorInfo
    let mode: DisplayMode
    let crtc: DisplayCRTCInfo
    /// nil without universal planes: legacy calls address the CRTC, not the plane.
    let primaryPlane: DisplayPlaneInfo?

    /// Opens the card of `options` (or tries every card in order) and picks the output there.
    /// With `shared`, the output is picked on that card (already open, its master held)
    /// among the CRTCs its other screens do not drive.
    static func open(_ options: DRMDisplayOptions, on shared: SharedCard? = nil) throws(DRMError) -> SelectedOutput {
        if let shared {
            return try select(on: shared.card, options, taken: shared.busyCRTCs)
        }
        if let card = options.card {
            return try select(on: DRMDevices.resolve(card, in: options.deviceDirectory), options)
        }
        let paths = try DRMDevices.cardPaths(in: options.deviceDirectory)
        var failures: [(path: String, error: DRMError)] = []
        for path in paths {
            do {
                return try select(on: path, options)
            } catch {
                failures.append((path, error))
            }
        }
        // One card: its own error says it best. Several: if none has a screen, list them all;
        // else the first error that is not "no screen here" (permission, master, mode...).
        if failures.count == 1 { throw failures[0].error }
        var unconnected: [(path: String, connectors: [String])] = []
        for failure in failures {
            guard case .selection(_, .noConnectedConnector(let connectors)) = failure.error else { throw failure.error }
            unconnected.append((failure.path, connectors))
        }
        throw .noConnectedScreen(unconnected)
    }

    private static func select(on path: String, _ options: DRMDisplayOptions) throws(DRMError) -> SelectedOutput {
        let card = try Card(path: path, wantAtomic: options.api != .legacy)
        if options.api == .atomic && !card.hasAtomic { throw .atomicUnsupported(path: path) }
        guard card.capability(DRM_CAP_DUMB_BUFFER) ?? 0 != 0 else { throw .noDumbBuffers(path: path) }
        return try select(on: card, options, taken: [])
    }

    private static func select(on card: Card, _ options: DRMDisplayOptions,
                               taken: Set<UInt32>) throws(DRMError) -> SelectedOutput {
        let snapshot = try card.snapshot()
        do {
            let connector = try ConnectorSelection.choose(named: options.connector, from: snapshot.connectors)
            let mode = try ModeSelection.choose(options.mode, from: connector.modes, connector: connector.name)
            let crtc = try CRTCSelection.choose(for: connector, connectors: snapshot.connectors,
                                                encoders: snapshot.encoders, crtcs: snapshot.crtcs, taken: taken)
            let plane = card.hasUniversalPlanes
                ? try PlaneSelection.primaryPlane(crtcIndex: crtc.index, crtcID: crtc.id, planes: snapshot.planes) : nil
            return SelectedOutput(card: card, snapshot: snapshot, connector: connector, mode: mode, crtc: crtc,
                                  primaryPlane: plane)
        } catch {
            throw .selection(path: card.path, error)
        }
    }

    /// The CRTC driving the connector now, when it is not the one chosen (atomic switches it off).
    var previousCRTCOfConnector: UInt32? {
        guard let encoder = snapshot.encoders.first(where: { $0.id == connector.currentEncoderID }),
              encoder.currentCRTCID != 0, encoder.currentCRTCID != crtc.id else { return nil }
        return encoder.currentCRTCID
    }

    /// Overlay and cursor planes left on the chosen CRTC by the previous master.
    var planesToDisable: [UInt32] {
        snapshot.planes.filter { $0.currentCRTCID == crtc.id && $0.id != primaryPlane?.id && $0.currentFramebufferID != 0 }
            .map(\.id)
    }
}
