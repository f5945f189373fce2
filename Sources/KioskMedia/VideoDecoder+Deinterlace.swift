import CFFmpeg
import KioskCore

/// Interlaced frames woven whole (`Deinterlacer`, bwdif) as the decoder hands them out
/// (`playback.deinterlace`), and the line saying how they are shown.
extension VideoDecoder {
    /// The line saying how interlaced frames are shown, once per stream; nil after.
    public func takeDeinterlaceNote() -> (line: String, isProblem: Bool)? {
        defer { deinterlaceNote = nil }
        return deinterlaceNote
    }

    /// Hands `frame` to the deinterlacer, built at the first; where it cannot be, frames are
    /// shown as decoded from then on, said once.
    func weave(_ frame: UnsafeMutablePointer<AVFrame>) {
        do {
            if deinterlacer == nil {
                deinterlacer = try Deinterlacer(source: source, timeBase: stream.timeBase, like: frame, everyFrame: deinterlace == .on)
                if !saidDeinterlacing {
                    deinterlaceNote = (deinterlace == .on ? "every frame deinterlaced (\(Deinterlacer.filter), deinterlace: on)"
                                       : "frames are interlaced: deinterlaced (\(Deinterlacer.filter))", false)
                }
                saidDeinterlacing = true
            }
            try deinterlacer?.push(frame, ticks: stream.ticks(of: frame))
        } catch {
            // Not built: the frame is still here, shown next. Built but refused: the filter took
            // it (and drops what it held: a frame or two, once).
            if deinterlacer == nil { deliverUnwoven = frame }
            deinterlacer = nil
            deinterlace = .off
            deinterlaceNote = ("\((error as? MediaError)?.reason ?? "\(error)"); interlaced frames shown as decoded", true)
        }
    }
}
