import KioskCore

/// The screen kiosk would drive, read without driving it, for `kiosk probe FILE`: which plane
/// would show a file's frames, or why the CPU would convert them (#33: "kiosk probe FILE says
/// which decoder, path and why"). The same choices the player makes from the same settings
/// (kiosk.conf's card, connector, mode, rotation and video_plane; the CRTC; who turns the
/// picture; then `chooseDirectScanout` / `choosePrimeScanout` from the planes' formats and
/// IN_FORMATS); the driver's TEST_ONLY commit, which the player asks before its first flip,
/// still has the last word (a plane that does not scale says so only there).
public struct ProbedScreen: Sendable {
    public let card: String
    public let connector: String
    public let mode: PixelSize
    /// kiosk.conf's `display.rotation`, and the part of it the CPU does (all of it where the
    /// primary plane cannot turn the picture, as DRMDisplay decides).
    public let rotation: Rotation
    public let softwareRotation: Rotation
    let videoPlane: VideoPlanePolicy
    let crtc: DisplayCRTCInfo
    let primaryPlaneID: UInt32?
    let planes: [DisplayPlaneInfo]
    /// Why no plane can be used at all (no atomic commits with universal planes).
    let noPlanes: String?

    /// How a file's first frame reaches the display, as the decoder hands it over.
    public struct Frame: Sendable {
        /// The frame in memory (copied down from a device, shrunk where the screen allows).
        public var size: PixelSize
        public var sampleAspect: Rational
        public var rotation: Rotation
        /// NV12 or YUV420 at limited range: what a plane takes as decoded; nil otherwise.
        public var planarFormat: VideoFrameFormat?
        /// Its pixel format's name ("yuv420p10le"), for the reason it is converted.
        public var formatName: String
        /// The device's own picture, where the decoder keeps it as DRM PRIME.
        public var prime: (format: FourCC, modifier: UInt64, size: PixelSize)?
        /// Why the device's DRM PRIME picture cannot be shown at all (no framebuffer from it).
        public var primeRefusal: String?

        public init(size: PixelSize, sampleAspect: Rational, rotation: Rotation, planarFormat: VideoFrameFormat?, formatName: String,
                    prime: (format: FourCC, modifier: UInt64, size: PixelSize)? = nil) {
            self.size = size; self.sampleAspect = sampleAspect; self.rotation = rotation
            self.planarFormat = planarFormat; self.formatName = formatName; self.prime = prime
        }
    }

    /// The buffers kiosk draws into: the mode, turned where the primary plane turns the picture.
    public var bufferSize: PixelSize { softwareRotation == .none && rotation.swapsAxes ? mode.transposed : mode }
    /// The screen as its viewer sees it (upright): the size frames are shrunk to cover.
    public var viewerSize: PixelSize { rotation.swapsAxes ? mode.transposed : mode }

    /// The screen `options` name (card, connector, mode, rotation, video plane; nil card: the
    /// first with a connected screen, as the player tries them); throws why there is none.
    /// `earlier`: the screens a separate layout opens before this one; those on its card take
    /// their CRTCs first, as in the player (DisplayOpener.openScreens), and the planes this
    /// screen can use are its CRTC's.
    public static func open(_ options: DRMDisplayOptions, after earlier: [DRMDisplayOptions] = []) throws -> ProbedScreen {
        let paths: [String]
        do {
            paths = try options.card.map { [DRMDevices.resolve($0)] } ?? DRMDevices.cardPaths()
        } catch {
            throw NoScreen(description: "\(error)")
        }
        var reasons: [String] = []
        for path in paths {
            do {
                let opened = try Card(path: path, wantAtomic: options.api != .legacy)
                defer { opened.close() }
                opened.dropMaster()   // never in the way of a player starting meanwhile
                let snapshot = try opened.snapshot()
                // As the player opens them: a screen naming no card is on the first one.
                let before = earlier.filter { $0.card.map { DRMDevices.resolve($0) } ?? (try? DRMDevices.cardPaths().first) == path }
                return try screen(card: path, snapshot: snapshot, atomic: opened.hasAtomic && opened.hasUniversalPlanes,
                                  options: options, after: before)
            } catch {
                reasons.append("\(path): \(error)")
            }
        }
        throw NoScreen(description: reasons.isEmpty ? "no DRM card" : reasons.joined(separator: "; "))
    }

    /// Why no screen could be read.
    public struct NoScreen: Error, CustomStringConvertible {
        public let description: String
    }

