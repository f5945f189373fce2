import Foundation

/// Waiting on a condition another thread makes true: the engine tests look at what the player
/// did, never at how fast it did it.
public func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}
