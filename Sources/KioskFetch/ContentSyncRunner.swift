import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// What one pass of content sync did.
public enum ContentSyncOutcome: Equatable, Sendable {
    /// The manifest was not modified (304), or lists the set that plays already.
    case unchanged
    /// A new set is current (its id); the playlist should be expanded again.
    case switched(String)
    /// `--dry-run`: what would be fetched.
    case planned(SyncPlan, freeBytes: Int64?)
    /// Nothing was switched; the line says why (the current set plays on).
    case failed(String)
}

/// One pass of content sync: poll the manifest (If-None-Match), check it, check the space,
/// fetch what is missing (`parallel` at once, resumed, hashed as written), and switch when every
/// file is there. Every problem is one line naming the URL or file, given to `log`; the current
/// set is never touched until the new one is whole. One runner per store; not thread-safe
/// (the sync thread owns it); `status` is read from other threads through `statusBox`.
public final class ContentSyncRunner {
    public let config: ContentSyncConfig
    public let store: SyncStore
    private let log: (ContentSyncLine, String) -> Void
    private var ledger = HashMismatchLedger()
    public let statusBox = ContentSyncStatusBox()
    /// Event lines for the control socket: `sync_progress` (at most once a second while
    /// fetching), `sync_failed`, `sync_switched`. Set before the first pass.
    public var onEvent: (ControlValue) -> Void = { _ in }
    /// Bytes downloaded by the last pass (what resumes saved is not in it).
    public private(set) var lastFetchedBytes: Int64 = 0
    /// The largest manifest read: a bigger body is not a manifest.
    static let maximumManifestBytes = 16 << 20

    /// `log`: each line and what kind it is (a service logs a problem as a warning, news as a notice).
    public init(config: ContentSyncConfig, log: @escaping (ContentSyncLine, String) -> Void) {
        self.config = config
        self.store = SyncStore(directory: config.directory)
        self.log = log
    }

    /// libcurl's own limit stays as a ceiling per transfer; the budget shared by all of them
    /// (`fetch`) is what holds max_rate.
    var options: HTTPOptions { HTTPOptions(caFile: config.caFile, maxRecvSpeed: Int64(config.maxRate)) }

    @discardableResult
    public func runOnce(dryRun: Bool = false, shouldStop: @escaping () -> Bool = { false }) -> ContentSyncOutcome {
        let outcome = pass(dryRun: dryRun, shouldStop: shouldStop)
        statusBox.update { status in
            status.currentSet = store.currentSetID()
            switch outcome {
            case .failed(let line): status.state = .failed; status.lastError = line; status.failures += 1
            case .switched: status.state = .switched; status.lastError = nil; status.lastSuccess = Int64(time(nil))
            case .unchanged: status.state = .idle; status.lastError = nil; status.lastSuccess = Int64(time(nil))
            case .planned: status.state = .idle
            }
        }
        switch outcome {
        case .failed(let line):
            log(.problem, line)
            onEvent(Self.event(.syncFailed, [("error", .string(line))]))
        case .switched(let id):
            onEvent(Self.event(.syncSwitched, [("set", .string(id)), ("files", .integer(Int64(statusBox.status.filesTotal)))]))
        default:
            break
        }
        return outcome
    }

    /// Shaped as the player's events (`item` null, `time` 0: they are about no item).
    static func event(_ name: ControlEventName, _ fields: [(String, ControlValue)]) -> ControlValue {
        ControlMessage.event(name, item: nil, time: 0, fields)
    }

