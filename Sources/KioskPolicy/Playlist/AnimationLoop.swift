/// An animated picture given a `duration` (a GIF shown 30 s in a slideshow, as the stills beside
/// it are) plays its animation again and again until then, as a browser loops it (no more times
/// than its file says: `plays`, then its last frame holds); the last pass is cut at the duration. Without a `duration` it plays once, for its own length, as before.
/// Its item's timeline runs from 0 to `duration`: pass n reads the file from its start with
/// n × `passLength` added to its times, so the frames run on without a seam. Pure: the demux
/// thread asks it at the file's end and at a seek.
public struct AnimationLoop: Sendable, Equatable {
    /// A pass shorter than this is not looped (a damaged file of zero delays would be read
    /// again thousands of times a second): it plays once.
    public static let shortestPass = MediaTime(value: 1, timescale: 20)

    public let duration: MediaTime
    /// The file's own count (`AnimationPlays`): after that many passes the last frame holds
    /// until `duration`. Known only once the file is read: the demux thread sets it.
    public var plays: AnimationPlays = .forever

    public init(duration: MediaTime, plays: AnimationPlays = .forever) {
        self.duration = duration
        self.plays = plays
    }

    /// Where `time` on the item's timeline is: the file time to read from and the offset the
    /// file's times get there. `passLength`: one play of the file; nil before it is known
    /// (then the first pass). The item's end shows the last pass's last frame.
    public func place(of time: MediaTime, passLength: MediaTime?) -> (fileTime: MediaTime, offset: MediaTime) {
        let time = time.clamped(to: .zero...duration)
        guard let length = passLength, length >= Self.shortestPass else { return (time, .zero) }
        var pass = Int64((time.seconds / length.seconds).rounded(.down))
        // Exact where the division in doubles is not (a time on a pass's boundary).
        while pass > 0, length * Rational(pass, 1) > time { pass -= 1 }
        while length * Rational(pass + 1, 1) <= time { pass += 1 }
        if pass > 0, length * Rational(pass, 1) >= duration { pass -= 1 }
        // Past its last play the file holds its last frame: the time falls in that play.
        if case .times(let count) = plays, pass >= Int64(count) { pass = Int64(max(count, 1) - 1) }
        let offset = length * Rational(pass, 1)
        return (time - offset, offset)
    }

    /// At the file's end, after a pass whose times were offset by `offset`: the next pass's
    /// offset, or nil when the duration is reached (or the pass is too short to loop).
    public func nextOffset(after offset: MediaTime, passLength: MediaTime?) -> MediaTime? {
        guard let length = passLength, length >= Self.shortestPass else { return nil }
        let next = offset + length
        if case .times(let count) = plays, next >= length * Rational(Int64(count), 1) { return nil }
        return next < duration ? next : nil
    }
}

extension PlaylistEntry {
    /// Files of a picture format that hold an animation when the expander did not take them for
    /// a still (a GIF of one picture, a WebP without its animation flag are stills).
    public static let animatedPictureExtensions: Set<String> = ["gif", "webp", "apng"]

    /// The loop its `duration` asks for: an animated picture's file given a `duration` and no
    /// trim (`start` and `end` cut a file as a video's; where set, they win and it plays once).
    public var animationLoop: AnimationLoop? {
        guard !isStillImage, isAnimatedPicture, case .file = media, let duration = item.duration, duration > .zero,
              item.start == nil, item.end == nil else { return nil }
        return AnimationLoop(duration: duration)
    }
}
