#!/usr/bin/env python3
"""Issue 33's 4K line: 4K30 HEVC Main 10 played in real time onto a 1920x1080 headless screen,
kiosk next to ffmpeg -re and mpv doing the same in the same run:

- one item (`--seconds` long, default 10): peak RSS (goal <= 1.0x `ffmpeg -re ... -vf
  scale=1920:1080 -f null -`), CPU-seconds, frames dropped and the longest interval between flips;
- two items looping, 3 passes: peak RSS (goal <= 1.3x that ffmpeg), 0 dropped, no interval
  over 50 ms (seams included), and RSS between seams, pass by pass (memory a closed item
  leaves behind shows as a climb there: it crept 366 -> 493 MB over four seams before kiosk
  held glibc's mmap threshold, FrameHeap.swift);
- kiosk's one item again with `playback.decoder_threads` 1, 2 and 3.

    Benchmarks/fourk.py [--seconds 10] [--runs 1] [--kiosk .build/release/kiosk]

The clips (x265 ultrafast, crf 34, yuv420p10le: `testsrc2` and `testsrc`) are generated once
into --cache. Interleaved run by run; medians printed. Python 3 standard library only."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import playback  # noqa: E402  (arguments, make_clip)

GOAL_ONE = 1.0
GOAL_TWO = 1.3
WORST_INTERVAL = 0.050


def clip(cache, seconds, source):
    return playback.make_clip(cache / f"{source}-2160p30-{seconds}s-x265-ultrafast-crf34-10bit.mp4", [
        "-f", "lavfi", "-i", f"{source}=size=3840x2160:rate=30:duration={seconds}",
        "-c:v", "libx265", "-preset", "ultrafast", "-crf", "34", "-pix_fmt", "yuv420p10le",
        "-x265-params", "log-level=error"])


def run_sampled(argv):
    """Runs argv to the end, sampling its RSS every 20 ms; returns (exit code, wall s, CPU s,
    peak RSS MB from wait4, [(seconds since start, RSS MB)], stderr's tail)."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        samples, done = [], threading.Event()

        def sample():
            status = f"/proc/{process.pid}/status"
            while not done.is_set():
                try:
                    with open(status) as f:
                        for line in f:
                            if line.startswith("VmRSS:"):
                                samples.append((time.monotonic() - start, int(line.split()[1]) / 1024))
                except OSError:
                    return
                time.sleep(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        done.set()
        sampler.join()
        wall = time.monotonic() - start
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                samples, err.read().decode(errors="replace")[-600:])


def intervals(stats):
    """Frames shown, dropped, the longest interval between flips and how many exceed 50 ms."""
    records = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    records = [r for r in records if r.get("event") is None]
    flips = [r["t"] for r in records]
    gaps = [b - a for a, b in zip(flips, flips[1:])]
    return {"frames": len(records), "dropped": records[-1]["dropped"] if records else 0,
            "longest_ms": max(gaps, default=0) * 1000, "over_50ms": sum(1 for g in gaps if g > WORST_INTERVAL)}


def between_seams(samples, seconds, passes):
    """The median RSS in the middle of each item's play (from a quarter of it to 60 %), per
    item played: what stays mapped between seams."""
    plays = []
    for index in range(passes * 2):
        begin, end = index * seconds + seconds * 0.25, index * seconds + seconds * 0.6
        window = [mb for t, mb in samples if begin <= t <= end]
        if window:
            plays.append(statistics.median(window))
    return plays


def main():
    parser = playback.arguments(__doc__, seconds=10)
    parser.set_defaults(runs=1)
    args = parser.parse_args()
    first, second = clip(args.cache, args.seconds, "testsrc2"), clip(args.cache, args.seconds, "testsrc")
    work = Path(tempfile.mkdtemp(prefix="kiosk-bench-4k-"))
    passes = 3

    def kiosk(name, items, threads=None, loop=False):
        conf = work / f"{name}.conf"
        playback_section = "{loop: playlist}" if loop else "{loop: none}"
        if threads:
            playback_section = playback_section[:-1] + f", decoder_threads: {threads}}}"
        quoted = ", ".join(f"'{item}'" for item in items)
        conf.write_text(f"input: {{enabled: false}}\nplayback: {playback_section}\nitems: [{quoted}]\n")
        length = args.seconds * len(items) * (passes if loop else 1)
        return [str(args.kiosk), "run", "--config", str(conf), "--display", "headless:1920x1080", "--audio", "none",
                "--duration", str(length + 1), "--stats-file", str(work / f"{name}.jsonl")]

    scale = "scale=1920:1080:flags=bilinear"
    tools = {
        "kiosk, one item": kiosk("one", [first]),
        "kiosk, two items looping (3 passes)": kiosk("two", [first, second], loop=True),
        "kiosk, one item, decoder_threads 1": kiosk("threads1", [first], threads=1),
        "kiosk, one item, decoder_threads 2": kiosk("threads2", [first], threads=2),
        "kiosk, one item, decoder_threads 3": kiosk("threads3", [first], threads=3),
        "ffmpeg -re scale": ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", str(first), "-vf", scale, "-f", "null", "-"],
    }
    if shutil.which("mpv"):
        tools["mpv --vo=null scale"] = ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null",
                                        f"--vf=lavfi=[{scale}]", str(first)]
    results = {name: [] for name in tools}
    for run in range(args.runs):
        names = list(tools)
        names = names[run % len(names):] + names[:run % len(names)]
        for name in names:
            code, wall, cpu, rss, samples, err = run_sampled(tools[name])
            if code != 0:
                sys.exit(f"{name} failed ({code}): {err}")
            row = {"wall": wall, "cpu": cpu, "rss": rss}
            if name.startswith("kiosk"):
                stats = Path(tools[name][tools[name].index("--stats-file") + 1])
                row.update(intervals(stats))
                if "looping" in name:
                    row["between_seams"] = between_seams(samples, args.seconds, passes)
            results[name].append(row)
            print(f"run {run + 1}: {name}: " + ", ".join(
                f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items() if k != "between_seams")
                + (f", RSS between seams {' '.join(f'{mb:.0f}' for mb in row['between_seams'])} MB" if "between_seams" in row else ""),
                flush=True)

    def median(name, key):
        values = [r[key] for r in results[name] if key in r]
        return statistics.median(values) if values else None

    baseline = median("ffmpeg -re scale", "rss")
    print("\n| tool | wall s | CPU s | peak RSS MB | RSS x ffmpeg | frames | dropped | longest interval ms | intervals > 50 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in tools:
        cells = [f"{median(name, k):.2f}" for k in ("wall", "cpu")] + [f"{median(name, 'rss'):.1f}", f"{median(name, 'rss') / baseline:.2f}"]
        cells += [f"{median(name, k):g}" if median(name, k) is not None else "" for k in ("frames", "dropped")]
        cells += [f"{median(name, k):.1f}" if median(name, k) is not None else "" for k in ("longest_ms",)]
        cells += [f"{median(name, 'over_50ms'):g}" if median(name, "over_50ms") is not None else ""]
        print(f"| {name} | " + " | ".join(cells) + " |")
    two_items = "kiosk, two items looping (3 passes)"
    one, two = median("kiosk, one item", "rss") / baseline, median(two_items, "rss") / baseline
    dropped, longest, over = (median(two_items, key) for key in ("dropped", "longest_ms", "over_50ms"))
    print(f"\n{playback.verdict(one <= GOAL_ONE)} one item's peak RSS = {one:.2f}x ffmpeg -re scale (goal <= {GOAL_ONE}x)")
    print(f"{playback.verdict(two <= GOAL_TWO)} two items' peak RSS = {two:.2f}x (goal <= {GOAL_TWO}x)")
    print(f"{playback.verdict(dropped == 0)} two items dropped {dropped:g} frames (goal 0)")
    print(f"{playback.verdict(longest <= WORST_INTERVAL * 1000)} two items' longest interval "
          f"{longest:.1f} ms, {over:g} over 50 ms (goal: none over 50 ms, seams included; medians of the runs)")
    seams = results[two_items][-1].get("between_seams", [])
    if len(seams) >= 3:
        climb = seams[-1] - min(seams[:2])
        print(f"{playback.verdict(climb < 20)} RSS between seams {' -> '.join(f'{mb:.0f}' for mb in seams)} MB "
              f"(a climb of {climb:.0f} MB from the first pass to the last; goal: under 20)")


if __name__ == "__main__":
    main()
