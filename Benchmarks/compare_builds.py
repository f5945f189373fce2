#!/usr/bin/env python3
"""Two kiosk builds against each other on the lines a change must not make worse (the race, the
first frame, real time), interleaved round by round so the machine's noise falls on both:

    Benchmarks/compare_builds.py BEFORE_KIOSK AFTER_KIOSK [--rounds 5] [--preload-before LIBRARY]
                                 [--library-path-after DIR]

--preload-before runs BEFORE with LD_PRELOAD=LIBRARY: what loading a library at every start costs,
with AFTER the same binary (a library kiosk now opens on first use, its link put back).
--library-path-after runs AFTER with LD_LIBRARY_PATH=DIR: the same binary on other shared libraries
of the same sonames (an FFmpeg of kiosk's own, Benchmarks/lean-ffmpeg).
Each round also runs the `ffmpeg` on PATH (Debian's, where deploy/setup installed it) decode-only on
the race's clip, after both builds: the race goals' baseline, so the race's peak RSS is also given
as a ratio to it from the same run.

The clips are playback.py's (20 s and 2 s of 1080p30 H.264, cached). Copy both binaries out of
.build first, and drop the page cache (echo 3 > /proc/sys/vm/drop_caches) when comparing peak RSS:
a freshly written binary has more of its pages mapped (BENCHMARKS.md, "Race, real time and first
frame against the commit before")."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import playback


def waited(argv, env=None):
    """Wall seconds, CPU seconds (user+sys) and peak RSS (MB) of one run."""
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"{argv} failed"
    return time.monotonic() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def first_frame_ms(kiosk, clip, env=None):
    with tempfile.TemporaryDirectory() as directory:
        stats = Path(directory) / "stats.jsonl"
        spawned = time.clock_gettime(time.CLOCK_MONOTONIC)
        subprocess.run([kiosk, "play", str(clip), "--display", "headless:1280x800@60", "--audio", "none", "--no-input",
                        "--duration", "0.5", "--stats-file", str(stats)], capture_output=True, check=True, env=env)
        return (json.loads(stats.read_text().splitlines()[0])["t"] - spawned) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--preload-before", metavar="LIBRARY")
    parser.add_argument("--library-path-after", metavar="DIR")
    args = parser.parse_args()
    cache = Path.home() / ".cache" / "kiosk-bench"
    cache.mkdir(parents=True, exist_ok=True)
    long_clip, short_clip = playback.silent_clip(cache, 20), playback.silent_clip(cache, 2)
    builds = {"before": args.before, "after": args.after}
    environments = {"before": dict(os.environ, LD_PRELOAD=args.preload_before) if args.preload_before else None,
                    "after": dict(os.environ, LD_LIBRARY_PATH=args.library_path_after) if args.library_path_after else None}
    race, first, real, start = ({name: [] for name in builds} for _ in range(4))
    ffmpeg = shutil.which("ffmpeg")
    baseline = []
    for round_number in range(args.rounds):
        order = list(builds.items()) if round_number % 2 == 0 else list(reversed(builds.items()))
        for name, kiosk in order:
            env = environments[name]
            race[name].append(waited([kiosk, "bench", str(long_clip), "--size", "1280x800", "--gravity", "fit"], env))
            first[name].append(first_frame_ms(kiosk, short_clip, env))
            real[name].append(waited([kiosk, "play", str(long_clip), "--display", "headless:1280x800", "--audio", "none",
                                      "--no-input", "--duration", "10"], env))
            start[name] += [waited([kiosk, "--help"], env) for _ in range(5)]
        if ffmpeg:
            baseline.append(waited([ffmpeg, "-nostdin", "-v", "error", "-i", str(long_clip), "-f", "null", "-"]))
    rows = [("race wall s", lambda n: statistics.median(r[0] for r in race[n])),
            ("race peak RSS MB", lambda n: statistics.median(r[2] for r in race[n])),
            ("first frame ms", lambda n: statistics.median(first[n])),
            ("start-up (--help) ms", lambda n: 1000 * statistics.median(r[0] for r in start[n])),
            ("start-up (--help) peak RSS MB", lambda n: statistics.median(r[2] for r in start[n])),
            ("real time 10 s CPU s", lambda n: statistics.median(r[1] for r in real[n])),
            ("real time peak RSS MB", lambda n: statistics.median(r[2] for r in real[n]))]
    if baseline:
        peak = statistics.median(r[2] for r in baseline)
        rows.insert(2, ("race peak RSS / ffmpeg decode-only's", lambda n: statistics.median(r[2] for r in race[n]) / peak))
        print(f"ffmpeg decode-only (the race's baseline, {ffmpeg}): wall {statistics.median(r[0] for r in baseline):.2f} s, "
              f"peak RSS {peak:.2f} MB (medians of {len(baseline)})\n")
    print("| line | " + " | ".join(builds) + " |")
    print("| --- |" + " --- |" * len(builds))
    for label, value in rows:
        print(f"| {label} | " + " | ".join(f"{value(name):.2f}" for name in builds) + " |")


if __name__ == "__main__":
    main()