    /// The screen kiosk would choose with `options` on a card of `snapshot`; throws why there
    /// is none (no connected connector, the named one missing, the mode not offered).
    /// `earlier`: the screens opened before it on this card, each taking a CRTC in turn (one
    /// that cannot open takes none, as it would stop the player's start).
    static func screen(card: String, snapshot: CardSnapshot, atomic: Bool,
                       options: DRMDisplayOptions = DRMDisplayOptions(), after earlier: [DRMDisplayOptions] = []) throws -> ProbedScreen {
        var taken: Set<UInt32> = []
        for before in earlier {
            guard let connector = try? ConnectorSelection.choose(named: before.connector, from: snapshot.connectors),
                  let crtc = try? CRTCSelection.choose(for: connector, connectors: snapshot.connectors, encoders: snapshot.encoders,
                                                      crtcs: snapshot.crtcs, taken: taken) else { continue }
            taken.insert(crtc.id)
        }
        let connector = try ConnectorSelection.choose(named: options.connector, from: snapshot.connectors)
        let mode = try ModeSelection.choose(options.mode, from: connector.modes, connector: connector.name)
        let crtc = try CRTCSelection.choose(for: connector, connectors: snapshot.connectors,
                                            encoders: snapshot.encoders, crtcs: snapshot.crtcs, taken: taken)
        let primary = try? PlaneSelection.primaryPlane(crtcIndex: crtc.index, crtcID: crtc.id, planes: snapshot.planes)
        let planeRotates = options.rotation != .none && atomic && primary?.supports(options.rotation) == true
        return ProbedScreen(card: card, connector: connector.name, mode: mode.size, rotation: options.rotation,
                            softwareRotation: planeRotates ? .none : options.rotation, videoPlane: options.videoPlane,
                            crtc: crtc, primaryPlaneID: primary?.id, planes: snapshot.planes,
                            noPlanes: atomic ? nil : "the driver has no atomic commits with universal planes")
    }

    /// Where `frame` would be shown with `gravity` (within `region`, kiosk.conf's
    /// `playback.region`): "plane 40 takes YU12 as decoded, no CPU conversion", "plane 105 takes
    /// ... P030 laid out as Broadcom SAND128 ..., zero copy", or "the CPU converts it: reason"
    /// (after a zero-copy refusal, both reasons).
    public func scanout(of frame: Frame, gravity: VideoGravity, region: ScreenRegion? = nil) -> String {
        var refusals = frame.primeRefusal.map { ["zero copy: \($0); copied to memory"] } ?? []
        // As DRMDisplay: a screen the CPU turns has the video laid out on it turned already;
        // one the primary plane turns has it laid out upright, and the video's plane turns it too.
        let displayRotation = softwareRotation == .none ? rotation : .none
        let refusal = videoPlane == .off ? "display.video_plane is off" : noPlanes
        if let prime = frame.prime {
            let layout = GravityLayout.onScreen(source: prime.size, sampleAspect: frame.sampleAspect, rotation: frame.rotation,
                                                buffer: bufferSize, softwareRotation: softwareRotation, gravity: gravity, region: region)
            let answer = refusal.map { DirectScanoutAnswer.refused(reason: $0) }
                ?? PlaneSelection.choosePrimeScanout(format: prime.format, modifier: prime.modifier, layout: layout,
                                                     displayRotation: displayRotation, primaryPlaneID: primaryPlaneID,
                                                     crtcIndex: crtc.index, crtcID: crtc.id, planes: planes)
            if case .ready(let scanout) = answer {
                let laidOut = FormatModifier.name(prime.modifier)
                return "plane \(scanout.planeID) takes the device's \(prime.format) (\(laidOut)) as it is, zero copy"
                    + Self.turned(scanout) + Self.ifScaled(scanout)
            }
            refusals.append("zero copy: \(answer.reason ?? "refused"); copied to memory")
        }
        guard let format = frame.planarFormat else {
            return (refusals + ["the CPU converts it: frames are \(frame.formatName), not NV12 or YUV420 (limited range)"])
                .joined(separator: "; ")
        }
        let layout = GravityLayout.onScreen(source: frame.size, sampleAspect: frame.sampleAspect, rotation: frame.rotation,
                                            buffer: bufferSize, softwareRotation: softwareRotation, gravity: gravity, region: region)
        let answer = refusal.map { DirectScanoutAnswer.refused(reason: $0) }
            ?? PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: displayRotation, primaryPlaneID: primaryPlaneID,
                                                  crtcIndex: crtc.index, crtcID: crtc.id, planes: planes)
        if case .ready(let scanout) = answer {
            return (refusals + ["plane \(scanout.planeID) takes \(scanout.format) as decoded, no CPU conversion"
                                + Self.turned(scanout) + Self.ifScaled(scanout)])
                .joined(separator: "; ")
        }
        return (refusals + ["the CPU converts it: \(answer.reason ?? "refused")"]).joined(separator: "; ")
    }

    /// ", turned 90° by the plane" where the plane rotates the frame (a rotation tag, a turned screen).
    static func turned(_ scanout: PlaneScanout) -> String {
        scanout.rotation == .none ? "" : ", turned \(scanout.rotation.degrees)° by the plane"
    }

    /// Where the plane would have to scale and the driver does not say whether it can (no
    /// SCALING_FILTER property): only the TEST_ONLY commit at the first frame tells.
    static func ifScaled(_ scanout: PlaneScanout) -> String {
        guard scanout.needsTestCommit else { return "" }
        return ", if the driver scales \(scanout.source.size) to \(scanout.destination.size) (its TEST_ONLY commit at the first "
            + "frame says; else the CPU converts it)"
    }

    /// "card0 (Virtual-1, 1280x720)", "card1 (HDMI-A-1, 1920x1080, turned 90° by the plane)".
    public var name: String {
        let short = card.split(separator: "/").last.map(String.init) ?? card
        let turned = rotation == .none ? "" : ", turned \(rotation.degrees)° by " + (softwareRotation == .none ? "the plane" : "the CPU")
        return "\(short) (\(connector), \(mode.width)x\(mode.height)\(turned))"
    }
}
