"""The playback lines of the benchmark page (Benchmarks/run): real time with sound, time to the
first frame, seek latency and seams, kiosk next to ffmpeg, mpv and GStreamer where each can do
the same work and be timed honestly. Each line returns a `Section` for the page.

Timing: every time here is CLOCK_MONOTONIC (Python's time.monotonic on Linux, kiosk's stats `t`),
taken by this script unless a line says it is a tool's own timing. CPU time and peak RSS come
from wait4's rusage. Python 3 standard library only.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SCREEN = (1280, 800)
FIT_FILTER = "scale=1280:720:flags=bilinear,pad=1280:800:0:40,format=bgr0"
FRAME_BYTES = {"fit": 1280 * 800 * 4, "gst": 1280 * 720 * 4}
GOAL_REALTIME = 0.65        # kiosk CPU-seconds <= 0.65x ffmpeg -re's
GOAL_FIRST_FRAME = 0.100    # seconds
GOAL_SEEK = 0.080           # seconds
SEAM_SLACK = 0.002          # a seam may take one frame period + 2 ms
MPV_FIRST_FRAME = 'mp.register_event("playback-restart", function() io.stdout:write("first\\n"); io.stdout:flush() end)\n'


@dataclass
class Section:
    """One line of the page: a table (header + rows of cells), goal verdicts, commands, notes."""
    key: str
    title: str
    intro: str
    header: list
    rows: list = field(default_factory=list)
    goals: list = field(default_factory=list)
    commands: list = field(default_factory=list)     # (comment, command line)
    notes: list = field(default_factory=list)

    def text_table(self):
        lines = ["| " + " | ".join(self.header) + " |", "|" + "|".join("---" for _ in self.header) + "|"]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines)


def verdict(ok):
    return "OK  " if ok else "MISS"


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1000:.1f}"


# ---------------------------------------------------------------------------------------------
# Clips


def make_clip(path, ffmpeg_args):
    """Makes `path` with ffmpeg once (cached); exits with a clear line if ffmpeg fails."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial" + path.suffix)
    print(f"generating {path.name} (once) ...", flush=True)
    result = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + ffmpeg_args + [str(partial)])
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        raise SystemExit(f"Benchmarks/run: ffmpeg could not generate {path.name}")
    partial.rename(path)
    return path


