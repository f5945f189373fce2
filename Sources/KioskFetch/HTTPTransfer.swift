import CCurl
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// libcurl, opened the first time a transfer is made (CCurl.h): a box without libcurl4 plays,
/// and the sync, feed or alert that needs it says why in its own line.
struct CurlLibrary: @unchecked Sendable {   // a pointer to the loader's table, filled once, then only read
    let api: UnsafePointer<kiosk_curl_api>

    private static let loaded: Result<CurlLibrary, CurlFailure> = {
        var error: UnsafePointer<CChar>?
        guard let api = kiosk_curl_load(&error) else {
            let reason = error.map { String(cString: $0) } ?? "cannot open libcurl.so.4"
            return .failure(CurlFailure(description: "cannot open libcurl: \(reason) (Debian: apt install libcurl4, then restart kiosk)"))
        }
        return .success(CurlLibrary(api: api))
    }()

    static func load() throws(CurlFailure) -> CurlLibrary { try loaded.get() }
}

/// libcurl missing, or a handle it could not make (out of memory): the transfer's line.
struct CurlFailure: Error, CustomStringConvertible {
    let description: String
}

/// How every transfer is made: TLS always verified (with `caFile` when set), http(s) only,
/// redirects followed, a stall (under 1 KiB/s for 30 s) ends the transfer.
public struct HTTPOptions: Sendable {
    public var caFile: String?
    /// Bytes per second for this one transfer; 0 is unlimited.
    public var maxRecvSpeed: Int64 = 0
    public var stall = DownloadStallPolicy()
    public var connectTimeoutSeconds = 15
    /// The whole transfer's limit (a feed: 10 s); 0: none (a large file takes what it takes,
    /// the stall limit ends a dead one).
    public var totalTimeoutSeconds = 0

    public init(caFile: String? = nil, maxRecvSpeed: Int64 = 0) {
        self.caFile = caFile
        self.maxRecvSpeed = maxRecvSpeed
    }
}

/// One libcurl easy handle and what it does with the response. `onHeaders` sees the final
/// response's status and headers before any body byte (it returns a line to abort with);
/// `onBody` takes the bytes (false aborts).
final class HTTPTransfer {
    let url: String
    private let curl: UnsafePointer<kiosk_curl_api>
    let handle: UnsafeMutableRawPointer
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its error text here; it must stay put while the handle lives.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Headers of the response being read, names lowercased (a redirect's are replaced).
    private(set) var headers: [String: String] = [:]
    private(set) var status = 0
    /// The line that ended the transfer from inside (a refused response, a full disk).
    private(set) var abortReason: String?
    private var headersSeen = false
    var onHeaders: (DownloadResponse, [String: String]) -> String? = { _, _ in nil }
    var onBody: (UnsafeRawBufferPointer) -> String? = { _ in nil }
    /// Body bytes received in this transfer.
    private(set) var received: Int64 = 0
    /// `sync.max_rate`, shared by the transfers of one run; nil: no limit.
    var rateGate: SharedRateBudget?
    /// The body callback paused the transfer (the budget was empty); the runner resumes it.
    var isPaused = false

    init(url: String, headers: [String], options: HTTPOptions, curl library: CurlLibrary) throws(CurlFailure) {
        guard let handle = library.api.pointee.easy_init() else {
            throw CurlFailure(description: "libcurl could not make a transfer handle (out of memory)")
        }
        self.url = url
        curl = library.api
        self.handle = handle
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)   // after the guard: no deinit runs for a throw
        for header in headers { requestHeaders = curl.pointee.slist_append(requestHeaders, header) }
        configure(options)
    }

    deinit {
        curl.pointee.easy_cleanup(handle)
        curl.pointee.slist_free_all(requestHeaders)
        errorBuffer.deallocate()
    }

