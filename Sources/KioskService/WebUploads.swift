import Foundation
import KioskCore
import KioskHTTP
import KioskMedia

/// The web page's uploads (#36): streamed to disk as they arrive (never held in memory), any size
/// the disk allows, resumable after a dropped connection. `POST /api/v1/uploads` {name, size}
/// makes one (refused when the disk would keep less than `upload_min_free`); `PATCH
/// /api/v1/uploads/ID` with `Upload-Offset` appends (a cut connection keeps what arrived; `GET`
/// says where to go on); whole, the file is probed by FFmpeg and renamed to its name, or removed
/// with the reason. The partial file is hidden (`.upload-ID.ext`): folder items never see it.
final class WebUploads: @unchecked Sendable {
    // Safe to share: `uploads` is touched with `lock` held; a sink writes its own file.
    private let lock = NSLock()
    let directory: String
    let minFree: Int64
    private var uploads: [String: Upload] = [:]
    /// Uploads finished lately, by id: a browser whose last answer was lost asks again and is
    /// told where its file is.
    private var finished: [(id: String, path: String)] = []

    /// At most this many under way at once (each holds a partial file); one unused for an hour
    /// is dropped when a new one begins.
    static let limit = 8
    static let idleLimit: TimeInterval = 3600
    /// The largest upload taken: more than any disk (and no overflow in the sums below).
    static let largest: Int64 = 1 << 50

    struct Upload {
        let name: String
        let size: Int64
        let partial: String
        var lastUsed: Date
        /// A PATCH is appending now: another is refused until it ends.
        var busy = false
    }