    private func pass(dryRun: Bool, shouldStop: @escaping () -> Bool) -> ContentSyncOutcome {
        guard let url = config.manifest else { return .failed("content sync is off: sync.manifest is none") }
        var publicKey: MinisignPublicKey?
        switch config.publicKey {
        case nil: break
        case .text(let text): publicKey = MinisignPublicKey(base64: text)
        case .file(let path):
            publicKey = SyncStore.readWhole(path).flatMap { MinisignPublicKey(fileText: String(decoding: $0, as: UTF8.self)) }
            if publicKey == nil { return .failed("\(path): not a minisign public key (sync.public_key); not syncing") }
        }
        if config.publicKey != nil && publicKey == nil { return .failed("sync.public_key is not a minisign public key; not syncing") }
        do { try store.prepare() } catch { return .failed(error.description) }
        let held: Int32?
        do { held = try store.lock() } catch { return .failed(error.description) }
        guard let held else {
            return .failed("\(store.layout.directory): another content sync pass is running on this store; not syncing now")
        }
        defer { store.unlock(held) }
        statusBox.update { $0.state = .checking }
        let known = store.currentSetID() != nil ? store.manifestETag() : nil
        let fetched: (body: [UInt8], etag: String?)
        switch fetchSmall(url, ifNoneMatch: dryRun ? nil : known) {
        case .failure(let failure): return .failed("\(url): \(failure.line); the current set plays on")
        case .success(nil): return .unchanged
        case .success(let result?): fetched = result
        }
        // With a key, only a manifest signed with it is read at all (a hijacked server or DNS
        // cannot put its own pictures on the screen).
        if let publicKey {
            let signatureURL = url + ".minisig"
            switch fetchSmall(signatureURL, ifNoneMatch: nil) {
            case .failure(let failure):
                return .failed("\(signatureURL): \(failure.line); a manifest without its signature is refused while "
                               + "sync.public_key is set; the current set plays on")
            case .success(let signature):
                let text = String(decoding: signature?.0 ?? [], as: UTF8.self)
                if let problem = Minisign.problem(verifying: fetched.body, signatureText: text, key: publicKey) {
                    return .failed("\(url): \(problem); refused, the current set plays on")
                }
            }
        }
        let manifest: SyncManifest
        do {
            manifest = try SyncManifestParser.parse(String(decoding: fetched.body, as: UTF8.self), source: url, baseURL: url)
        } catch {
            let more = error.diagnostics.count > 1 ? " (and \(error.diagnostics.count - 1) more)" : ""
            return .failed("\(error.diagnostics.first?.description ?? url)\(more); the current set plays on")
        }
        let identity = fetched.etag ?? SyncStore.setID(of: manifest)
        ledger.use(manifest: identity)
        if ledger.blocksSwitch {
            return .failed("\(url): a file did not match its sha256 \(HashMismatchLedger.limit) times; not switching until the manifest changes")
        }
        var plan = SyncPlan(manifest: manifest, objects: store.objectHashes(), partialSizes: store.resumableSizes())
        let free = store.freeBytes()
        if dryRun { return .planned(plan, freeBytes: free) }
        if let free, let problem = plan.spaceProblem(freeBytes: free, minFree: Int64(config.minFree)) {
            return .failed("\(url): \(problem); nothing fetched")
        }
        statusBox.update { status in
            status.state = .fetching
            status.filesTotal = manifest.files.count
            status.filesDone = plan.filesPresent
            status.bytesTotal = manifest.totalBytes
            status.bytesDone = manifest.totalBytes - plan.bytesToFetch
        }
        if let failure = fetch(plan.toFetch, manifestURL: url, shouldStop: shouldStop) { return .failed(failure) }
        plan = SyncPlan(manifest: manifest, objects: store.objectHashes(), partialSizes: [:])
        guard plan.isComplete else { return .failed("\(url): \(plan.toFetch.count) files still missing; the current set plays on") }
        if let current = store.currentSetID(), current == SyncStore.setID(of: manifest) {
            store.saveManifestETag(fetched.etag, forSet: current)
            return .unchanged
        }
        do {
            let id = try store.switchTo(manifest)
            store.saveManifestETag(fetched.etag, forSet: id)
            log(.news, "content sync: switched to set \(id) from \(url) (\(manifest.files.count) files, "
                + "\(ByteCountText.text(manifest.totalBytes)); fetched \(ByteCountText.text(lastFetchedBytes)))")
            return .switched(id)
        } catch {
            return .failed(error.description)
        }
    }

    /// A manifest's (or its signature's) bytes and ETag; nil for a 304.
    private func fetchSmall(_ url: String, ifNoneMatch: String?) -> Result<([UInt8], String?)?, ManifestFailure> {
        switch SmallHTTPGet.get(url, ifNoneMatch: ifNoneMatch, maxBytes: Self.maximumManifestBytes,
                                tooLarge: "more than 16 MiB: not a manifest", options: options) {
        case .body(let body, let etag): return .success((body, etag))
        case .notModified: return .success(nil)
        case .failed(let line): return .failure(ManifestFailure(line: line))
        }
    }

