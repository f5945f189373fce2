import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// The scaler writes the picture and nothing else: no byte to the right of a picture row, none
/// past a buffer that is exactly the picture's size. swscale's SIMD paths work in pixel groups
/// and once wrote 8 pixels past a 360-pixel row (heap corruption with rotated layouts).
@Suite struct ScalerEdgeTests {
    static func firstFrame() throws -> DecodedFrame {
        let path = try MediaFixtures.clip("edge-320x240.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=0.2",
                                                               "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let reader = try VideoFrameReader(asset: try Asset(source: path))
        return try #require(try reader.nextFrame())
    }

    /// Picture widths around multiples of 8 and 16, each centred with bars either side: every
    /// pixel outside the picture stays black, and a guard row after the buffer is untouched.
    @Test(arguments: [352, 360, 364, 368, 376, 380, 384])
    func nothingIsWrittenOutsideThePicture(pictureWidth: Int) throws {
        let frame = try Self.firstFrame()
        let target = PixelSize(width: pictureWidth + 64, height: pictureWidth * 3 / 4)
        let layout = Scaler.layout(for: frame, on: target, gravity: .fit)
        let stride = target.width * 4
        let guardBytes = 4096
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * target.height + guardBytes, alignment: 64)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0xAB, count: stride * target.height + guardBytes)
        let buffer = PixelBuffer(base: memory, size: target, stride: stride, index: 0)
        try Scaler().draw(frame, layout: layout, into: buffer)

        let destination = layout.destination
        var strays = 0
        for y in 0..<target.height {
            for x in 0..<target.width where !(destination.x..<destination.maxX).contains(x) || !(destination.y..<destination.maxY).contains(y) {
                if memory.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) & 0x00FF_FFFF != 0 { strays += 1 }
            }
        }
        #expect(strays == 0, "\(strays) pixels written outside the \(destination) picture")
        let tail = (0..<guardBytes).filter { memory.load(fromByteOffset: stride * target.height + $0, as: UInt8.self) != 0xAB }
        #expect(tail.isEmpty, "\(tail.count) bytes written past the buffer")
    }
}
