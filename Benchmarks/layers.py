#!/usr/bin/env python3
"""Issue 22's layer benchmark: 1080p30 with a ticker against the same clip alone, on a 60 Hz
vblank grid (kiosk's headless display flipping on a simulated vblank), for 60 s:

- kiosk: CPU-seconds (user+sys) with the ticker / without it (goal <= 1.10x), frames dropped
  (goal 0) and flips a second (goal 60: the ticker takes every refresh);
- the peers doing the same work in the same run, so the ratio has a yardstick: ffmpeg -re and
  mpv each scaling to 1920x1080 BGR0, alone and with a scrolling `drawtext` ticker (FFmpeg's
  filter; 30 pictures a second, since neither has a display to flip at 60 Hz).

    Benchmarks/layers.py [--seconds 60] [--runs 3] [--kiosk .build/release/kiosk]

Interleaved run by run, medians printed. Python 3 standard library only."""
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import playback  # noqa: E402  (arguments, silent_clip, run_measured)


TICKER_TEXT = "Breaking news: the lobby cafe opens at nine   •   Lift B is out of order today   •   Welcome"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def kiosk_config(clip: Path, ticker: bool) -> str:
    config = f"input: {{enabled: false}}\nplayback: {{loop: none}}\nitems: ['{clip}']\n"
    if ticker:
        config += f'layers:\n  - ticker: {{text: "{TICKER_TEXT}", speed: 120, size: 54px, background: "#000000a0"}}\n'
    return config


def drawtext(seconds):
    return (f"drawtext=fontfile={FONT}:text='{TICKER_TEXT.replace(':', '')}':fontsize=54:fontcolor=white:"
            "box=1:boxcolor=black@0.6:y=h-80:x=w-mod(t*120\\,w+tw)")


def main():
    args = playback.arguments(__doc__, seconds=60).parse_args()
    clip = playback.silent_clip(args.cache, args.seconds)
    work = Path(tempfile.mkdtemp(prefix="kiosk-bench-layers-"))
    scale = "scale=1920:1080:flags=bilinear"
    tools = {
        "kiosk alone": ("kiosk", False), "kiosk + ticker": ("kiosk", True),
        "ffmpeg -re alone": (["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", str(clip), "-vf", f"{scale},format=bgr0", "-f", "null", "-"], None),
        "ffmpeg -re + drawtext": (["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", str(clip), "-vf",
                                   f"{scale},{drawtext(args.seconds)},format=bgr0", "-f", "null", "-"], None),
    }
    if shutil.which("mpv"):
        tools["mpv alone"] = (["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null",
                               f"--vf=lavfi=[{scale},format=bgr0]", str(clip)], None)
        tools["mpv + drawtext"] = (["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null",
                                    f"--vf=lavfi=[{scale},{drawtext(args.seconds)},format=bgr0]", str(clip)], None)
    results = {name: [] for name in tools}
    stats_of = {}
    for run in range(args.runs):
        names = list(tools)
        names = names[run % len(names):] + names[:run % len(names)]
        for name in names:
            argv, ticker = tools[name]
            if argv == "kiosk":
                stats = work / f"{'ticker' if ticker else 'alone'}-{run}.jsonl"
                conf = work / ("ticker.conf" if ticker else "alone.conf")
                conf.write_text(kiosk_config(clip, ticker))
                argv = [str(args.kiosk), "run", "--config", str(conf), "--display", "headless:1920x1080@60:vblank",
                        "--audio", "none", "--stats-file", str(stats), "--duration", str(args.seconds + 2)]
                stats_of[name] = stats
            code, wall, cpu, rss, _, err = playback.run_measured(argv)
            if code != 0:
                sys.exit(f"{name} failed ({code}): {err[-500:]}")
            extra = {}
            if name in stats_of:
                records = [json.loads(line) for line in stats_of[name].read_text().splitlines()]
                span = records[-1]["t"] - records[0]["t"]
                extra = {"flips_per_s": (len(records) - 1) / span, "dropped": records[-1]["dropped"],
                         "video": sum(1 for r in records if r.get("event") is None)}
            results[name].append({"wall": wall, "cpu": cpu, "rss": rss, **extra})
            print(f"run {run + 1}: {name}: {wall:.1f} s wall, {cpu:.2f} CPU-s, {rss:.0f} MB" +
                  (f", {extra['flips_per_s']:.2f} flips/s, {extra['dropped']} dropped, {extra['video']} video frames" if extra else ""),
                  flush=True)
    median = {name: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for name, runs in results.items()}
    print("\n| tool | wall s | CPU s | peak RSS MB | flips/s | dropped | CPU x alone |\n|---|---|---|---|---|---|---|")
    for name, m in median.items():
        alone = median[name.split(" +")[0] + " alone"]["cpu"] if " +" in name else m["cpu"]
        print(f"| {name} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss']:.1f} | "
              f"{m.get('flips_per_s', float('nan')):.2f} | {m.get('dropped', '')} | {m['cpu'] / alone:.2f} |")
    ratio = median["kiosk + ticker"]["cpu"] / median["kiosk alone"]["cpu"]
    ticker = median["kiosk + ticker"]
    print(f"\n{'PASS' if ratio <= 1.10 else 'MISS'} kiosk CPU with the ticker = {ratio:.2f}x alone (goal <= 1.10x)")
    print(f"{'PASS' if ticker['dropped'] == 0 else 'MISS'} kiosk dropped {ticker['dropped']:g} frames with the ticker (goal 0)")
    print(f"{'PASS' if ticker['flips_per_s'] >= 59.5 else 'MISS'} kiosk flipped {ticker['flips_per_s']:.2f} times a second with the ticker (goal 60)")


if __name__ == "__main__":
    main()
