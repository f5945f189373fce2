/// What a screenshot asked of a display with a writeback connector does, from the last
/// read-back it made (DRMDisplay+Writeback.swift).
enum ReadBackStep: Equatable {
    /// Nothing was committed since the last read-back: its picture (come or still coming) is
    /// what the screen shows, and no second job queues behind a late one.
    case shareLast
    /// A commit overtook the last read-back before its picture came: vkms drops such a job, and
    /// the kernel signals writeback fences oldest first, so a new job's picture would signal the
    /// old fence, over a buffer never written. kiosk composes the shot instead.
    case compose
    /// A new writeback job (the last one's picture has come, or there was none).
    case commitNew

    /// `last`: the display's commits counted after the last read-back's, and whether its picture
    /// has come; `commitsNow`: the display's commits now.
    static func next(last: (commitsAfter: UInt64, arrived: Bool)?, commitsNow: UInt64) -> ReadBackStep {
        guard let last else { return .commitNew }
        if last.commitsAfter == commitsNow { return .shareLast }
        return last.arrived ? .commitNew : .compose
    }
}
