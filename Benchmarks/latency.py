"""Seek latency and seam gaps for the benchmark page (Benchmarks/run); see playback.py for the
shared pieces. Python 3 standard library only."""
import re
import shutil
import statistics
import tempfile
from pathlib import Path

from playback import (GOAL_SEEK, SEAM_SLACK, Section, ms, read_stats, run_measured, time_to_output,  # noqa: F401
                      verdict)

FPS = 30
SEAM_FRAMES = 15            # each seam clip is 0.5 s at 30 fps
MPV_SEEKS = r'''
local targets = {}
for t in string.gmatch(mp.get_opt("kiosk-bench-targets") or "", "[^/]+") do table.insert(targets, tonumber(t)) end
local index, requested, started = 0, nil, false
local function seek_next()
    index = index + 1
    if index > #targets then mp.command("quit") return end
    requested = mp.get_time()
    mp.commandv("seek", tostring(targets[index]), "absolute+exact")
end
mp.register_event("playback-restart", function()
    if requested then
        io.stdout:write(string.format("%.6f\n", mp.get_time() - requested)); io.stdout:flush()
        requested = nil
        mp.add_timeout(0.5, seek_next)
    elseif not started then
        started = true
        mp.add_timeout(0.5, seek_next)
    end
end)
'''


def seek_targets(count, duration):
    """The positions kiosk's `bench --seek` visits (SeekBench.swift), in the same order."""
    return [round(((i * 7 + 3) % count + 0.5) / count * (duration - 1.0), 3) for i in range(count)]


def summary(values):
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return [ms(statistics.median(values)), ms(p90), ms(values[-1]), len(values)]


def seeks(kiosk, clips, seconds, count, preexec):
    """`clips`: (label, path) pairs, e.g. the clip with x264's keyframe interval and one with a
    keyframe every second: an exact seek decodes from the keyframe before the target."""
    section = Section("seek", "Seek latency, seek request to the first frame at the new position",
                      f"{count} seeks to positions spread over the {seconds} s A/V clip in a jumping order (forward "
                      "and back), each followed by half a second of playing, sound to a null output. Both numbers are the "
                      "players' own timing on their own monotonic clocks. kiosk: `kiosk bench --seek` calls "
                      "QueuePlayer.seek(to:) and takes the flip time of the first frame of the new position from its "
                      "stats (a 60 Hz headless display: up to 16.7 ms of that is waiting for the refresh). mpv: a Lua "
                      "script issues `seek T absolute+exact` and takes mpv's `playback-restart` event (the new "
                      "position's first frame is ready). Both seek exactly: they decode from the keyframe before the "
                      "target, so the keyframe interval decides most of the latency. x264's default puts keyframes "
                      "up to 250 frames (8.3 s) apart; the second clip has one every second (`-g 30`).",
                      ["tool", "clip", "median ms", "p90 ms", "max ms", "seeks"])
    workdir = Path(tempfile.mkdtemp(prefix="kiosk-bench-seek-"))
    script = workdir / "seeks.lua"
    script.write_text(MPV_SEEKS)
    targets = "/".join(str(t) for t in seek_targets(count, seconds))   # script-opts splits on commas
    for label, clip in clips:
        x = str(clip)
        print(f"seeks: kiosk, {label} ...", flush=True)
        argv = [str(kiosk), "bench", x, "--seek", str(count), "--audio", "null"]
        code, _, _, _, out, err = run_measured(argv, preexec=preexec)
        latencies = [float(m.group(1)) / 1000 for m in re.finditer(r"^seek \d+ to [\d.]+ s: ([\d.]+) ms$", out, re.M)]
        if code == 0 and latencies:
            section.rows.append(["kiosk", label] + summary(latencies))
            median = statistics.median(latencies)
            section.goals.append(f"{verdict(median <= GOAL_SEEK)} kiosk, {label}: median seek {ms(median)} ms (goal <= "
                                 f"{GOAL_SEEK * 1000:.0f} ms); {sum(v > GOAL_SEEK for v in latencies)} of "
                                 f"{len(latencies)} seeks over {GOAL_SEEK * 1000:.0f} ms")
        else:
            section.notes.append(f"FAILED kiosk, {label}: exit code {code}: {(err or out)[-300:]}")
        section.commands.append((f"kiosk, {label}: the engine's own timing", " ".join(argv).replace(x, "CLIP")))
        if not shutil.which("mpv"):
            continue
        print(f"seeks: mpv, {label} ...", flush=True)
        mpv = ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null", "--loop-file=inf", f"--script={script}",
               f"--script-opts=kiosk-bench-targets={targets}", "--vf=lavfi=[scale=1280:720:flags=bilinear,format=bgr0]", x]
        code, _, _, _, out, err = run_measured(mpv, preexec=preexec)
        values = [float(line) for line in out.split() if re.fullmatch(r"[\d.]+", line)]
        if values:
            section.rows.append(["mpv", label] + summary(values))
        else:
            section.notes.append(f"FAILED mpv, {label}: exit code {code}: {err[-300:]}")
        section.commands.append((f"mpv, {label}: mpv's own timing", " ".join(mpv).replace(x, "CLIP")
                                 .replace(str(script), "seeks.lua").replace(targets, "T1/T2/...")))
    shutil.rmtree(workdir, ignore_errors=True)
    section.notes.append("ffmpeg has no seeking while it plays; GStreamer's gst-launch cannot seek at all (that takes "
                         "application code): neither is compared.")
    return section