    private func configure(_ options: HTTPOptions) {
        kiosk_curl_set_string(curl, handle, CURLOPT_URL, url)
        kiosk_curl_set_string(curl, handle, CURLOPT_PROTOCOLS_STR, "http,https")
        kiosk_curl_set_string(curl, handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        kiosk_curl_set_long(curl, handle, CURLOPT_FOLLOWLOCATION, 1)
        kiosk_curl_set_long(curl, handle, CURLOPT_MAXREDIRS, 5)
        kiosk_curl_set_long(curl, handle, CURLOPT_SSL_VERIFYPEER, 1)
        kiosk_curl_set_long(curl, handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = options.caFile { kiosk_curl_set_string(curl, handle, CURLOPT_CAINFO, caFile) }
        kiosk_curl_set_long(curl, handle, CURLOPT_NOSIGNAL, 1)
        kiosk_curl_set_long(curl, handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
        if options.totalTimeoutSeconds > 0 { kiosk_curl_set_long(curl, handle, CURLOPT_TIMEOUT, options.totalTimeoutSeconds) }
        kiosk_curl_set_long(curl, handle, CURLOPT_LOW_SPEED_LIMIT, options.stall.bytesPerSecond)
        kiosk_curl_set_long(curl, handle, CURLOPT_LOW_SPEED_TIME, options.stall.seconds)
        if options.maxRecvSpeed > 0 { kiosk_curl_set_offset(curl, handle, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(options.maxRecvSpeed)) }
        // Media is already compressed; a gzip'd body would not match the manifest's size.
        kiosk_curl_set_string(curl, handle, CURLOPT_USERAGENT, "kiosk-sync/1")
        kiosk_curl_set_list(curl, handle, CURLOPT_HTTPHEADER, requestHeaders)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        kiosk_curl_set_pointer(curl, handle, CURLOPT_ERRORBUFFER, errorBuffer)
        let me = Unmanaged.passUnretained(self).toOpaque()
        kiosk_curl_set_pointer(curl, handle, CURLOPT_HEADERDATA, me)
        kiosk_curl_set_callback(curl, handle, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            return transfer.header(line) ? length : 0
        }
        kiosk_curl_set_pointer(curl, handle, CURLOPT_WRITEDATA, me)
        kiosk_curl_set_callback(curl, handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            return transfer.body(UnsafeRawBufferPointer(start: data, count: length))
        }
    }

    private func header(_ line: String) -> Bool {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return true
        }
        let text = line.trimmedLine
        if !text.isEmpty {
            if let colon = text.firstIndex(of: ":") {
                headers[text[..<colon].lowercased()] = String(text[text.index(after: colon)...]).trimmedLine
            }
            return true
        }
        // The blank line ends a response's headers: interim (1xx) and followed redirects go on.
        var code = 0
        kiosk_curl_get_long(curl, handle, CURLINFO_RESPONSE_CODE, &code)
        if code < 200 || (300..<400).contains(code) && code != 304 && headers["location"] != nil { return true }
        status = code
        headersSeen = true
        let response = DownloadResponse(status: code, contentType: headers["content-type"],
                                        rangeStart: headers["content-range"].flatMap(DownloadResponse.rangeStart(ofContentRange:)))
        if let reason = onHeaders(response, headers) {
            abortReason = reason
            return false
        }
        return true
    }

    /// CURL_WRITEFUNC_PAUSE: libcurl keeps the chunk and hands it again after curl_easy_pause.
    static let pauseWrite = 0x1000_0001

    private func body(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard headersSeen else { return bytes.count }   // a redirect's or an interim response's body
        if let rateGate, !rateGate.take(bytes.count) {
            isPaused = true
            return Self.pauseWrite
        }
        return deliver(bytes) ? bytes.count : 0
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        if let reason = onBody(bytes) {
            abortReason = reason
            return false
        }
        return true
    }

    /// When the server's certificate begins to be valid (libcurl's CERTINFO "Start date"), from a
    /// connection made only to see it (CONNECT_ONLY: no request is sent, no byte is used).
    private func certificateStart(_ url: String) -> Int64? {
        guard let probe = curl.pointee.easy_init() else { return nil }
        defer { curl.pointee.easy_cleanup(probe) }
        kiosk_curl_set_string(curl, probe, CURLOPT_URL, url)
        kiosk_curl_set_string(curl, probe, CURLOPT_PROTOCOLS_STR, "https")
        kiosk_curl_set_long(curl, probe, CURLOPT_SSL_VERIFYPEER, 0)
        kiosk_curl_set_long(curl, probe, CURLOPT_SSL_VERIFYHOST, 0)
        kiosk_curl_set_long(curl, probe, CURLOPT_CERTINFO, 1)
        kiosk_curl_set_long(curl, probe, CURLOPT_CONNECT_ONLY, 1)
        kiosk_curl_set_long(curl, probe, CURLOPT_CONNECTTIMEOUT, 5)
        kiosk_curl_set_long(curl, probe, CURLOPT_NOSIGNAL, 1)
        guard curl.pointee.easy_perform(probe) == CURLE_OK else { return nil }
        var pointer: UnsafeMutableRawPointer?
        guard kiosk_curl_get_pointer(curl, probe, CURLINFO_CERTINFO, &pointer) == CURLE_OK,
              let info = pointer?.assumingMemoryBound(to: curl_certinfo.self), info.pointee.num_of_certs > 0,
              var entry = info.pointee.certinfo?[0] else { return nil }
        while true {
            let text = String(cString: entry.pointee.data)
            if text.hasPrefix("Start date:") {
                return CertificateClock.seconds(parsingCertificateDate: String(text.dropFirst("Start date:".count)))
            }
            guard let next = entry.pointee.next else { return nil }
            entry = next
        }
    }

    /// The transfer ended because no byte came for the stall timeout (not resumed at once
    /// within a pass: it would stall again).
    private(set) var stalled = false

    /// The line for a transfer libcurl ended with `code`, nil for success.
    func failure(_ code: CURLcode) -> String? {
        if let abortReason { return abortReason }
        guard code != CURLE_OK else { return nil }
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? (curl.pointee.easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)") : detail
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_CONNECT_ERROR {
            let now = Int64(time(nil))
            // With the clock unset, the certificate's start date makes the line plain: it is
            // read with a second handshake that checks nothing and fetches nothing.
            let notBefore = now < CertificateClock.plausibleSeconds ? certificateStart(url) : nil
            return CertificateClock.message(tlsError: text, now: now, notBefore: notBefore)
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            stalled = true
            return "stalled (\(text))"
        }
        return text
    }
}

/// Runs transfers on one libcurl multi handle, at most `parallel` at once, until all ended or
/// `shouldStop` says so (then the rest are left as they are: partials resume next time).
final class HTTPMultiRunner {
    private let curl: UnsafePointer<kiosk_curl_api>
    private let multi: UnsafeMutableRawPointer

    init(curl library: CurlLibrary) throws(CurlFailure) {
        guard let multi = library.api.pointee.multi_init() else {
            throw CurlFailure(description: "libcurl could not make a multi handle (out of memory)")
        }
        curl = library.api
        self.multi = multi
    }
    deinit { _ = curl.pointee.multi_cleanup(multi) }

    /// `finished` is called for each transfer as it ends, with its failure line or nil.
    /// `tick` runs at every turn of the loop (a few times a second at least), for progress.
    func run(_ transfers: [HTTPTransfer], parallel: Int, shouldStop: () -> Bool, tick: () -> Void = {},
             finished: (HTTPTransfer, String?) -> Void) {
        var waiting = transfers[...]
        var active: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
        func fill() {
            while active.count < max(1, parallel), let next = waiting.popFirst() {
                curl.pointee.multi_add_handle(multi, next.handle)
                active[next.handle] = next
            }
        }
        fill()
        while !active.isEmpty {
            if shouldStop() { break }
            var running: Int32 = 0
            curl.pointee.multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl.pointee.multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let transfer = active.removeValue(forKey: easy) else { continue }
                let code = message.pointee.data.result
                curl.pointee.multi_remove_handle(multi, easy)
                finished(transfer, transfer.failure(code))
            }
            fill()
            tick()
            var paused = false
            for transfer in active.values where transfer.isPaused {
                if transfer.rateGate?.hasBudget() ?? true {
                    transfer.isPaused = false
                    curl.pointee.easy_pause(transfer.handle, 0)   // CURLPAUSE_CONT
                } else {
                    paused = true
                }
            }
            // Paused by the rate budget: look again soon, as the bucket fills in milliseconds.
            if !active.isEmpty { curl.pointee.multi_poll(multi, nil, 0, paused ? 10 : 250, nil) }
        }
        for (handle, _) in active { curl.pointee.multi_remove_handle(multi, handle) }
    }
}

/// One `TransferRateBudget` for the transfers of a run, on the monotonic clock. Used from the
/// sync thread only (libcurl's callbacks run inside curl_multi_perform there).
final class SharedRateBudget {
    private var budget: TransferRateBudget

    init(bytesPerSecond: Int64) { budget = TransferRateBudget(bytesPerSecond: bytesPerSecond, now: MonotonicClock().now()) }

    func take(_ bytes: Int) -> Bool { budget.take(bytes, now: MonotonicClock().now()) }
    func hasBudget() -> Bool { budget.hasBudget(now: MonotonicClock().now()) }
}
