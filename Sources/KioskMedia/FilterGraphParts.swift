import CFFmpeg
import CKioskShim
import KioskCore

/// What both of kiosk's libavfilter graphs do to be built (`TempoFilter`'s atempo chain,
/// `Deinterlacer`'s bwdif): a filter created by name in the graph, two filters linked. Each
/// failure is the caller's `failure` line, which names its source. libavfilter must be loaded
/// (`kiosk_avfilter_load`) first.
enum FilterGraphParts {
    static func create(_ filterName: String, name: String, arguments: String?, in graph: UnsafeMutablePointer<AVFilterGraph>?,
                       failure: (String) -> MediaError) throws -> UnsafeMutablePointer<AVFilterContext> {
        guard let filter = kiosk_avfilter_get_by_name(filterName) else { throw failure("no '\(filterName)' filter in this FFmpeg build") }
        var context: UnsafeMutablePointer<AVFilterContext>? = nil
        let result = kiosk_avfilter_graph_create_filter(&context, filter, name, arguments, graph)
        guard result >= 0, let context else { throw failure("cannot create \(filterName): \(ffmpegErrorText(result))") }
        return context
    }

    static func link(_ from: UnsafeMutablePointer<AVFilterContext>, _ to: UnsafeMutablePointer<AVFilterContext>,
                     failure: (String) -> MediaError) throws {
        let result = kiosk_avfilter_link(from, to)
        guard result >= 0 else { throw failure("cannot link filters: \(ffmpegErrorText(result))") }
    }
}
