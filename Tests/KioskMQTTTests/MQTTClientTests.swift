import Foundation
import Testing
@testable import KioskMQTT

/// The wrapper's words for libmosquitto's codes (what kiosk's log lines say), and its checks
/// that need no broker.

@Test(arguments: [(Int32(5), "not authorized"), (4, "bad user name or password"), (3, "broker unavailable"),
                  (1, "unacceptable protocol version")])
func refusalsReadLikeTheRestOfTheLog(code: Int32, reason: String) {
    #expect(MQTTClient.connackReason(code) == reason)
}

@Test func errorsSayWhatKioskWasDoingAndWhy() {
    let error = MQTTError(code: 7, doing: "keep the connection")
    #expect(error.description == "cannot keep the connection: the connection was lost")
    #expect(!error.isTLS)
    #expect(MQTTError(code: 8, doing: "connect").isTLS)
}

@Test func aMissingTLSFileIsRefusedWhenSetNotAtTheConnect() throws {
    let client = try MQTTClient(clientID: "kiosk-test", handlers: MQTTHandlers(connected: { _ in }, disconnected: { _ in },
                                                                             received: { _ in }))
    #expect(throws: MQTTError.self) {
        try client.setTLS(caFile: "/nonexistent/ca.pem", caPath: nil, certFile: nil, keyFile: nil)
    }
    try client.setWill(topic: "kiosk/test/status", payload: "{}", qos: 1, retain: true)
    try client.setCredentials(username: "kiosk", password: "secret")
    try client.setReconnectDelay(initial: 1, maximum: 60)
    // Publishing before any connection is refused at once (nothing waits for a network).
    #expect(throws: MQTTError.self) { try client.publish(topic: "kiosk/test/event", payload: "{}", qos: 0, retain: false) }
}
