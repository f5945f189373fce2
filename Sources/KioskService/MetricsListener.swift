import Foundation
import KioskCore
import KioskHTTP
import Logging

/// `metrics.listen`: `GET /metrics` answered with the health in Prometheus' text format, for a
/// Prometheus that scrapes the box itself (no node_exporter). Read-only and without secrets; on
/// the loopback address by default, on the LAN only where kiosk.conf names such an address.
package final class MetricsListener: @unchecked Sendable {
    // Safe to share: set once in `start`.
    private let server: HTTPServer

    private init(server: HTTPServer) { self.server = server }

    /// The listener, or nil with one line saying why (libmicrohttpd missing, the port taken):
    /// playback goes on without it.
    package static func start(_ address: ListenAddress, sampler: HealthSampler, logger: Logger) -> MetricsListener? {
        do {
            let server = try HTTPServer(host: address.host, port: address.port) { request in
                Self.answer(request, health: sampler.health)
            }
            logger.info("metrics: http://\(address)/metrics\(address.isLoopback ? "" : " (reachable from the network)")")
            return MetricsListener(server: server)
        } catch {
            logger.error("metrics: cannot serve http://\(address)/metrics: \(error); playback goes on without it")
            return nil
        }
    }

    package var port: Int { server.port }

    package func stop() { server.stop() }

    /// The one route: `/metrics` by GET (HEAD is answered like it, without the body).
    package static func answer(_ request: HTTPRequest, health: HealthSnapshot?) -> HTTPResponse {
        guard request.path == "/metrics" else { return HTTPResponse(status: 404, text: "not found: try /metrics\n") }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, text: "only GET\n", headers: [("Allow", "GET, HEAD")])
        }
        guard let health else { return HTTPResponse(status: 503, text: "the player is not running yet\n") }
        return HTTPResponse(status: 200, text: health.text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
