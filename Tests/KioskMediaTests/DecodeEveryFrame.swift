@testable import KioskMedia

extension VideoDecoder {
    /// Every frame of `demuxer`'s video, in order, draining at the end (the tests' loop).
    /// `afterEach` runs after each frame is received, as the engine looks at the decoder then.
    func decodeEveryFrame(from demuxer: Demuxer, afterEach: () -> Void = {}) -> [DecodedFrame] {
        var frames: [DecodedFrame] = []
        func drain() {
            while case .frame(let frame) = receive() {
                frames.append(frame)
                afterEach()
            }
        }
        while case .packet(let packet) = demuxer.read() {
            while !send(packet) { drain() }
            drain()
        }
        _ = send(nil as Packet?)
        drain()
        return frames
    }
}
