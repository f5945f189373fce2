#!/usr/bin/env python3
"""What weaving interlaced video costs (playback.deinterlace, `Deinterlacer`): a 1080i25
H.264 clip (x264 with interlaced coding, each field its own moment of a 50p testsrc2) decoded
and fitted into a 1920x1080 screen as fast as it decodes (`kiosk bench --deinterlace auto`
against `off`), beside the peers doing the same work in the same run:

- FFmpeg: decode only, and decode with `-vf bwdif=mode=send_frame` (the filter kiosk uses);
- mpv: `--vf=bwdif` against none, `--vo=null --untimed` (no display; mpv's default is no
  deinterlacing);
- GStreamer: `deinterlace` (its own yadif-like method) against none, into fakesink.

CPU-seconds (user+sys) and peak RSS of each run; the table's last column is each tool's
deinterlaced run against its own plain run, the cost of the weave in that tool.

    Benchmarks/deinterlace.py [--seconds 10] [--runs 3] [--kiosk .build/release/kiosk]

Interleaved run by run, medians printed. Python 3 standard library only."""
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import playback  # noqa: E402  (arguments, make_clip, run_measured)


def interlaced_clip(cache, seconds):
    return playback.make_clip(cache / f"testsrc2-1080i25-{seconds}s-x264-veryfast.ts", [
        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=50:duration={seconds}",
        "-vf", "tinterlace=mode=interleave_top,setfield=tff", "-r", "25",
        "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-flags", "+ilme+ildct", "-x264-params", "tff=1",
        "-pix_fmt", "yuv420p"])


def main():
    args = playback.arguments(__doc__, seconds=10).parse_args()
    clip = str(interlaced_clip(args.cache, args.seconds))
    ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-i", clip]
    tools = {
        "kiosk off": [str(args.kiosk), "bench", clip, "--size", "1920x1080", "--deinterlace", "off"],
        "kiosk auto (bwdif)": [str(args.kiosk), "bench", clip, "--size", "1920x1080", "--deinterlace", "auto"],
        "ffmpeg decode": ffmpeg + ["-f", "null", "-"],
        "ffmpeg bwdif": ffmpeg + ["-vf", "bwdif=mode=send_frame", "-f", "null", "-"],
    }
    if shutil.which("mpv"):
        mpv = ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null", "--untimed", clip]
        tools["mpv"] = mpv
        tools["mpv bwdif"] = mpv[:-1] + ["--vf=bwdif=mode=send_frame", clip]
    if shutil.which("gst-launch-1.0"):
        gst = ["gst-launch-1.0", "-q", "filesrc", f"location={clip}", "!", "decodebin", "!", "videoconvert"]
        tools["gstreamer"] = gst + ["!", "fakesink"]
        tools["gstreamer deinterlace"] = gst + ["!", "deinterlace", "!", "fakesink"]
    results = {name: [] for name in tools}
    for run in range(args.runs):
        names = list(tools)
        names = names[run % len(names):] + names[:run % len(names)]
        for name in names:
            code, wall, cpu, rss, out, err = playback.run_measured(tools[name])
            if code != 0:
                sys.exit(f"{name} failed ({code}): {err[-500:]}")
            results[name].append({"wall": wall, "cpu": cpu, "rss": rss})
            print(f"run {run + 1}: {name}: {wall:.2f} s wall, {cpu:.2f} CPU-s, {rss:.0f} MB", flush=True)
    median = {name: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for name, runs in results.items()}
    plain = {"kiosk auto (bwdif)": "kiosk off", "ffmpeg bwdif": "ffmpeg decode", "mpv bwdif": "mpv",
             "gstreamer deinterlace": "gstreamer"}
    print("\n| tool | wall s | CPU s | peak RSS MB | CPU x its plain run |\n|---|---|---|---|---|")
    for name, m in median.items():
        base = median[plain.get(name, name)]["cpu"]
        print(f"| {name} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss']:.1f} | {m['cpu'] / base:.2f} |")


if __name__ == "__main__":
    main()
