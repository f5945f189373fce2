import KioskCore

extension DRMProbe {
    /// Which plane would scan decoded video out on the CRTC kiosk would drive (the first
    /// connected connector at its preferred mode), or why none would and the CPU converts.
    public struct VideoPlaneReport: Sendable, Codable, Hashable {
        public var connector: String
        public var crtcIndex: Int
        public var format: VideoFrameFormat
        /// The plane, when one fits (the driver's TEST_ONLY commit still has the last word).
        public var plane: UInt32?
        /// Why the CPU path would draw instead.
        public var reason: String?
    }

    /// The report for one card; empty when no connector is connected.
    static func videoPlanes(snapshot: CardSnapshot, hasAtomic: Bool, hasUniversalPlanes: Bool) -> [VideoPlaneReport] {
        guard let connector = try? ConnectorSelection.choose(named: nil, from: snapshot.connectors),
              let mode = try? ModeSelection.choose(nil, from: connector.modes, connector: connector.name),
              let crtc = try? CRTCSelection.choose(for: connector, connectors: snapshot.connectors,
                                                   encoders: snapshot.encoders, crtcs: snapshot.crtcs) else { return [] }
        let primary = try? PlaneSelection.primaryPlane(crtcIndex: crtc.index, crtcID: crtc.id, planes: snapshot.planes)
        // A typical signage clip: 1920x1080 fit on the mode (scaling unless the mode is 1080p).
        let layout = GravityLayout(source: PixelSize(width: 1920, height: 1080), target: mode.size, gravity: .fit)
        return [VideoFrameFormat.nv12, .yuv420p].map { format in
            var report = VideoPlaneReport(connector: connector.name, crtcIndex: crtc.index, format: format)
            guard hasAtomic && hasUniversalPlanes else {
                report.reason = "the driver has no atomic commits with universal planes"
                return report
            }
            let answer = PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: .none,
                                                            primaryPlaneID: primary?.id, crtcIndex: crtc.index, crtcID: crtc.id,
                                                            planes: snapshot.planes)
            if case .ready(let scanout) = answer { report.plane = scanout.planeID } else { report.reason = answer.reason }
            return report
        }
    }
}

extension DRMProbe.VideoPlaneReport {
    /// "video plane (NV12, Virtual-1 on CRTC #0): plane 45" or "...: none, CPU path: reason".
    var line: String {
        let formats = format.drmFormats.map(\.description).joined(separator: "/")
        let head = "  video plane (\(formats), \(connector) on CRTC #\(crtcIndex)): "
        if let plane { return head + "plane \(plane)" }
        return head + "none, CPU path: " + (reason ?? "unknown")
    }
}