def seam_intervals(flips, frames_per_item, items):
    """Given flip times in order, the intervals across item boundaries, if every item showed
    exactly `frames_per_item` frames; else None."""
    if len(flips) < frames_per_item * items:
        return None
    return [flips[k * frames_per_item] - flips[k * frames_per_item - 1] for k in range(1, items)]


def seams(kiosk, clips, transitions, preexec):
    a, b = (str(c) for c in clips)
    period = 1 / FPS
    limit = period + SEAM_SLACK
    section = Section("seams", f"Seams: {transitions} transitions between two 1080p30 clips",
                      f"A playlist of two different 0.5 s 1080p30 H.264 clips (15 frames each, no sound) looped "
                      f"for {transitions} transitions. The interval from the last frame of one clip to the first of "
                      f"the next should be one frame period, {period * 1000:.1f} ms; the goal allows "
                      f"{limit * 1000:.1f} ms. kiosk: flip times from its stats file (a 60 Hz headless display: flips "
                      "at least 16.7 ms apart, not locked to a refresh grid). mpv: `--dump-stats` flip times, mpv's own timing with its "
                      "null video output (no refresh to wait for).",
                      ["tool", "seams", "median seam ms", "max seam ms", f"seams > {limit * 1000:.1f} ms",
                       "max other interval ms"])
    workdir = Path(tempfile.mkdtemp(prefix="kiosk-bench-seams-"))
    stats = workdir / "stats.jsonl"
    duration = transitions * 0.5 + 1.5
    argv = [str(kiosk), "play", a, b, "--loop", "--display", "headless:1280x800@60", "--audio", "none", "--no-input",
            "--duration", f"{duration:g}", "--stats-file", str(stats)]
    print(f"seams: kiosk ({duration:g} s) ...", flush=True)
    code, _, _, _, _, err = run_measured(argv, preexec=preexec)
    records = [r for r in read_stats(stats) if r[3]] if code == 0 else []
    boundaries = [i for i in range(1, len(records)) if records[i][1] != records[i - 1][1]][:transitions]
    if boundaries:
        gaps = [records[i][0] - records[i - 1][0] for i in boundaries]
        others = [records[i][0] - records[i - 1][0] for i in range(1, boundaries[-1] + 1) if i not in set(boundaries)]
        over = sum(g > limit for g in gaps)
        section.rows.append(["kiosk", len(gaps), ms(statistics.median(gaps)), ms(max(gaps)), over, ms(max(others))])
        section.goals.append(f"{verdict(over == 0 and len(gaps) == transitions)} kiosk: {over} of {len(gaps)} seams "
                             f"above {limit * 1000:.1f} ms (goal: none), longest {ms(max(gaps))} ms")
    else:
        section.notes.append(f"FAILED kiosk: exit code {code}: {err[-300:]}")
    section.commands.append(("kiosk", " ".join(argv).replace(a, "A").replace(b, "B").replace(str(stats), "STATS")))
    if shutil.which("mpv"):
        dump = workdir / "mpv-stats.txt"
        loops = (transitions + 2) // 2 + 1
        mpv = ["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null", f"--loop-playlist={loops}",
               f"--dump-stats={dump}", a, b]
        print(f"seams: mpv ({loops * 2} clips) ...", flush=True)
        code, *_ = run_measured(mpv, preexec=preexec)
        flips = []
        if code == 0 and dump.exists():
            flips = [int(line.split()[0]) / 1e6 for line in dump.read_text().splitlines()
                     if line.endswith(" start video-flip")]
        gaps = seam_intervals(flips, SEAM_FRAMES, loops * 2)
        if gaps:
            gaps = gaps[:transitions]
            seam_index = {k * SEAM_FRAMES for k in range(1, loops * 2)}
            others = [flips[i] - flips[i - 1] for i in range(1, len(flips)) if i not in seam_index]
            over = sum(g > limit for g in gaps)
            section.rows.append(["mpv", len(gaps), ms(statistics.median(gaps)), ms(max(gaps)), over, ms(max(others))])
        else:
            section.notes.append(f"mpv: not measured: {len(flips)} flips for {loops * 2} clips of {SEAM_FRAMES} frames "
                                 "(a dropped or repeated frame makes the seams impossible to place)")
        section.commands.append(("mpv", " ".join(mpv).replace(a, "A").replace(b, "B").replace(str(dump), "DUMP")))
    section.notes.append("GStreamer is not compared: gst-launch has no playlist. Gapless playlists in GStreamer are "
                         "playbin's `about-to-finish` signal, which needs application code (python3-gi is not installed "
                         "here); a `concat` pipeline would build every item's decoder up front, which is not how a "
                         "GStreamer player plays a playlist.")
    shutil.rmtree(workdir, ignore_errors=True)
    return section
