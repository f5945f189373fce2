// The playlist program's moment for a change of playlist (a schedule's, a load's, an insert's).

/// When a schedule's change takes effect: at the next seam between items (no picture cut off)
/// or at once.
public enum ScheduleSwitch: String, Sendable, Equatable {
    case atSeam = "seam"
    case now
}
