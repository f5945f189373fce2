@testable import KioskMedia

extension VideoDecoder {
    /// Every frame of `demuxer`'s video, in order, draining at the end (the tests' loop).
    func decodeEveryFrame(from demuxer: Demuxer) -> [DecodedFrame] {
        var frames: [DecodedFrame] = []
        func drain() { while case .frame(let frame) = receive() { frames.append(frame) } }
        while case .packet(let packet) = demuxer.read() {
            while !send(packet) { drain() }
            drain()
        }
        _ = send(nil as Packet?)
        drain()
        return frames
    }
}