    init(directory: String, minFree: Int) {
        self.directory = directory
        self.minFree = Int64(minFree)
        // Partial files of a kiosk that stopped: nobody can resume them (ids live in memory).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(".upload-") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    /// Bytes free to an unprivileged writer on the uploads' file system.
    func freeBytes() -> Int64? { DiskSpace.of(directory)?.free }

    /// `POST /api/v1/uploads`.
    func begin(_ body: [UInt8]) -> HTTPResponse {
        guard let value = ControlValue.parse(String(decoding: body, as: UTF8.self)),
              case .string(let written)? = value["name"], case .integer(let size)? = value["size"], size > 0 else {
            return WebReply.error(400, "expected {\"name\": \"clip.mp4\", \"size\": bytes}")
        }
        guard size <= Self.largest else { return WebReply.error(413, "\(size) bytes is more than any disk kiosk writes to") }
        guard let name = UploadName.clean(written) else {
            return WebReply.error(422, "'\(written)' is not a file name kiosk can keep (letters, digits, spaces, . _ - and a media extension)")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            return WebReply.error(500, "cannot make \(directory): \(error.localizedDescription)")
        }
        guard let free = freeBytes() else { return WebReply.error(500, "cannot read the free space of \(directory)") }
        if size > free - minFree {
            return WebReply.error(507, "the disk is too full: \(name) needs \(ByteCountText.text(size + minFree - free)) more "
                                + "(\(ByteCountText.text(free)) free, upload_min_free kept)")
        }
        var random = SystemRandomNumberGenerator()
        let id = String(WebSessions.token(using: &random).prefix(32))
        let partial = directory + "/.upload-\(id).\(UploadName.extensionOf(name))"
        return lock.withLock {
            for (id, upload) in uploads where !upload.busy && Date().timeIntervalSince(upload.lastUsed) > Self.idleLimit {
                uploads[id] = nil
                try? FileManager.default.removeItem(atPath: upload.partial)
            }
            guard uploads.count < Self.limit else { return WebReply.error(429, "\(Self.limit) uploads are under way; finish or cancel one") }
            guard FileManager.default.createFile(atPath: partial, contents: nil) else {
                return WebReply.error(500, "cannot write in \(directory)")
            }
            uploads[id] = Upload(name: name, size: size, partial: partial, lastUsed: Date())
            return WebReply.json(.object([("id", .string(id)), ("offset", .integer(0)), ("size", .integer(size))]), status: 201)
        }
    }

    /// `GET /api/v1/uploads/ID`: where a resumed upload goes on, and whether a connection is
    /// still appending to it (`busy`: a cut one whose last bytes are still being written; the
    /// next PATCH waits until it is not).
    func status(_ id: String) -> HTTPResponse {
        if let path = lock.withLock({ finished.last(where: { $0.id == id })?.path }) {
            return WebReply.json(.object([("id", .string(id)), ("done", .bool(true)), ("path", .string(path))]))
        }
        guard let upload = lock.withLock({ uploads[id] }) else { return WebReply.error(404, "no upload \(id) under way") }
        return WebReply.json(.object([("id", .string(id)), ("offset", .integer(Self.length(upload.partial))), ("size", .integer(upload.size)),
                                      ("busy", .bool(upload.busy))]))
    }

    /// `DELETE /api/v1/uploads/ID`.
    func cancel(_ id: String) -> HTTPResponse {
        guard let upload = lock.withLock({ uploads.removeValue(forKey: id) }) else { return WebReply.error(404, "no upload \(id) under way") }
        try? FileManager.default.removeItem(atPath: upload.partial)
        return WebReply.json(.object([("cancelled", .string(id))]))
    }

    /// `PATCH /api/v1/uploads/ID`: the sink its body streams into, or the refusal.
    func append(_ id: String, offset: String?) -> HTTPBodyPlan {
        lock.withLock {
            guard var upload = uploads[id] else { return .answer(WebReply.error(404, "no upload \(id) under way")) }
            let length = Self.length(upload.partial)
            guard !upload.busy else {
                return .answer(WebReply.json(.object([("error", .string("another connection is appending to this upload")),
                                                      ("offset", .integer(length))]), status: 409))
            }
            guard let offset, let start = Int64(offset), start == length else {
                return .answer(WebReply.json(.object([("error", .string("Upload-Offset must be \(length), the bytes kiosk has")),
                                                      ("offset", .integer(length))]), status: 409))
            }
            let fd = open(upload.partial, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard fd >= 0 else { return .answer(WebReply.error(500, "cannot open \(upload.partial): \(String(cString: strerror(errno)))")) }
            upload.busy = true
            upload.lastUsed = Date()
            uploads[id] = upload
            return .stream(UploadSink(id: id, upload: upload, fd: fd, written: length, uploads: self))
        }
    }

    /// A PATCH's connection has ended (answered or dropped): the upload takes the next one.
    func released(_ id: String) {
        lock.withLock {
            uploads[id]?.busy = false
            uploads[id]?.lastUsed = Date()
        }
    }

    /// The upload is whole: probed, then renamed to its name (a free one), or removed.
    func complete(_ id: String, _ upload: Upload) -> HTTPResponse {
        lock.withLock { _ = uploads.removeValue(forKey: id) }
        do {
            let info = try Asset(source: upload.partial).info
            guard let video = info.bestVideo, video.decodable else {
                throw UploadRefusal("\(upload.name) has no picture kiosk can decode (\(info.formatName): "
                                    + info.streams.map(\.codecName).joined(separator: ", ") + ")")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: upload.partial)
            let reason = (error as? MediaError)?.reason ?? "\(error)"
            return WebReply.error(422, "not media kiosk can play: \(upload.name): \(reason)")
        }
        guard Self.length(upload.partial) == upload.size else {
            try? FileManager.default.removeItem(atPath: upload.partial)
            return WebReply.error(500, "\(upload.name) changed size while it was checked: the upload is removed")
        }
        // A hard link never replaces a file (rename would): a name taken meanwhile is skipped.
        // FAT and exFAT sticks have no links: there a rename to a name found free (kiosk's
        // server is the only writer of this folder's new names).
        var final = UploadName.free(upload.name, in: directory)
        while link(upload.partial, final) != 0 {
            if errno == EEXIST {
                final = UploadName.free(upload.name, in: directory)
                continue
            }
            guard errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP, rename(upload.partial, final) == 0 else {
                try? FileManager.default.removeItem(atPath: upload.partial)
                return WebReply.error(500, "cannot keep the upload as \(final): \(String(cString: strerror(errno)))")
            }
            break
        }
        unlink(upload.partial)
        lock.withLock {
            finished.append((id, final))
            if finished.count > 64 { finished.removeFirst() }
        }
        return WebReply.json(.object([("done", .bool(true)), ("path", .string(final)), ("size", .integer(upload.size))]), status: 201)
    }

    /// A refused upload (disk full) is removed: its bytes go back to the disk.
    func drop(_ id: String, _ upload: Upload) {
        lock.withLock { _ = uploads.removeValue(forKey: id) }
        try? FileManager.default.removeItem(atPath: upload.partial)
    }

    static func length(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

}

struct UploadRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One PATCH's body, appended to the partial file as it arrives. The free space is looked at
/// every 8 MiB: a disk that fills meanwhile (another writer) ends the upload with 507.
final class UploadSink: HTTPBodySink, @unchecked Sendable {
    // Safe to share: used on the server's one thread for one request.
    private let id: String
    private let upload: WebUploads.Upload
    private let uploads: WebUploads
    private var fd: Int32
    private var written: Int64
    private var sinceSpaceCheck: Int64 = 0
    private var refusal: HTTPResponse?

    init(id: String, upload: WebUploads.Upload, fd: Int32, written: Int64, uploads: WebUploads) {
        self.id = id
        self.upload = upload
        self.fd = fd
        self.written = written
        self.uploads = uploads
    }

    deinit {
        closeFile()
        uploads.released(id)
    }

    private func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard refusal == nil, fd >= 0 else { return false }
        guard written + Int64(bytes.count) <= upload.size else {
            refusal = WebReply.error(413, "more bytes than the \(upload.size) announced for \(upload.name)")
            return false
        }
        sinceSpaceCheck += Int64(bytes.count)
        if sinceSpaceCheck >= 8 << 20 {
            sinceSpaceCheck = 0
            if let free = uploads.freeBytes(), free - (upload.size - written) < uploads.minFree {
                refusal = WebReply.error(507, "the disk filled while \(upload.name) arrived: the upload is removed")
                closeFile()
                uploads.drop(id, upload)
                return false
            }
        }
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                refusal = WebReply.error(errno == ENOSPC ? 507 : 500, "cannot write \(upload.name): \(reason): the upload is removed")
                closeFile()
                uploads.drop(id, upload)
                return false
            }
            offset += count
        }
        written += Int64(bytes.count)
        return true
    }

    func finish() -> HTTPResponse {
        if let refusal { return refusal }
        closeFile()
        guard written == upload.size else {
            return WebReply.json(.object([("id", .string(id)), ("offset", .integer(written)), ("size", .integer(upload.size))]))
        }
        return uploads.complete(id, upload)
    }
}
