/// What a sync of one manifest must fetch, decided from what the store already holds.
public struct SyncPlan: Sendable, Equatable {
    /// One file per hash (two names with the same bytes are fetched once), in manifest order.
    public var toFetch: [SyncManifestFile]
    /// Bytes still to download: the sizes of `toFetch` less what their partials already hold.
    public var bytesToFetch: Int64
    /// Files of the manifest already whole in objects/.
    public var filesPresent: Int

    public init(manifest: SyncManifest, objects: Set<String>, partialSizes: [String: Int64]) {
        var seen = Set<String>()
        toFetch = []
        bytesToFetch = 0
        filesPresent = 0
        for file in manifest.files {
            if objects.contains(file.sha256) { filesPresent += 1; continue }
            guard seen.insert(file.sha256).inserted else { continue }
            toFetch.append(file)
            let already = min(max(partialSizes[file.sha256] ?? 0, 0), file.size)
            bytesToFetch += file.size - already
        }
    }

    public var isComplete: Bool { toFetch.isEmpty }

    /// Checked before any byte is fetched: one line when the downloads would leave less than
    /// `minFree` bytes free (`need 1.9 GB more, 0.4 GB free`), nil when they fit.
    public func spaceProblem(freeBytes: Int64, minFree: Int64) -> String? {
        let shortfall = bytesToFetch + minFree - freeBytes
        guard shortfall > 0 else { return nil }
        // Both in one unit, so they compare at a glance: "need 1.9 GB more, 0.4 GB free".
        let unit = ByteCountText.unit(of: max(shortfall, freeBytes))
        return "need \(ByteCountText.text(shortfall, in: unit)) more, \(ByteCountText.text(max(freeBytes, 0), in: unit)) free "
            + "(\(ByteCountText.text(bytesToFetch)) to fetch, min_free \(ByteCountText.text(minFree)))"
    }
}

/// Sizes as people read them in a log line: decimal units with one decimal, as `df -H` does.
public enum ByteCountText {
    static let units: [(size: Double, name: String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]

    public static func text(_ bytes: Int64) -> String {
        guard let unit = unit(of: bytes) else { return "\(bytes) bytes" }
        return text(bytes, in: unit)
    }

    /// The largest unit `bytes` holds one of; nil below 1 kB.
    static func unit(of bytes: Int64) -> (size: Double, name: String)? {
        units.first { abs(Double(bytes)) >= $0.size }
    }

    static func text(_ bytes: Int64, in unit: (size: Double, name: String)?) -> String {
        guard let unit else { return "\(bytes) bytes" }
        let tenths = Int((Double(bytes) / unit.size * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10)) \(unit.name)"
    }
}
