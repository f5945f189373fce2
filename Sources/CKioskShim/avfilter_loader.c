// libavfilter, opened on first use instead of linked: only the atempo filter (rates other than 1)
// and the deinterlacer (a video whose frames are flagged interlaced) need it, and linking it costs every start ~30 more shared libraries and ~11 MB of peak RSS
// (BENCHMARKS.md, "Memory"). The soname's major version is the one kiosk was compiled against,
// so the ABI matches the headers.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include "kiosk_shim.h"

#define KIOSK_STRINGIFY2(x) #x
#define KIOSK_STRINGIFY(x) KIOSK_STRINGIFY2(x)
#define KIOSK_AVFILTER_SONAME "libavfilter.so." KIOSK_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

static struct {
    AVFilterGraph *(*graph_alloc)(void);
    void (*graph_free)(AVFilterGraph **);
    int (*graph_config)(AVFilterGraph *, void *);
    const AVFilter *(*get_by_name)(const char *);
    int (*graph_create_filter)(AVFilterContext **, const AVFilter *, const char *, const char *, void *,
                               AVFilterGraph *);
    int (*link)(AVFilterContext *, unsigned, AVFilterContext *, unsigned);
    int (*buffersrc_add_frame)(AVFilterContext *, AVFrame *);
    int (*buffersink_get_frame)(AVFilterContext *, AVFrame *);
    AVRational (*buffersink_get_time_base)(const AVFilterContext *);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[300];
static int loaded;

static int resolve(void *library, void **slot, const char *symbol) {
    *slot = dlsym(library, symbol);
    if (!*slot) snprintf(load_error, sizeof load_error, "%s has no %s", KIOSK_AVFILTER_SONAME, symbol);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(KIOSK_AVFILTER_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot open " KIOSK_AVFILTER_SONAME);
        return;
    }
    loaded = resolve(library, (void **)&api.graph_alloc, "avfilter_graph_alloc")
        && resolve(library, (void **)&api.graph_free, "avfilter_graph_free")
        && resolve(library, (void **)&api.graph_config, "avfilter_graph_config")
        && resolve(library, (void **)&api.get_by_name, "avfilter_get_by_name")
        && resolve(library, (void **)&api.graph_create_filter, "avfilter_graph_create_filter")
        && resolve(library, (void **)&api.link, "avfilter_link")
        && resolve(library, (void **)&api.buffersrc_add_frame, "av_buffersrc_add_frame")
        && resolve(library, (void **)&api.buffersink_get_frame, "av_buffersink_get_frame")
        && resolve(library, (void **)&api.buffersink_get_time_base, "av_buffersink_get_time_base");
}

const char *kiosk_avfilter_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}

AVFilterGraph *kiosk_avfilter_graph_alloc(void) { return api.graph_alloc(); }
void kiosk_avfilter_graph_free(AVFilterGraph **graph) { if (loaded) api.graph_free(graph); }
int kiosk_avfilter_graph_config(AVFilterGraph *graph) { return api.graph_config(graph, NULL); }
const AVFilter *kiosk_avfilter_get_by_name(const char *name) { return api.get_by_name(name); }
int kiosk_avfilter_graph_create_filter(AVFilterContext **context, const AVFilter *filter, const char *name,
                                       const char *arguments, AVFilterGraph *graph) {
    return api.graph_create_filter(context, filter, name, arguments, NULL, graph);
}
int kiosk_avfilter_link(AVFilterContext *source, AVFilterContext *destination) {
    return api.link(source, 0, destination, 0);
}
int kiosk_av_buffersrc_add_frame(AVFilterContext *context, AVFrame *frame) {
    return api.buffersrc_add_frame(context, frame);
}
int kiosk_av_buffersink_get_frame(AVFilterContext *context, AVFrame *frame) {
    return api.buffersink_get_frame(context, frame);
}
AVRational kiosk_av_buffersink_get_time_base(const AVFilterContext *context) {
    return api.buffersink_get_time_base(context);
}
