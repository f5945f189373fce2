import KioskCore

/// One small body fetched whole into memory, with If-None-Match: a manifest, its signature, a
/// ticker's feed. A body over `maxBytes` is refused with `tooLarge` (a 50 MB "feed" is not
/// read into memory); a status that is not 200 or 304 is its line.
public enum SmallHTTPGet {
    public static func get(_ url: String, ifNoneMatch: String?, maxBytes: Int, tooLarge: String,
                           options: HTTPOptions) -> FeedFetchResult {
        let transfer: HTTPTransfer, runner: HTTPMultiRunner
        do {
            let curl = try CurlLibrary.load()
            transfer = try HTTPTransfer(url: url, headers: ifNoneMatch.map { ["If-None-Match: \($0)"] } ?? [], options: options, curl: curl)
            runner = try HTTPMultiRunner(curl: curl)
        } catch {
            return .failed(error.description)
        }
        var body: [UInt8] = []
        var etag: String?
        var notModified = false
        transfer.onHeaders = { response, headers in
            switch response.action(offset: 0, expectedSize: nil) {
            case .notModified: notModified = true; return nil
            case .fail(let reason): return reason
            default: etag = headers["etag"]; return nil
            }
        }
        transfer.onBody = { bytes in
            guard !notModified else { return nil }
            guard body.count + bytes.count <= maxBytes else { return tooLarge }
            body.append(contentsOf: bytes)
            return nil
        }
        var failure: String?
        runner.run([transfer], parallel: 1, shouldStop: { false }) { _, line in failure = line }
        if let failure { return .failed(failure) }
        return notModified ? .notModified : .body(body, etag: etag)
    }

    /// A ticker's feed: 10 s at most, 1 MiB at most, TLS verified with the system's CAs.
    public static func feed(_ url: String, etag: String?, maxBytes: Int, timeout: Double) -> FeedFetchResult {
        var options = HTTPOptions()
        options.totalTimeoutSeconds = max(1, Int(timeout.rounded(.up)))
        return get(url, ifNoneMatch: etag, maxBytes: maxBytes, tooLarge: "more than \(maxBytes / 1024) KiB: not a feed", options: options)
    }
}
