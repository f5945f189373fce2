import KioskCore
import KioskPlayer

/// What the control socket needs of a player: somewhere to send requests, and the properties
/// `get` and `observe` read. The engine conforms as it is; a fake can stand in for it.
public protocol ControlledPlayer: PlayerRequestSink {
    var status: PlayerItemStatus { get }
    var timeControlStatus: TimeControlStatus { get }
    /// Media time in the current item.
    var currentTime: MediaTime { get }
    /// The rate `play` resumes at, which the `rate` property reports.
    var defaultRate: Rational { get }
    var volume: Int { get }
    var isMuted: Bool { get }
    var playlistCount: Int { get }
    var currentItemIndex: Int? { get }
    var currentItemTitle: String? { get }
    var framesPresented: Int { get }
    var framesDropped: Int { get }
}

extension QueuePlayer: ControlledPlayer {}
