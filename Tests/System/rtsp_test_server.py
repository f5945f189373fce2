"""A small RTSP server for the live-source tests: GStreamer's gst-rtsp-server (Debian's
gir1.2-gst-rtsp-server-1.0 and python3-gi; v4l2rtspserver and mediamtx are not packaged)
serving a live test picture at /live, VP8 in RTP (vp8enc from gstreamer1.0-plugins-good: libav's
encoders refuse the pts a shared RTSP media restarts with, x264 is in plugins-ugly), over UDP or
TCP as the client asks.

    python3 rtsp_test_server.py PORT

It prints the port on its first line once it listens. Run as its own process so a test can
SIGKILL it (every session drops at once, as when a camera dies) and start it again."""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

PIPELINE = ("( videotestsrc is-live=true pattern=smpte ! video/x-raw,width=320,height=240,framerate=25/1 "
            "! vp8enc deadline=1 keyframe-max-dist=25 ! rtpvp8pay name=pay0 pt=96 )")


def main():
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(sys.argv[1] if len(sys.argv) > 1 else "0")
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(PIPELINE)
    factory.set_shared(True)
    server.get_mount_points().add_factory("/live", factory)
    server.attach(None)
    print(server.get_bound_port(), flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
