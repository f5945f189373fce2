import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A buffer of `size` with `stride` bytes a row, every byte 0xAB (a colour no fill writes), so
/// a write outside the rectangle or into the row padding shows.
private final class TestBuffer {
    let memory: UnsafeMutableRawPointer
    let buffer: PixelBuffer
    let byteCount: Int

    init(width: Int, height: Int, stride: Int) {
        byteCount = stride * height
        memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0xAB, count: byteCount)
        buffer = PixelBuffer(base: memory, size: PixelSize(width: width, height: height), stride: stride, index: 0)
    }

    deinit { memory.deallocate() }

    /// Every byte that is not `expected(x, y)` (pixels) or 0xAB (padding), as "x,y" labels.
    func mismatches(_ expected: (Int, Int) -> UInt32) -> [String] {
        var wrong: [String] = []
        for y in 0..<buffer.size.height {
            for x in 0..<buffer.size.width where buffer.pixel(x: x, y: y) != expected(x, y) {
                wrong.append("\(x),\(y)=\(String(buffer.pixel(x: x, y: y), radix: 16))")
            }
            for offset in buffer.size.width * 4..<buffer.stride
            where memory.load(fromByteOffset: y * buffer.stride + offset, as: UInt8.self) != 0xAB {
                wrong.append("padding \(offset),\(y)")
            }
        }
        return wrong
    }
}

struct FillCase: Sendable, CustomStringConvertible {
    let width: Int, height: Int, stride: Int
    let rect: PixelRect
    let color: UInt32
    var description: String { "\(rect) in \(width)x\(height) stride \(stride) colour \(String(color, radix: 16))" }
}

private let untouched: UInt32 = 0xABAB_ABAB

let fillTable: [FillCase] = [
    FillCase(width: 8, height: 4, stride: 32, rect: PixelRect(x: 0, y: 0, width: 8, height: 4), color: 0),
    FillCase(width: 8, height: 4, stride: 40, rect: PixelRect(x: 0, y: 0, width: 8, height: 4), color: 0x00FF_00FF),
    // One pixel; one column; one row; odd widths (the doubling copy's last chunk is partial).
    FillCase(width: 7, height: 5, stride: 28, rect: PixelRect(x: 3, y: 2, width: 1, height: 1), color: 0x0012_3456),
    FillCase(width: 7, height: 5, stride: 36, rect: PixelRect(x: 6, y: 0, width: 1, height: 5), color: 0),
    FillCase(width: 7, height: 5, stride: 36, rect: PixelRect(x: 0, y: 4, width: 7, height: 1), color: 0x00FF_0000),
    FillCase(width: 13, height: 6, stride: 64, rect: PixelRect(x: 2, y: 1, width: 11, height: 3), color: 0x0000_FF00),
    FillCase(width: 13, height: 6, stride: 64, rect: PixelRect(x: 2, y: 1, width: 5, height: 5), color: 0),
    // Empty rectangles write nothing.
    FillCase(width: 4, height: 4, stride: 16, rect: PixelRect(x: 1, y: 1, width: 0, height: 3), color: 0),
    FillCase(width: 4, height: 4, stride: 16, rect: PixelRect(x: 1, y: 1, width: 3, height: 0), color: 0),
]

@Test(arguments: fillTable)
func fillPaintsExactlyTheRectangle(_ c: FillCase) {
    let test = TestBuffer(width: c.width, height: c.height, stride: c.stride)
    test.buffer.fill(c.rect, color: c.color)
    let wrong = test.mismatches { x, y in
        (c.rect.x..<c.rect.maxX).contains(x) && (c.rect.y..<c.rect.maxY).contains(y) ? c.color : untouched
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(8))")
}

@Test(arguments: [PixelRect(x: 3, y: 2, width: 10, height: 5), PixelRect(x: 0, y: 0, width: 16, height: 9),
                  PixelRect(x: 0, y: 3, width: 16, height: 4), PixelRect(x: 5, y: 0, width: 6, height: 9)])
func clearOutsideBlackensTheBarsOnly(_ picture: PixelRect) {
    let test = TestBuffer(width: 16, height: 9, stride: 72)
    test.buffer.clear(outside: picture)
    let wrong = test.mismatches { x, y in
        (picture.x..<picture.maxX).contains(x) && (picture.y..<picture.maxY).contains(y) ? untouched : 0
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(8))")
}
