#!/usr/bin/env python3
"""Mutation fuzzer for kiosk's media input (issue 12): damaged files never freeze the screen.

Small clips are made at run time with ffmpeg (MP4 H.264+AAC, MKV, WebM VP9+Opus, MPEG-TS
H.264+AAC and MPEG-2+MP2 (progressive and interlaced), MPEG-PS MPEG-1 and MPEG-2 + MP2, AVI, MOV with a rotation tag, GIF, animated WebP,
PNG, JPEG), then damaged by a deterministic mutator of our own (bit flips at several rates,
runs of bytes, truncation, duplicated and dropped chunks): the same --seed gives the same files.

Each file is played alone (`kiosk play FILE --display headless:160x120 --audio null
--stats-file ...`) with a hang detector: a run is `hung` when kiosk shows no progress (no new
stats line) for clip length + 5 s + --slack while it is still alive, `crashed` when it dies of a
signal, `rejected` on exit 1 (one line naming the file), `played` on exit 0; any other exit code
is `crashed` too. Where mpv is installed the same files go through `mpv --vo=null --ao=null`
(wall clock limit) and both tallies are printed side by side. Then (--playlist) a looping
playlist of the damaged files between two good clips must show both good clips in every pass.

    Tests/System/fuzz_media.py --count 2000 --seed 1 --jobs 6

Exit status 0 when kiosk had no hang and no crash (and the playlist check passed).
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
SIZE = "160x120"
SECONDS = 2
STILL_SECONDS = 1.0

VIDEO = ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=25:duration={SECONDS}"]
SOUND = ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={SECONDS}"]
X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-pix_fmt", "yuv420p"]

# name: (extension, ffmpeg arguments after the inputs). One source clip per container/codec pair.
SOURCES = {
    "mp4-h264-aac": ("mp4", VIDEO + SOUND + X264 + ["-c:a", "aac", "-shortest"]),
    "mkv-h264-vorbis": ("mkv", VIDEO + SOUND + X264 + ["-c:a", "libvorbis", "-shortest"]),
    "webm-vp9-opus": ("webm", VIDEO + SOUND + ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                                                "-b:v", "200k", "-c:a", "libopus", "-shortest"]),
    "ts-h264-aac": ("ts", VIDEO + SOUND + X264 + ["-c:a", "aac", "-shortest", "-f", "mpegts"]),
    "ts-mpeg2-mp2": ("ts", VIDEO + SOUND + ["-c:v", "mpeg2video", "-g", "12", "-c:a", "mp2", "-shortest", "-f", "mpegts"]),
    # Interlaced: its frames go through the deinterlacer (bwdif), damaged ones too.
    "ts-mpeg2-interlaced": ("ts", VIDEO + SOUND + ["-vf", "tinterlace=mode=interleave_top,setfield=tff", "-c:v", "mpeg2video",
                                                   "-flags", "+ilme+ildct", "-top", "1", "-g", "12", "-c:a", "mp2", "-shortest",
                                                   "-f", "mpegts"]),
    "ps-mpeg1-mp2": ("mpg", VIDEO + SOUND + ["-c:v", "mpeg1video", "-g", "12", "-c:a", "mp2", "-shortest", "-f", "mpeg"]),
    "ps-mpeg2-mp2": ("mpg", VIDEO + SOUND + ["-c:v", "mpeg2video", "-g", "12", "-c:a", "mp2", "-shortest", "-f", "vob"]),
    "avi-mpeg4-mp3": ("avi", VIDEO + SOUND + ["-c:v", "mpeg4", "-g", "12", "-c:a", "libmp3lame", "-shortest"]),
    "mov-rotated": ("mov", VIDEO + SOUND + X264 + ["-c:a", "aac", "-shortest", "-metadata:s:v:0", "rotate=90"]),
    "gif": ("gif", ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=10:duration=1"]),
    # Decoded by libwebpdemux, not FFmpeg (WebPAnimationReader): its own path through the pipeline.
    "webp-animated": ("webp", ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=10:duration=1", "-c:v", "libwebp_anim",
                               "-loop", "0"]),
    "png": ("png", ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=1", "-frames:v", "1"]),
    "jpeg": ("jpg", ["-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=1", "-frames:v", "1"]),
}
STILLS = {"png", "jpeg"}


def make_sources(directory: Path):
    directory.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, (extension, arguments) in SOURCES.items():
        path = directory / f"{name}.{extension}"
        if not path.exists():
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *arguments, str(path)], check=True)
        made[name] = path
    return made


# ---- the mutator: deterministic from its Random ----

def flip_bits(data: bytearray, rng: random.Random, rate: float):
    count = max(1, int(len(data) * 8 * rate))
    for _ in range(count):
        bit = rng.randrange(len(data) * 8)
        data[bit // 8] ^= 1 << (bit % 8)
    return f"flip{rate:g}x{count}"


def byte_runs(data: bytearray, rng: random.Random, runs: int):
    for _ in range(runs):
        length = rng.randint(1, 64)
        start = rng.randrange(max(1, len(data) - length))
        value = rng.choice([0x00, 0xFF, None])
        for index in range(start, min(len(data), start + length)):
            data[index] = rng.randrange(256) if value is None else value
    return f"runs{runs}"


def truncate(data: bytearray, rng: random.Random):
    keep = int(len(data) * rng.uniform(0.05, 0.95))
    del data[keep:]
    return f"cut{keep}"


def duplicate_chunk(data: bytearray, rng: random.Random):
    length = rng.randint(16, max(17, len(data) // 8))
    start = rng.randrange(max(1, len(data) - length))
    chunk = data[start:start + length]
    at = rng.randrange(len(data))
    data[at:at] = chunk
    return f"dup{length}"


def drop_chunk(data: bytearray, rng: random.Random):
    length = rng.randint(16, max(17, len(data) // 8))
    start = rng.randrange(max(1, len(data) - length))
    del data[start:start + length]
    return f"drop{length}"


MUTATIONS = [
    lambda d, r: flip_bits(d, r, 1e-5),
    lambda d, r: flip_bits(d, r, 1e-4),
    lambda d, r: flip_bits(d, r, 1e-3),
    lambda d, r: byte_runs(d, r, r.randint(1, 8)),
    truncate,
    duplicate_chunk,
    drop_chunk,
]


def mutate(source: bytes, rng: random.Random):
    """One to three mutations, each chosen by `rng`: the same Random gives the same file."""
    data = bytearray(source)
    steps = [rng.choice(MUTATIONS)(data, rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    if not data:
        data = bytearray(source[:1])
    return bytes(data), "+".join(steps)


def make_corpus(sources: dict, directory: Path, count: int, seed: int):
    directory.mkdir(parents=True, exist_ok=True)
    names = sorted(sources)
    files = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        name = names[number % len(names)]
        data, how = mutate(sources[name].read_bytes(), rng)
        path = directory / f"{number:05d}-{name}-{how}{sources[name].suffix}"
        path.write_bytes(data)
        files.append((path, name))
    return files


# ---- players ----

def progress_lines(stats: Path):
    try:
        with open(stats, "rb") as handle:
            return handle.read().count(b"\n")
    except FileNotFoundError:
        return 0


def verdict_of(returncode: int, rejected_codes):
    if returncode < 0:
        return "crashed"
    if returncode == 0:
        return "played"
    if returncode in rejected_codes:
        return "rejected"
    return "crashed"


def play_kiosk(path: Path, still: bool, slack: float, work: Path):
    """Plays one file; hung when alive without a new stats line for clip + 5 s + slack."""
    stats = work / (path.name + ".stats")
    log = work / (path.name + ".log")
    command = [str(KIOSK), "play", str(path), "--display", f"headless:{SIZE}", "--audio", "null",
               "--stats-file", str(stats), "--no-input", "--image-duration", str(STILL_SECONDS)]
    idle_limit = SECONDS + 5 + slack
    # Progress that never ends is no better than none: a damaged 2 s clip (duplicated chunks
    # make it a little longer) has no business playing three times its length.
    overall_limit = 3 * (SECONDS + 5) + slack
    started = time.monotonic()
    with open(log, "wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        seen, last_change = -1, started
        while process.poll() is None:
            time.sleep(0.2)
            lines = progress_lines(stats)
            if lines != seen:
                seen, last_change = lines, time.monotonic()
            elif time.monotonic() - last_change > idle_limit or time.monotonic() - started > overall_limit:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                return "hung", log.read_text(errors="replace")[-400:], time.monotonic() - started
    seconds = time.monotonic() - started
    text = log.read_text(errors="replace")
    result = verdict_of(process.returncode, {1})
    if result == "played" or result == "rejected":
        stats.unlink(missing_ok=True)
        log.unlink(missing_ok=True)
    # Ended by the stall guard: not a hang, but a freeze the timestamp rules let through.
    if "stalled: no new frame" in text:
        (work / "stalled.txt").open("a").write(f"{path}\n")
    return result, text[-400:], seconds


def play_mpv(path: Path, still: bool, slack: float, work: Path):
    """mpv reports no progress we can watch cheaply: a wall-clock limit of clip + 5 s + slack."""
    command = ["mpv", "--no-config", "--vo=null", "--ao=null", "--really-quiet", "--no-terminal",
               f"--image-display-duration={STILL_SECONDS}", str(path)]
    limit = SECONDS + 5 + slack
    started = time.monotonic()
    try:
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=limit,
                                   start_new_session=True)
    except subprocess.TimeoutExpired:
        return "hung", "", time.monotonic() - started
    # mpv: 0 played, 1 error initializing, 2 the file could not be played.
    return verdict_of(completed.returncode, {1, 2}), "", time.monotonic() - started


def tally(results):
    counts = {"played": 0, "rejected": 0, "hung": 0, "crashed": 0}
    for result in results:
        counts[result] += 1
    return counts


def run_players(files, player, jobs: int, slack: float, work: Path):
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda item: player(item[0], item[1] in STILLS, slack, work), files))


# ---- the looping playlist ----

def passes_seen(stats: Path, last: int):
    """Full passes in a looping playlist's stats trace (the first good clip, then after the
    damaged ones the second), and what went wrong if a good clip was missing from a pass."""
    order = []   # items in the order they came on screen, one entry per run of the same item
    try:
        lines = stats.read_text().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        if not line.endswith("}"):
            continue
        item = json.loads(line)["item"]
        if not order or order[-1] != item:
            order.append(item)
    good = [item for item in order if item in (0, last)]
    passes = sum(1 for index in range(len(good) - 1) if good[index] == 0 and good[index + 1] == last)
    for index in range(len(good) - 1):
        if good[index] == good[index + 1]:
            return passes, f"good clip {good[index]} came twice without the other between (a pass lost one)"
    return passes, None


def playlist_passes(good_a: Path, good_b: Path, files, seconds: float, slack: float, work: Path, wanted_passes: int):
    """Plays good_a, the damaged files, good_b in a loop; returns (passes, problems)."""
    stats = work / "playlist.stats"
    log = work / "playlist.log"
    entries = [good_a] + [path for path, _ in files] + [good_b]
    command = [str(KIOSK), "play", *map(str, entries), "--loop", "--display", f"headless:{SIZE}", "--audio", "null",
               "--stats-file", str(stats), "--no-input", "--image-duration", str(STILL_SECONDS)]
    problems = []
    with open(log, "wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        start = time.monotonic()
        seen, last_change = -1, start
        while process.poll() is None and time.monotonic() - start < seconds:
            time.sleep(0.25)
            if passes_seen(stats, len(entries) - 1)[0] >= wanted_passes:
                break
            lines = progress_lines(stats)
            if lines != seen:
                seen, last_change = lines, time.monotonic()
            elif time.monotonic() - last_change > SECONDS + 5 + slack:
                problems.append(f"no frame for {time.monotonic() - last_change:.0f} s (hung)")
                break
        if process.poll() is not None:
            problems.append(f"kiosk exited with {process.returncode} during the looping playlist")
        else:
            process.send_signal(signal.SIGTERM)
            try:
                if process.wait(timeout=30) != 0:
                    problems.append(f"SIGTERM gave exit {process.returncode}")
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                problems.append("kiosk did not stop within 30 s of SIGTERM")
    passes, lost = passes_seen(stats, len(entries) - 1)
    if lost:
        problems.append(lost)
    return passes, problems, log


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=4, help="files played at once (playback is mostly waiting)")
    parser.add_argument("--slack", type=float, default=10.0, help="extra seconds before a silent run counts as hung")
    parser.add_argument("--work", type=Path, help="keep files here (default: a temporary folder)")
    parser.add_argument("--no-mpv", action="store_true", help="do not run mpv even where it is installed")
    parser.add_argument("--playlist-files", type=int, default=40, help="damaged files in the looping playlist (0: none)")
    parser.add_argument("--playlist-passes", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the tallies and the failures here")
    parser.add_argument("--kiosk", type=Path, help="the kiosk binary (default .build/debug/kiosk; a copy lets a long run go on while you rebuild)")
    options = parser.parse_args(argv)
    global KIOSK
    if options.kiosk:
        KIOSK = options.kiosk.resolve()
    if not KIOSK.exists():
        sys.exit(f"{KIOSK} is missing: run swift build first")

    work = options.work or Path(tempfile.mkdtemp(prefix="kiosk-fuzz-"))
    work.mkdir(parents=True, exist_ok=True)
    sources = make_sources(work / "sources")
    files = make_corpus(sources, work / f"mutated-{options.seed}", options.count, options.seed)
    print(f"{len(files)} damaged files from {len(sources)} clips, seed {options.seed}, in {work}", flush=True)

    started = time.monotonic()
    kiosk_results = run_players(files, play_kiosk, options.jobs, options.slack, work)
    kiosk_seconds = time.monotonic() - started
    kiosk_counts = tally(result for result, _, _ in kiosk_results)
    kiosk_longest = max((seconds for _, _, seconds in kiosk_results), default=0)
    stalled_file = work / "stalled.txt"
    stalled = stalled_file.read_text().split() if stalled_file.exists() else []
    stalled = [path for path in stalled if any(path == str(file) for file, _ in files)]
    failures = [(str(path), result, tail) for (path, _), (result, tail, _) in zip(files, kiosk_results)
                if result in ("hung", "crashed")]

    mpv_counts = None
    mpv_failures = []
    if shutil.which("mpv") and not options.no_mpv:
        started = time.monotonic()
        mpv_results = run_players(files, play_mpv, options.jobs, options.slack, work)
        mpv_seconds = time.monotonic() - started
        mpv_counts = tally(result for result, _, _ in mpv_results)
        mpv_longest = max((seconds for _, _, seconds in mpv_results), default=0)
        mpv_failures = [(str(path), result) for (path, _), (result, _, _) in zip(files, mpv_results)
                        if result in ("hung", "crashed")]

    print(f"\n{'':10}{'kiosk':>8}{'mpv' if mpv_counts else '':>8}")
    for key in ("played", "rejected", "hung", "crashed"):
        print(f"{key:10}{kiosk_counts[key]:>8}{mpv_counts[key] if mpv_counts else '':>8}")
    if mpv_counts:
        print(f"{'seconds':10}{kiosk_seconds:>8.0f}{mpv_seconds:>8.0f}")
        print(f"{'longest':10}{kiosk_longest:>8.1f}{mpv_longest:>8.1f}   (seconds, one file)")
    else:
        print(f"{'seconds':10}{kiosk_seconds:>8.0f}")
        print(f"{'longest':10}{kiosk_longest:>8.1f}   (seconds, one file)")
    print(f"\nkiosk: {len(stalled)} of them ended by the stall guard (a freeze the timestamp rules let through)")
    for path in stalled:
        print(f"  stalled: {path}")
    for path, result, tail in failures:
        print(f"\nkiosk {result}: {path}\n{tail}")
    for path, result in mpv_failures:
        print(f"mpv {result}: {path}")

    playlist_ok = True
    playlist = None
    if options.playlist_files > 0:
        chosen = files[:options.playlist_files]
        good_a, good_b = sources["mp4-h264-aac"], sources["mkv-h264-vorbis"]
        # A pass lasts at most every file's length plus a stall timeout each; the run stops
        # once the passes are seen or the time is up.
        budget = options.playlist_passes * (len(chosen) + 2) * (SECONDS + 1) + 60
        passes, problems, log = playlist_passes(good_a, good_b, chosen, budget, options.slack, work, options.playlist_passes)
        playlist = {"files": len(chosen), "passes": passes, "problems": problems}
        playlist_ok = passes >= options.playlist_passes and not problems
        print(f"\nlooping playlist of {len(chosen)} damaged files between two good clips: {passes} full passes"
              + (f"; problems: {problems} (log {log})" if problems else ""))

    if options.json:
        options.json.write_text(json.dumps({"count": len(files), "seed": options.seed, "kiosk": kiosk_counts,
                                            "mpv": mpv_counts, "failures": failures, "mpv_failures": mpv_failures,
                                            "kiosk_longest_seconds": kiosk_longest, "kiosk_stalled": stalled,
                                            "playlist": playlist}, indent=1))
    ok = kiosk_counts["hung"] == 0 and kiosk_counts["crashed"] == 0 and playlist_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
