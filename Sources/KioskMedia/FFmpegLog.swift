import CFFmpeg
import CKioskShim
import Logging

/// Routes FFmpeg's own log lines into swift-log. FFmpeg chatters about every damaged packet;
/// kiosk reports bad items in one line of its own, so FFmpeg's lines only show at debug level.
public enum FFmpegLog {
    nonisolated(unsafe) private static var logger = Logger(label: "ffmpeg")

    /// kiosk's own note on what FFmpeg handed it (a malformed EXIF tag), at debug level like
    /// FFmpeg's lines: the picture still shows.
    static func debug(_ text: String) {
        logger.debug("\(text)")
    }

    public static func route(to logger: Logger) {
        FFmpegLog.logger = logger
        let level: Int32 = logger.logLevel <= .debug ? AV_LOG_VERBOSE : AV_LOG_QUIET
        kiosk_av_log_install({ level, line in
            guard let line else { return }
            let text = String(cString: line)
            FFmpegLog.logger.log(level: level <= AV_LOG_ERROR ? .warning : .debug, "\(text)")
        }, level)
    }
}
