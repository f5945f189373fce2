import Foundation
import KioskControl
import KioskCore
import KioskHTTP
import Logging

/// kiosk.conf's `web`: the operators' page and JSON API (#36), one more source of the command
/// table's requests beside the socket and MQTT. Off without the section; a failure to start
/// (the port taken, libmicrohttpd missing, a certificate that cannot be read) is one line and
/// playback goes on.
package final class WebConsole: @unchecked Sendable {
    // Safe to share: set once at start.
    private let server: HTTPServer
    private let splash: WebSplash?

    private init(server: HTTPServer, splash: WebSplash?) {
        self.server = server
        self.splash = splash
    }

    package var port: Int { server.port }

    /// `configPath`: kiosk.conf, read again to check the page's edits; `reload`: the live reload.
    package static func start(_ config: WebConfig, services: Services, configPath: String, stateDirectory: String, logger: Logger,
                              reload: @escaping @Sendable () -> Void) -> WebConsole? {
        let scheme = config.certificate == nil ? "http" : "https"
        let address = "\(scheme)://\(config.listen)/"
        do {
            let password = try WebPassword.load(config, stateDirectory: stateDirectory, logger: logger)
            let token = try WebPassword.token(stateDirectory: stateDirectory)
            var tls: HTTPServer.TLS?
            if let certificate = config.certificate, let key = config.key {
                tls = HTTPServer.TLS(certificate: try String(contentsOfFile: certificate, encoding: .utf8),
                                     key: try String(contentsOfFile: key, encoding: .utf8))
            }
            let splash = config.splashLayer.map { WebSplash(layer: $0, sink: services.player, stateDirectory: stateDirectory) }
            let desk = WebDesk(gate: WebGate(allowedNames: config.hosts), services: services, password: password,
                               token: token, tls: tls != nil, screenshotPath: stateDirectory + "/.web-screen.png",
                               page: WebPageEditor(configPath: configPath, pageFile: config.pageFile, apply: reload),
                               uploads: config.uploadDirectory.map { WebUploads(directory: $0, minFree: config.uploadMinFree) },
                               reports: WebReports(configPath: configPath), loggedIn: { splash?.loggedIn() })
            let server = try HTTPServer(host: config.listen.host, port: config.listen.port, connections: 32, maxBody: WebRoute.bodyLimit,
                                        tls: tls, plan: { request in desk.plan(request) }, tooLarge: WebReply.tooLarge) { request in
                desk.answer(request)
            }
            logger.info("web: \(address)\(config.listen.isLoopback ? "" : " (reachable from the network)")")
            splash?.begin(password: password.madePassword) {
                WebSplash.addresses(scheme: scheme, listen: config.listen, hosts: config.hosts)
            }
            return WebConsole(server: server, splash: splash)
        } catch {
            logger.error("web: cannot serve \(address): \(error); playback goes on without the page")
            return nil
        }
    }

    package func stop() {
        splash?.stop()
        server.stop()
    }
}
