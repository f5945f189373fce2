import Dispatch
import Glibc

/// Turns SIGINT, SIGTERM and SIGHUP into calls on a dispatch queue, outside signal-handler
/// context, so shutdown can restore the screen and reload can parse files safely.
final class SignalWatcher {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "kiosk.signals")

    init(stop: @escaping @Sendable (Int32) -> Void, reload: (@Sendable () -> Void)? = nil) {
        for number in [SIGINT, SIGTERM] { watch(number) { stop(number) } }
        if let reload { watch(SIGHUP, reload) }
    }

    private func watch(_ number: Int32, _ action: @escaping @Sendable () -> Void) {
        signal(number, SIG_IGN)   // the dispatch source sees it; the default action must not
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: action)
        source.resume()
        sources.append(source)
    }
}