def silent_clip(cache, seconds, source="testsrc2"):
    """1080p30 H.264 of lavfi's `source` (x264 medium crf 23), no sound: the layers', planes' and
    transitions' benchmarks."""
    return make_clip(cache / f"{source}-1080p30-{seconds}s-x264-medium-crf23.mp4", [
        "-f", "lavfi", "-i", f"{source}=size=1920x1080:rate=30:duration={seconds}",
        "-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])


def arguments(description, seconds):
    """The options every one-question benchmark takes: --seconds (default `seconds`), --runs,
    --kiosk (the release build) and --cache (where generated clips are kept)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=seconds)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kiosk", type=Path, default=Path(__file__).resolve().parents[1] / ".build" / "release" / "kiosk")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "kiosk-bench")
    return parser


def av_clip(cache, seconds, gop=None):
    """1080p30 H.264 (testsrc2, x264 medium crf 23, its default keyframe interval of up to 250
    frames unless `gop` says) with 48 kHz stereo AAC (a 440 Hz sine): a signage file with sound."""
    suffix = f"-g{gop}" if gop else ""
    return make_clip(cache / f"testsrc2-sine-1080p30-{seconds}s-x264-medium-crf23{suffix}-aac.mp4", [
        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={seconds}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
        "-ac", "2", "-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p"]
        + (["-g", str(gop)] if gop else []) + [
        "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart"])


def seam_clips(cache):
    """Two different half-second 1080p30 clips (15 frames each) for the seam playlist."""
    clips = []
    for name, source in [("a", "testsrc2"), ("b", "smptehdbars")]:
        clips.append(make_clip(cache / f"seam-{name}-{source}-1080p30-0.5s.mp4", [
            "-f", "lavfi", "-i", f"{source}=size=1920x1080:rate=30:duration=0.5",
            "-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p", "-movflags", "+faststart"]))
    return clips


def null_alsa_home():
    """A temporary HOME whose ~/.asoundrc defines `benchnull`, an ALSA PCM that throws the sound
    away (ALSA's `null` plugin). It keeps no time: ffmpeg's -re paces the run instead."""
    home = Path(tempfile.mkdtemp(prefix="kiosk-bench-alsa-"))
    (home / ".asoundrc").write_text("pcm.benchnull {\n    type null\n}\n")
    return home


# ---------------------------------------------------------------------------------------------
# Processes


def run_measured(argv, env=None, preexec=None):
    """Runs argv to the end; returns (exit code, wall s, CPU s, peak RSS MB, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   env=dict(os.environ, **env) if env else None, preexec_fn=preexec)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                out.read().decode(errors="replace"), err.read().decode(errors="replace").strip())


def time_to_output(argv, need_bytes, env=None, preexec=None, timeout=30):
    """Seconds from spawning argv until `need_bytes` bytes came out of its stdout (then it is
    killed), or None."""
    start = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=dict(os.environ, **env) if env else None, preexec_fn=preexec)
    got = 0
    deadline = start + timeout
    try:
        while got < need_bytes and time.monotonic() < deadline:
            chunk = process.stdout.read1(need_bytes - got)
            if not chunk:
                break
            got += len(chunk)
        done = time.monotonic()
    finally:
        process.kill()
        process.wait()
    return done - start if got >= need_bytes else None


def read_stats(path):
    """kiosk's --stats-file: (t, item, pts, video) per flipped frame."""
    import json
    records = []
    for line in Path(path).read_text().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        records.append((r["t"], r["item"], r["pts"], r.get("video", True)))
    return records


# ---------------------------------------------------------------------------------------------
# Real time with sound


def realtime(kiosk, clip, seconds, runs, preexec):
    """CPU-seconds to play the A/V clip in real time, headless, sound thrown away."""
    home = null_alsa_home()
    stats = Path(tempfile.mkdtemp(prefix="kiosk-bench-rt-")) / "stats.jsonl"
    x = str(clip)
    tools = [
        ("ffmpeg -re (the goal's baseline)", ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", x,
                                             "-vf", "scale=1280:800,format=bgr0", "-f", "null", "-", "-f", "alsa", "benchnull"],
         {"HOME": str(home)}, "the issue's command: decode, convert + stretch to BGR0, sound to an ALSA null PCM, -re paces"),
        ("ffmpeg -re fit twin", ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", x,
                                 "-vf", FIT_FILTER, "-f", "null", "-", "-f", "alsa", "benchnull"],
         {"HOME": str(home)}, "kiosk's picture work (fit, bilinear, bars), same sound path"),
    ]
    notes = []
    if shutil.which("mpv"):
        tools.append(("mpv", ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null", f"--vf=lavfi=[{FIT_FILTER}]", x],
                      None, "mpv's own null audio output (keeps time like a device); the lavfi chain forces the conversion"))
    if shutil.which("gst-launch-1.0"):
        tools.append(("gst", ["gst-launch-1.0", "-q", "filesrc", f"location={x}", "!", "qtdemux", "name=d",
                              "d.video_0", "!", "queue", "!", "avdec_h264", "!", "videoconvertscale", "!",
                              "video/x-raw,format=BGRx,width=1280,height=720", "!", "fakesink", "sync=true",
                              "d.audio_0", "!", "queue", "!", "avdec_aac", "!", "audioconvert", "!", "audioresample",
                              "!", "fakesink", "sync=true"],
                      None, "both branches synchronised to the pipeline clock"))
    tools.append(("kiosk", [str(kiosk), "play", x, "--display", "headless:1280x800@60", "--audio", "null", "--no-input",
                            "--stats-file", str(stats)],
                  None, "the engine as deployed, headless 60 Hz display, sound to kiosk's null sink"))
    results = {name: [] for name, *_ in tools}
    failures = {}
    for index in range(runs):
        order = tools[index % len(tools):] + tools[:index % len(tools)]
        print(f"real time: run {index + 1}/{runs} ({len(tools)} tools x {seconds} s) ...", flush=True)
        for name, argv, env, _ in order:
            code, wall, cpu, rss, _, err = run_measured(argv, env, preexec)
            if code != 0:
                failures[name] = f"exit code {code}: {err[-300:]}"
                continue
            extra = None
            if name == "kiosk":
                frames = [r for r in read_stats(stats) if r[3]]
                extra = (len(frames), frames and max(0, frames[-1][0] - frames[0][0]))
            results[name].append((wall, cpu, rss, extra))
    base = statistics.median(r[1] for r in results[tools[0][0]]) if results[tools[0][0]] else None
    section = Section("realtime", "Real time: 20 s of 1080p30 H.264 + AAC, sound to a null PCM",
                      f"CPU-seconds (user+sys) to play the {seconds} s clip once in real time, medians of {runs} runs, "
                      "interleaved. ffmpeg's sound goes to `benchnull`, an ALSA `null` PCM defined in a temporary "
                      "`~/.asoundrc` (HOME points there); ALSA's null plugin keeps no time (`aplay -D null` of 1 s of "
                      "sound returns in 15 ms), which is why kiosk and mpv use their own null outputs, which "
                      "block like a device does: without them there would be no audio clock to play against.",
                      ["tool", "wall s", "CPU s", "CPU % of a core", "peak RSS MB", "CPU x ffmpeg -re"])
    for name, argv, env, note in tools:
        runs_done = results[name]
        if not runs_done:
            section.notes.append(f"FAILED {name}: {failures.get(name, 'did not run')}")
            continue
        wall = statistics.median(r[0] for r in runs_done)
        cpu = statistics.median(r[1] for r in runs_done)
        rss = statistics.median(r[2] for r in runs_done)
        section.rows.append([name, f"{wall:.2f}", f"{cpu:.2f}", f"{100 * cpu / wall:.0f}", f"{rss:.1f}",
                             f"{cpu / base:.2f}" if base else "-"])
        section.commands.append((f"{name}: {note}", " ".join(argv).replace(x, "$AV").replace(str(stats), "STATS")))
        if name == "kiosk":
            frames, span = runs_done[-1][3]
            notes.append(f"kiosk presented {frames} frames over {span:.2f} s in its last run (stats file).")
            if base:
                ratio = cpu / base
                section.goals.append(f"{verdict(ratio <= GOAL_REALTIME)} kiosk CPU = {ratio:.2f}x ffmpeg -re "
                                     f"(goal <= {GOAL_REALTIME:.2f}x)")
    section.notes += notes + [f"FAILED {n}: {f}" for n, f in failures.items() if results[n]]
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(stats.parent, ignore_errors=True)
    return section


