import KioskCore
#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// How one file's download ended.
enum DownloadOutcome: Equatable {
    /// Whole, hash right, now in objects/.
    case stored
    /// 416: the partial was dropped; fetch again from 0 now.
    case retryFromStart
    /// The bytes hashed to something else; the partial was dropped.
    case hashMismatch(String)
    /// Anything else (the line to log); the partial stays to be resumed next time.
    case failed(String)
    /// The connection broke after bytes arrived (a reset, a body cut short): the partial is
    /// kept and the pass resumes it at once, a few times, as curl --retry and wget do.
    case interrupted(String)
}

/// One file of the manifest fetched into partial/<sha256>: resumed with Range + If-Range when a
/// partial and its validator are there, hashed as written, fsynced and renamed into objects/.
final class ObjectDownload {
    let file: SyncManifestFile
    let store: SyncStore
    /// Bytes of the partial this download continues from (a Range was asked for when > 0).
    let offset: Int64
    private let validator: String?
    private var fd: Int32 = -1
    private var hasher = SHA256()
    /// Bytes the partial holds now.
    private(set) var written: Int64 = 0
    /// Bytes written by this download (what a resume saved is `offset`).
    private(set) var fetched: Int64 = 0
    private var dropped = false
    /// Set when kiosk itself ended the transfer (a refused response, a local write error,
    /// more bytes than the manifest says): such a failure is not the network's, and not retried.
    private var refused = false

    init(file: SyncManifestFile, store: SyncStore) {
        self.file = file
        self.store = store
        let validator = store.validator(file.sha256)
        let size = SyncStore.size(of: store.layout.partial(file.sha256)) ?? 0
        // Without a validator a Range could join two versions of the file: start again.
        self.validator = validator
        offset = validator != nil && size > 0 && size < file.size ? size : 0
    }

    var requestHeaders: [String] {
        guard offset > 0, let validator else { return [] }
        return ["Range: bytes=\(offset)-", "If-Range: \(validator)"]
    }

    func transfer(options: HTTPOptions, curl: CurlLibrary) throws(CurlFailure) -> HTTPTransfer {
        let transfer = try HTTPTransfer(url: file.url, headers: requestHeaders, options: options, curl: curl)
        transfer.onHeaders = { [unowned self] response, headers in noteRefusal(begin(response, headers)) }
        transfer.onBody = { [unowned self] bytes in noteRefusal(append(bytes)) }
        return transfer
    }

    private func noteRefusal(_ reason: String?) -> String? {
        if reason != nil { refused = true }
        return reason
    }

    private func begin(_ response: DownloadResponse, _ headers: [String: String]) -> String? {
        let partial = store.layout.partial(file.sha256)
        switch response.action(offset: offset, expectedSize: file.size) {
        case .append:
            guard hasher.update(fileAt: partial, length: offset) else { return "\(partial): cannot read the partial to resume it" }
            fd = open(partial, O_WRONLY | O_APPEND | O_CLOEXEC)
            written = offset
        case .restart:
            hasher = SHA256()
            // The validator first: a partial is only resumed with the version it came from.
            store.saveValidator(Self.validator(headers), for: file.sha256)
            fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            written = 0
        case .dropPartial:
            store.dropPartial(file.sha256)
            dropped = true
            return nil
        case .notModified:
            return "HTTP 304"
        case .fail(let reason):
            return reason
        }
        return fd >= 0 ? nil : "\(partial): cannot write: \(Errno(rawValue: errno).description)"
    }

    /// A strong ETag, else Last-Modified: what If-Range accepts (a weak ETag never matches).
    static func validator(_ headers: [String: String]) -> String? {
        if let etag = headers["etag"], !etag.hasPrefix("W/"), !etag.isEmpty { return etag }
        return headers["last-modified"]
    }

    private func append(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard fd >= 0 else { return nil }   // a 416's body
        guard written + Int64(bytes.count) <= file.size else {
            return "more than the manifest's \(file.size) bytes"
        }
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return "\(store.layout.partial(file.sha256)): cannot write: \(Errno(rawValue: errno).description)" }
            done += n
        }
        hasher.update(bytes)
        written += Int64(bytes.count)
        fetched += Int64(bytes.count)
        return nil
    }

    /// Ends the download after its transfer ended with `failure` (nil: the body is complete).
    /// `stalled`: the transfer timed out with no bytes coming (not worth resuming at once).
    func finish(_ failure: String?, stalled: Bool = false) -> DownloadOutcome {
        defer { if fd >= 0 { close(fd); fd = -1 } }
        if dropped { return .retryFromStart }
        // Bytes came and the network, not kiosk, ended it: worth resuming at once. Not a
        // stall: a link that hangs would hold the pass a stall timeout per try.
        let interrupted = !refused && fetched > 0 && !stalled
        if let failure {
            if fd >= 0 { fsync(fd) }   // what arrived is kept for the resume
            // What the partial holds: this transfer's bytes, or the resume's start when it
            // never began (the server gone).
            let held = max(written, offset)
            let line = failure + (held > 0 ? " (at \(held) of \(file.size) bytes)" : "")
            return interrupted ? .interrupted(line) : .failed(line + (held > 0 ? "; resumed next time" : ""))
        }
        guard written == file.size else {
            if fd >= 0 { fsync(fd) }
            let line = "the body ended at \(written) of \(file.size) bytes"
            return interrupted ? .interrupted(line) : .failed(line + "; resumed next time")
        }
        let hash = hasher.finalHex()
        guard hash == file.sha256 else {
            close(fd); fd = -1
            store.dropPartial(file.sha256)
            return .hashMismatch("sha256 is \(hash), not \(file.sha256) as the manifest says")
        }
        guard fsync(fd) == 0 else { return .failed("cannot fsync the partial: \(Errno(rawValue: errno).description)") }
        close(fd); fd = -1
        do { try store.commitPartial(file.sha256) } catch { return .failed(error.description) }
        return .stored
    }
}
