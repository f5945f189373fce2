/// What to do with a download's response, decided from its status line and headers before its
/// body is written (the partial file's bytes are only touched after this).
public enum DownloadAction: Sendable, Equatable {
    /// 304: what we hold is current (the manifest's If-None-Match).
    case notModified
    /// 206 from where the partial ends: the body continues it.
    case append
    /// 200 (the server ignored Range or the file changed: If-Range): the body is the whole file.
    case restart
    /// 416: the partial is longer than the file (it changed): drop it and fetch again from 0.
    case dropPartial
    /// Not what was asked for: the line to log (the URL is added by the caller).
    case fail(String)
}

/// The response's parts that decide it.
public struct DownloadResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    /// The first byte of a 206's `Content-Range: bytes FIRST-LAST/TOTAL`.
    public var rangeStart: Int64?

    public init(status: Int, contentType: String? = nil, rangeStart: Int64? = nil) {
        self.status = status
        self.contentType = contentType
        self.rangeStart = rangeStart
    }

    /// `offset`: the bytes the partial holds (a Range was sent when > 0); `expectedSize`: the
    /// manifest's size, nil for the manifest itself.
    public func action(offset: Int64, expectedSize: Int64?) -> DownloadAction {
        switch status {
        case 304:
            return expectedSize == nil ? .notModified : .fail("HTTP 304 to a request without a validator")
        case 206:
            if let expectedSize, let type = htmlType { return .fail("got \(type), not \(expectedSize) bytes") }
            // A range from elsewhere than asked cannot continue the partial: start again.
            return rangeStart == offset && offset > 0 ? .append : .restart
        case 200:
            if let expectedSize, let type = htmlType { return .fail("got \(type), not \(expectedSize) bytes") }
            return .restart
        case 416:
            return offset > 0 ? .dropPartial : .fail("HTTP 416 (range not satisfiable) without a range")
        default:
            return .fail("HTTP \(status)")
        }
    }

    /// A web page where media bytes were expected (a captive portal, an error page).
    private var htmlType: String? {
        guard let type = contentType?.lowercased().split(separator: ";").first.map({ String($0).trimmingWhitespace() }),
              type == "text/html" || type == "application/xhtml+xml" else { return nil }
        return type
    }

    /// `bytes 100-199/200` -> 100; nil for anything else.
    public static func rangeStart(ofContentRange header: String) -> Int64? {
        let text = header.trimmingWhitespace()
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let range = String(text.dropFirst(6)).trimmingWhitespace()
        guard let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[..<dash])
    }
}

/// When a download counts as stalled: libcurl's LOW_SPEED_LIMIT/TIME are set from this; a
/// stalled transfer is resumed from its partial on the next pass.
public struct DownloadStallPolicy: Sendable, Equatable {
    public var bytesPerSecond = 1024
    public var seconds = 30
    public init(bytesPerSecond: Int = 1024, seconds: Int = 30) {
        self.bytesPerSecond = bytesPerSecond
        self.seconds = seconds
    }
}