# ---------------------------------------------------------------------------------------------
# Time to the first frame


def first_frame(kiosk, clip, runs, preexec):
    """From spawning the process to its first picture of the A/V clip."""
    x = str(clip)
    workdir = Path(tempfile.mkdtemp(prefix="kiosk-bench-ff-"))
    script = workdir / "first.lua"
    script.write_text(MPV_FIRST_FRAME)
    stats = workdir / "stats.jsonl"

    def kiosk_first(audio):
        def measure():
            start = time.monotonic()
            code, *_ = run_measured([str(kiosk), "play", x, "--display", "headless:1280x800@60", "--audio", audio,
                                     "--no-input", "--duration", "0.5", "--stats-file", str(stats)], preexec=preexec)
            records = read_stats(stats) if code == 0 else []
            return records[0][0] - start if records else None
        return measure

    def kiosk_startup():
        code, wall, *_ = run_measured([str(kiosk), "--help"], preexec=preexec)
        return wall if code == 0 else None

    tools = [
        ("kiosk, sound to null", kiosk_first("null"),
         ".build/release/kiosk play $AV --display headless:1280x800@60 --audio null --no-input --duration 0.5 --stats-file STATS",
         "first stats line's flip time `t` minus the spawn time"),
        ("kiosk, no sound", kiosk_first("none"),
         ".build/release/kiosk play $AV --display headless:1280x800@60 --audio none --no-input --duration 0.5 --stats-file STATS",
         "the same without opening a sound output"),
        ("kiosk --help (start-up alone)", kiosk_startup, ".build/release/kiosk --help",
         "until it exits: loading the binary and its ~140 shared libraries, no media"),
        ("ffmpeg", lambda: time_to_output(["ffmpeg", "-nostdin", "-v", "error", "-i", x, "-vf", FIT_FILTER,
                                           "-frames:v", "1", "-f", "rawvideo", "-"], FRAME_BYTES["fit"], preexec=preexec),
         f"ffmpeg -nostdin -v error -i $AV -vf {FIT_FILTER} -frames:v 1 -f rawvideo -",
         "until the first converted 1280x800 frame has come out of its stdout"),
    ]
    if shutil.which("gst-launch-1.0"):
        gst = ["gst-launch-1.0", "-q", "filesrc", f"location={x}", "!", "qtdemux", "!", "avdec_h264", "!",
               "videoconvertscale", "!", "video/x-raw,format=BGRx,width=1280,height=720", "!", "fdsink", "fd=1"]
        tools.append(("gst", lambda: time_to_output(gst, FRAME_BYTES["gst"], preexec=preexec),
                      " ".join(gst).replace(x, "$AV"), "until the first converted 1280x720 frame has come out of its stdout"))
    if shutil.which("mpv"):
        mpv = ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null", f"--script={script}",
               f"--vf=lavfi=[{FIT_FILTER}]", x]
        tools.append(("mpv", lambda: time_to_output(mpv, len(b"first\n"), preexec=preexec),
                      " ".join(mpv).replace(x, "$AV").replace(str(script), "first.lua"),
                      "until a script's line on mpv's `playback-restart` event (first frame ready) reaches this script"))
    samples = {name: [] for name, *_ in tools}
    for index in range(runs):
        print(f"first frame: run {index + 1}/{runs} ...", flush=True)
        for name, measure, *_ in tools[index % len(tools):] + tools[:index % len(tools)]:
            value = measure()
            if value is not None:
                samples[name].append(value)
    section = Section("first-frame", "Time to the first frame, local 1080p file",
                      f"From spawning the process to its first picture of the A/V clip, medians of {runs} runs, "
                      "interleaved, timed by this script on CLOCK_MONOTONIC (kiosk's stats `t` is the same clock). "
                      "kiosk's number includes loading the binary, opening the file, decoding, converting and the first "
                      "flip on a headless display (the first flip waits for no refresh).",
                      ["tool", "median ms", "min ms", "max ms", "runs"])
    for name, _, command, how in tools:
        values = samples[name]
        if not values:
            section.notes.append(f"FAILED {name}: no first frame")
            continue
        section.rows.append([name, ms(statistics.median(values)), ms(min(values)), ms(max(values)), len(values)])
        section.commands.append((f"{name}: {how}", command))
    kiosk_values = samples["kiosk, sound to null"]
    if kiosk_values:
        median = statistics.median(kiosk_values)
        section.goals.append(f"{verdict(median <= GOAL_FIRST_FRAME)} kiosk first frame {ms(median)} ms "
                             f"(goal <= {GOAL_FIRST_FRAME * 1000:.0f} ms)")
    shutil.rmtree(workdir, ignore_errors=True)
    return section
