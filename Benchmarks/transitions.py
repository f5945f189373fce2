#!/usr/bin/env python3
"""Issue 22's transition benchmark: two different 1080p30 clips on a 60 Hz vblank grid
(kiosk's headless display flipping on a simulated vblank), played once with a cut, once with a
1 s crossfade and once with a 1 s fade between them:

- during the crossfade: flips one refresh apart (goal: every refresh), how far each flip's weight
  (stats `"mix"`) is from its flip's time into the transition, in refreshes (goal: within half a
  refresh) and in 1/255 steps, and frames dropped (goal 0, as with the cut);
- CPU-seconds (user+sys) of the whole run against the cut's (the crossfade mixes 2 M pixels a
  flip for a second);
- FFmpeg's `xfade` (1 s fade between the same clips, scaled to 1920x1080 BGR0, -re) against its
  plain concatenation in the same run, as the yardstick (mpv and GStreamer have no crossfade of
  playlist items to compare with; FFmpeg's blends two moving pictures, kiosk holds the outgoing
  one's last picture).

Pixel exactness (within 1/255, never darker than both) is checked at a small size by
Tests/System/test_transitions.py, not here (a PNG per flip would be the benchmark).

    Benchmarks/transitions.py [--seconds 6] [--runs 3] [--kiosk .build/release/kiosk]

Interleaved run by run, medians printed. Python 3 standard library only."""
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import playback  # noqa: E402  (arguments, silent_clip, run_measured)


REFRESH = 1 / 60
SCALE = "scale=1920:1080:flags=bilinear,format=bgr0"


def kiosk_config(clips, transition):
    return (f"input: {{enabled: false}}\nplayback: {{loop: none, transition: {{type: {transition}, duration: 1}}}}\n"
            f"items: ['{clips[0]}', '{clips[1]}']\n")


def crossfade_timing(records):
    """(flips, fraction one refresh apart, flips that came a refresh or more late, fraction of
    the others whose weight is within half a refresh of their flip's time, worst of those in
    refreshes). A late flip (the one after a missed refresh) carries the weight worked out for
    the refresh it missed: counted apart, as the pacing failure it is."""
    mixed = [r for r in records if "mix" in r]
    if len(mixed) < 2:
        return len(mixed), 0.0, 0, 0.0, float("nan")
    gaps = [round((b["t"] - a["t"]) / REFRESH) for a, b in zip(mixed, mixed[1:])]
    # The transition's start on the flip grid: the flips' times less what their weights say.
    start = statistics.median(r["t"] - r["mix"] / 255 for r in mixed)
    late = [b for b, gap in zip(mixed[1:], gaps) if gap > 1]
    timed = [r for r in mixed if 0 < r["mix"] < 255 and r not in late]   # 0 and 255 are clamped
    errors = [abs(r["mix"] / 255 - (r["t"] - start)) / REFRESH for r in timed]
    within = sum(1 for e in errors if e <= 0.5) / len(errors) if errors else 0.0
    return len(mixed), sum(1 for g in gaps if g == 1) / len(gaps), len(late), within, max(errors, default=float("nan"))


def main():
    args = playback.arguments(__doc__, seconds=6).parse_args()
    clips = [playback.silent_clip(args.cache, args.seconds, source) for source in ("testsrc2", "smptehdbars")]
    work = Path(tempfile.mkdtemp(prefix="kiosk-bench-transitions-"))
    inputs = ["-re", "-i", str(clips[0]), "-re", "-i", str(clips[1])]
    tools = {
        "kiosk cut": "cut", "kiosk crossfade": "crossfade", "kiosk fade": "fade",
        "ffmpeg concat": ["ffmpeg", "-nostdin", "-v", "error", *inputs, "-filter_complex",
                          f"[0:v][1:v]concat=n=2:v=1:a=0,{SCALE}", "-f", "null", "-"],
        "ffmpeg xfade": ["ffmpeg", "-nostdin", "-v", "error", *inputs, "-filter_complex",
                         f"[0:v][1:v]xfade=transition=fade:duration=1:offset={args.seconds - 1},{SCALE}", "-f", "null", "-"],
    }
    results = {name: [] for name in tools}
    for run in range(args.runs):
        names = list(tools)
        names = names[run % len(names):] + names[:run % len(names)]
        for name in names:
            argv = tools[name]
            stats = None
            if isinstance(argv, str):
                stats, conf = work / f"{argv}-{run}.jsonl", work / f"{argv}.conf"
                conf.write_text(kiosk_config(clips, argv))
                argv = [str(args.kiosk), "run", "--config", str(conf), "--display", "headless:1920x1080@60:vblank",
                        "--audio", "none", "--stats-file", str(stats), "--duration", str(2 * args.seconds + 2)]
            code, wall, cpu, rss, _, err = playback.run_measured(argv)
            if code != 0:
                sys.exit(f"{name} failed ({code}): {err[-500:]}")
            extra = {}
            if stats:
                records = [json.loads(line) for line in stats.read_text().splitlines()]
                flips, apart, late, within, worst = crossfade_timing(records)
                extra = {"dropped": records[-1]["dropped"], "items": len({r["item"] for r in records})}
                if name == "kiosk crossfade":
                    extra.update(flips=flips, apart=apart, late=late, within=within, worst=worst)
            results[name].append({"wall": wall, "cpu": cpu, "rss": rss, **extra})
            print(f"run {run + 1}: {name}: {wall:.1f} s wall, {cpu:.2f} CPU-s, {rss:.0f} MB"
                  + "".join(f", {key} {value:.3g}" for key, value in extra.items()), flush=True)
    median = {name: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for name, runs in results.items()}
    print("\n| tool | wall s | CPU s | peak RSS MB | dropped | CPU x its cut |\n|---|---|---|---|---|---|")
    for name, m in median.items():
        base = median["kiosk cut" if name.startswith("kiosk") else "ffmpeg concat"]["cpu"]
        print(f"| {name} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss']:.1f} | {m.get('dropped', '')} | {m['cpu'] / base:.2f} |")
    cross = median["kiosk crossfade"]
    print(f"\ncrossfade (medians of {args.runs} runs): {cross['flips']:.0f} flips, {100 * cross['apart']:.1f} % one refresh "
          f"apart, {cross['late']:g} late; of the others {100 * cross['within']:.1f} % with the weight within half a "
          f"refresh of the flip's time (worst {cross['worst']:.2f} refresh)")
    print(f"{'PASS' if cross['apart'] >= 0.99 else 'MISS'} a flip at every refresh through the crossfade")
    print(f"{'PASS' if cross['within'] == 1 else 'MISS'} each flip on time within half a refresh of its weight's time")
    print(f"{'PASS' if cross['dropped'] <= median['kiosk cut']['dropped'] else 'MISS'} "
          f"dropped {cross['dropped']:g} with the crossfade, {median['kiosk cut']['dropped']:g} with the cut")


if __name__ == "__main__":
    main()