    /// Fetches `files` (each once per hash); nil when all are stored, else the pass's line (each
    /// file's own line was logged as it failed).
    private func fetch(_ files: [SyncManifestFile], manifestURL: String, shouldStop: @escaping () -> Bool) -> String? {
        lastFetchedBytes = 0
        // Opened already by the manifest's fetch; asked again rather than assumed.
        let curl: CurlLibrary, runner: HTTPMultiRunner
        do {
            curl = try CurlLibrary.load()
            runner = try HTTPMultiRunner(curl: curl)
        } catch {
            return error.description
        }
        var queue = files
        var failed = Set<String>()
        /// Resumes of a broken transfer made in this pass, by hash.
        var resumes: [String: Int] = [:]
        let started = MonotonicClock().now()
        let gate = config.maxRate > 0 ? SharedRateBudget(bytesPerSecond: Int64(config.maxRate)) : nil
        let bytesBefore = statusBox.status.bytesDone
        var lastProgress = started
        while !queue.isEmpty && !shouldStop() {
            // Resumed transfers wait a little, longer each time (a server restarting, a link
            // coming back), in tenths so a stop is obeyed at once.
            let backoff = queue.map { Self.resumeDelay(attempt: resumes[$0.sha256] ?? 0) }.max() ?? 0
            var waited = 0.0
            while waited < backoff && !shouldStop() {
                usleep(100_000)
                waited += 0.1
            }
            if shouldStop() { break }
            let downloads = queue.map { ObjectDownload(file: $0, store: store) }
            queue = []
            let byHandle: [UnsafeMutableRawPointer: (ObjectDownload, HTTPTransfer)]
            do {
                byHandle = Dictionary(uniqueKeysWithValues: try downloads.map { download throws(CurlFailure) in
                    let transfer = try download.transfer(options: options, curl: curl)
                    transfer.rateGate = gate
                    return (transfer.handle, (download, transfer))
                })
            } catch {
                return error.description
            }
            var finishedHandles = Set<UnsafeMutableRawPointer>()
            let tick = { [self] in
                let now = MonotonicClock().now()
                guard now - lastProgress >= 1 else { return }
                lastProgress = now
                let inFlight = byHandle.filter { !finishedHandles.contains($0.key) }.values.reduce(Int64(0)) { $0 + $1.0.fetched }
                let fetchedNow = lastFetchedBytes + inFlight
                statusBox.update { status in
                    status.bytesDone = bytesBefore + fetchedNow
                    status.bytesPerSecond = Int64(Double(fetchedNow) / max(now - started, 0.001))
                }
                let status = statusBox.status
                onEvent(Self.event(.syncProgress, [("files_done", .integer(Int64(status.filesDone))),
                                                     ("files_total", .integer(Int64(status.filesTotal))),
                                                     ("bytes_done", .integer(status.bytesDone)),
                                                     ("bytes_total", .integer(status.bytesTotal)),
                                                     ("rate", .integer(status.bytesPerSecond))]))
            }
            runner.run(byHandle.values.map(\.1), parallel: config.parallel, shouldStop: shouldStop, tick: tick) { transfer, line in
                guard let (download, _) = byHandle[transfer.handle] else { return }
                finishedHandles.insert(transfer.handle)
                lastFetchedBytes += download.fetched
                switch download.finish(line, stalled: transfer.stalled) {
                case .stored:
                    statusBox.update { status in
                        status.filesDone += 1
                        status.bytesDone = bytesBefore + lastFetchedBytes
                        let elapsed = max(MonotonicClock().now() - started, 0.001)
                        status.bytesPerSecond = Int64(Double(lastFetchedBytes) / elapsed)
                    }
                case .retryFromStart:
                    log(.problem, "\(download.file.url): HTTP 416, the partial was longer than the file; fetching it again from 0")
                    queue.append(download.file)
                case .hashMismatch(let reason):
                    let again = ledger.recordMismatch(download.file.sha256)
                    let line = "\(download.file.url): \(reason)" + (again ? "; fetching it again" : "; not switching until the manifest changes")
                    log(.problem, line)
                    if again { queue.append(download.file) } else { failed.insert(download.file.sha256) }
                case .interrupted(let reason):
                    let attempt = resumes[download.file.sha256, default: 0] + 1
                    resumes[download.file.sha256] = attempt
                    if attempt <= Self.resumesPerPass {
                        log(.news, "\(download.file.url): \(reason); resuming it now (\(attempt) of \(Self.resumesPerPass))")
                        queue.append(download.file)
                    } else {
                        log(.problem, "\(download.file.url): \(reason); resumed next time")
                        failed.insert(download.file.sha256)
                    }
                case .failed(let reason):
                    let line = "\(download.file.url): \(reason)"
                    log(.problem, line)
                    failed.insert(download.file.sha256)
                }
            }
        }
        if shouldStop() { return "\(manifestURL): content sync stopped; the current set plays on" }
        guard !failed.isEmpty else { return nil }
        return "\(manifestURL): \(failed.count) of \(files.count) files to fetch failed (above); not switching, the current set plays on"
    }
}

extension ContentSyncRunner {
    /// How often one file's broken transfer is resumed within a pass before the pass gives up
    /// on it (the partial stays for the next pass).
    static let resumesPerPass = 3

    /// Seconds before the `attempt`th resume: 0 for a first fetch, then 0.2, 0.4, 0.8.
    static func resumeDelay(attempt: Int) -> Double {
        attempt == 0 ? 0 : 0.2 * Double(1 << min(attempt - 1, 4))
    }
}

/// What kind of line the runner logs.
public enum ContentSyncLine: Sendable {
    /// Something failed (a file, the manifest, the store): the operator should look.
    case problem
    /// Progress worth a line: a switch, a transfer resumed.
    case news
}

struct ManifestFailure: Error { let line: String }

/// The status, shared between the sync thread and readers (the control socket, the CLI).
public final class ContentSyncStatusBox: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var value = ContentSyncStatus()

    public init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }

    public var status: ContentSyncStatus {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        return value
    }

    public func update(_ change: (inout ContentSyncStatus) -> Void) {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        change(&value)
    }
}
