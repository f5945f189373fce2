import KioskTestSupport

/// Edits a HEIF file's boxes (ISO/IEC 14496-12, 23008-12) in memory, for files heif-enc 1.15
/// cannot write: a rotated photo (an `irot` property on the primary item, as a phone writes
/// it) and a huge one (its `ispe` claiming more pixels than were encoded). Handles what
/// heif-enc writes: 32-bit box sizes, `meta` before `mdat`.
struct HeifBoxEditor {
    var bytes: [UInt8]

    struct Box {
        let type: String
        let start: Int
        let size: Int
        /// Where its children start: after the header, and after version and flags for a full box.
        func childrenStart(full: Bool) -> Int { start + 8 + (full ? 4 : 0) }
        var end: Int { start + size }
    }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func uint(at offset: Int, bytes count: Int) -> Int {
        (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    mutating func setUInt(_ value: Int, at offset: Int, bytes count: Int) {
        for index in 0..<count { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - index))) }
    }

    func boxes(from start: Int, to end: Int) throws -> [Box] {
        var found: [Box] = [], offset = start
        while offset + 8 <= end {
            let size = uint(at: offset, bytes: 4)
            guard size >= 8, offset + size <= end else { throw FixtureError("HEIF box at \(offset) has size \(size)") }
            found.append(Box(type: String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), start: offset, size: size))
            offset += size
        }
        return found
    }

    func child(_ type: String, of parent: Box?, full: Bool = false) throws -> Box {
        let children = try parent.map { try boxes(from: $0.childrenStart(full: full), to: $0.end) } ?? boxes(from: 0, to: bytes.count)
        guard let box = children.first(where: { $0.type == type }) else { throw FixtureError("no \(type) box in the HEIF file") }
        return box
    }

    /// meta's item properties: (meta, iprp, ipco, ipma).
    func properties() throws -> (meta: Box, iprp: Box, ipco: Box, ipma: Box) {
        let meta = try child("meta", of: nil)
        let iprp = try child("iprp", of: meta, full: true)
        return (meta, iprp, try child("ipco", of: iprp), try child("ipma", of: iprp))
    }

    /// Sets the size the primary image's `ispe` says (libheif's handle reports it before decoding).
    mutating func setImageSize(width: Int, height: Int) throws {
        let ispe = try child("ispe", of: try properties().ipco)
        setUInt(width, at: ispe.start + 12, bytes: 4)
        setUInt(height, at: ispe.start + 16, bytes: 4)
    }

    /// Adds `irot` (`angle` quarter turns counter-clockwise) to ipco and associates it, essential,
    /// with the primary item in ipma; the sizes of the boxes around grow and iloc's offsets
    /// into mdat (after meta) move by what was inserted.
    mutating func addRotation(angle: Int) throws {
        let (meta, iprp, ipco, ipma) = try properties()
        let pitm = try child("pitm", of: meta, full: true)
        let primary = bytes[pitm.start + 8] == 0 ? uint(at: pitm.start + 12, bytes: 2) : uint(at: pitm.start + 12, bytes: 4)
        let index = try boxes(from: ipco.childrenStart(full: false), to: ipco.end).count + 1
        let version = Int(bytes[ipma.start + 8]), wideIndex = bytes[ipma.start + 11] & 1 == 1
        guard ipma.end > ipco.end else { throw FixtureError("ipma before ipco") }
        // Finds the primary item's entry: its association count and where its list ends.
        var offset = ipma.start + 16, countAt: Int?, listEnd = 0
        for _ in 0..<uint(at: ipma.start + 12, bytes: 4) {
            let id = uint(at: offset, bytes: version < 1 ? 2 : 4)
            offset += version < 1 ? 2 : 4
            let count = Int(bytes[offset])
            let end = offset + 1 + count * (wideIndex ? 2 : 1)
            if id == primary { countAt = offset; listEnd = end }
            offset = end
        }
        guard let countAt else { throw FixtureError("the primary item \(primary) has no ipma entry") }
        let association: [UInt8] = wideIndex ? [UInt8(0x80 | (index >> 8)), UInt8(index & 0xFF)] : [UInt8(0x80 | index)]
        let irot: [UInt8] = [0, 0, 0, 9] + Array("irot".utf8) + [UInt8(angle & 3)]
        let added = association.count + irot.count
        // Later positions first, so earlier ones stay where they were.
        bytes[countAt] += 1
        bytes.insert(contentsOf: association, at: listEnd)
        setUInt(ipma.size + association.count, at: ipma.start, bytes: 4)
        bytes.insert(contentsOf: irot, at: ipco.end)
        setUInt(ipco.size + irot.count, at: ipco.start, bytes: 4)
        setUInt(iprp.size + added, at: iprp.start, bytes: 4)
        setUInt(meta.size + added, at: meta.start, bytes: 4)
        try moveFileOffsets(by: added, from: meta.end)
    }

    /// Adds `delta` to iloc's absolute offsets (construction method 0) at or past `boundary`.
    private mutating func moveFileOffsets(by delta: Int, from boundary: Int) throws {
        let iloc = try child("iloc", of: try child("meta", of: nil), full: true)
        let version = Int(bytes[iloc.start + 8])
        let offsetSize = Int(bytes[iloc.start + 12] >> 4), lengthSize = Int(bytes[iloc.start + 12] & 15)
        let baseSize = Int(bytes[iloc.start + 13] >> 4), indexSize = version >= 1 ? Int(bytes[iloc.start + 13] & 15) : 0
        var offset = iloc.start + 14
        let itemCount = uint(at: offset, bytes: version < 2 ? 2 : 4)
        offset += version < 2 ? 2 : 4
        for _ in 0..<itemCount {
            offset += version < 2 ? 2 : 4   // item_ID
            var method = 0
            if version >= 1 { method = uint(at: offset, bytes: 2) & 15; offset += 2 }
            offset += 2   // data_reference_index
            let baseAt = offset, base = baseSize > 0 ? uint(at: offset, bytes: baseSize) : 0
            offset += baseSize
            let extents = uint(at: offset, bytes: 2)
            offset += 2
            let moveBase = method == 0 && baseSize > 0 && base >= boundary
            if moveBase { setUInt(base + delta, at: baseAt, bytes: baseSize) }
            for _ in 0..<extents {
                offset += indexSize
                let extent = offsetSize > 0 ? uint(at: offset, bytes: offsetSize) : 0
                if method == 0 && !moveBase && offsetSize > 0 && base + extent >= boundary {
                    setUInt(extent + delta, at: offset, bytes: offsetSize)
                }
                offset += offsetSize + lengthSize
            }
        }
    }
}
