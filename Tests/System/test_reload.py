"""Live reload of kiosk.conf (issue 5), on the host, headless: one `kiosk run` whose file is
edited while it plays, the way people and tools edit files:

1. renamed over (an editor's save, `mv`): a new playlist [C, A, B] while A plays -> A plays on
   without a restart of its frames (its pts keeps counting, under its new index 1);
2. written in place with errors -> each error is logged with file:line:column and the old
   playlist plays on;
3. written in place again, valid: a fourth item and volume 25 -> item 3 plays, and the
   recorded sound is a quarter as loud;
4. saved again with the same bytes, and touched -> nothing happens, nothing is logged;
5. SIGHUP (the same reload path) -> one line: nothing to change.

All of it in one process (the same PID throughout, exit 0 at its --duration). A second, shorter
run changes the playback section while a clip plays: loop, gravity and rate apply at once. The stats
file's `t` is CLOCK_MONOTONIC, as Python's time.monotonic() on Linux, so edits and frames
share one timeline.
"""
import array
import json
import os
import re
import signal
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screen_geometry import rgb_rows  # noqa: E402 (the bed's PNG reader)

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

CLIPS = {"a.mp4": 3.0, "b.mp4": 1.0, "c.mp4": 1.0, "d.mp4": 1.0}
RUN_SECONDS = 16
INVALID = """items:
  - a.mp4
  - {path: b.mp4, colour: red}
  - {path: c.mp4, volume: 200}
"""


def make_clip(path: Path, seconds: float):
    # Each clip with a steady sine, so the volume is measured on every item alike.
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=160x120:rate=25:duration={seconds}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(path)],
                   check=True)


def config(items, volume=100):
    return (f"audio: {{volume: {volume}}}\ninput: {{enabled: false}}\nplayback: {{loop: playlist}}\n"
            "items:\n" + "".join(f"  - {item}\n" for item in items))


def read_stats(path: Path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def edited_run(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("reload")
    for name, seconds in CLIPS.items():
        make_clip(directory / name, seconds)
    conf, stats, recording = directory / "kiosk.conf", directory / "stats.jsonl", directory / "sound.wav"
    conf.write_text(config(["a.mp4", "b.mp4"]))
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:320x240",
                                "--audio", f"file:{recording}", "--stats-file", str(stats),
                                "--duration", str(RUN_SECONDS)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    edits = {}
    try:
        # 1. Renamed over while A plays (half a second in).
        wait_for(lambda: any(r["item"] == 0 and r["pts"] >= 0.5 for r in read_stats(stats)), 20, "A to play")
        temporary = directory / ".kiosk.conf.swp"
        temporary.write_text(config(["c.mp4", "a.mp4", "b.mp4"]))
        assert process.poll() is None
        edits["renamed"] = time.monotonic()
        os.replace(temporary, conf)
        time.sleep(2.5)
        # 2. Written in place, with errors.
        assert process.poll() is None
        edits["invalid"] = time.monotonic()
        with open(conf, "w") as file:
            file.write(INVALID)
        time.sleep(2.5)
        # 3. Written in place, valid: a fourth item, quieter.
        assert process.poll() is None
        edits["in place"] = time.monotonic()
        with open(conf, "w") as file:
            file.write(config(["c.mp4", "a.mp4", "b.mp4", "d.mp4"], volume=25))
        time.sleep(1)
        # 4. Saved again unchanged, then touched: nothing to do, nothing logged.
        conf.write_text(conf.read_text())
        os.utime(conf)
        time.sleep(1)
        # 5. SIGHUP: the same path; the file is as it was, so it says there is nothing to do.
        process.send_signal(signal.SIGHUP)
        output, _ = process.communicate(timeout=RUN_SECONDS + 30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return {"rc": process.returncode, "log": output, "stats": read_stats(stats), "edits": edits,
            "recording": recording, "conf": conf}


def between(records, start, end=float("inf")):
    return [r for r in records if start <= r["t"] < end]


def test_one_process_throughout(edited_run):
    assert edited_run["rc"] == 0, edited_run["log"]
    # Four saves, two valid changes: two reloads, each logged once (a save's several inotify
    # events make one reload; a save without a change makes none).
    assert len(re.findall(r"kiosk\.conf: reloaded:", edited_run["log"])) == 2, edited_run["log"]
    assert len(re.findall(r"kiosk\.conf: reloaded, nothing to change", edited_run["log"])) == 1, edited_run["log"]
    assert all(r["video"] for r in edited_run["stats"])


def test_renamed_over_keeps_the_current_item_playing(edited_run):
    records, renamed = edited_run["stats"], edited_run["edits"]["renamed"]
    before = between(records, 0, renamed)
    assert before[-1]["item"] == 0, "A was playing when the file was replaced"
    after = between(records, renamed, edited_run["edits"]["invalid"])
    moved = [r for r in after if r["item"] == 1]
    assert moved and moved[0]["t"] - renamed < 2, "A did not appear under its new index 1 within 2 s"
    # A played on: no frame of it started over, and it went on under index 1 until its end.
    a_frames = [r for r in before + after if r["item"] in (0, 1) and r["t"] < moved[-1]["t"] + 0.001]
    a_frames = [r for r in a_frames if not (r["item"] == 0 and r["t"] >= renamed)]
    assert all(b["pts"] > a["pts"] for a, b in zip(a_frames, a_frames[1:])), "A's frames went back"
    assert moved[-1]["pts"] > CLIPS["a.mp4"] - 0.2, "A did not play to its end"
    # Then the new playlist: B (index 2), C (index 0).
    later = between(records, moved[-1]["t"] + 0.001, edited_run["edits"]["in place"])
    assert {2, 0} <= {r["item"] for r in later}


def test_invalid_edit_is_rejected_with_positions(edited_run):
    log, conf = edited_run["log"], str(edited_run["conf"])
    assert "not reloaded, the old configuration keeps playing" in log
    assert log.count("not reloaded") == 1, "the rejected file was read more than once"
    assert f"{conf}:3:19: unknown key 'colour' in item 2" in log, log
    assert f"{conf}:4:27: 'volume' in item 3 is 200" in log, log
    # The old playlist [C, A, B] played on: frames kept coming, from its three items only.
    during = between(edited_run["stats"], edited_run["edits"]["invalid"] + 0.5, edited_run["edits"]["in place"])
    assert len(during) >= 25, f"only {len(during)} frames in the 2 s after the rejected edit"
    assert {r["item"] for r in during} <= {0, 1, 2}


def test_in_place_edit_adds_an_item(edited_run):
    after = between(edited_run["stats"], edited_run["edits"]["in place"])
    # At most one pass of [C, A, B] (5 s) comes before the new item D.
    d = [r for r in after if r["item"] == 3]
    assert d, f"item 3 never played; items after the edit: {sorted({r['item'] for r in after})}"
    assert d[0]["t"] - edited_run["edits"]["in place"] < 7


def test_volume_applies_live(edited_run):
    """The recorded sine is as loud as the clips until the edit, then a quarter of that."""
    with wave.open(str(edited_run["recording"])) as w:
        rate, channels = w.getframerate(), w.getnchannels()
        samples = array.array("h", w.readframes(w.getnframes()))[::channels]
    window = rate // 20
    peaks = [max(abs(s) for s in samples[i:i + window]) for i in range(0, len(samples) - window, window)]
    loud = [p for p in peaks if p > 64]   # leave out the silence around seams and the ends
    first, last = sorted(loud[:20]), sorted(loud[-20:])
    before, after = first[len(first) // 2], last[len(last) // 2]
    print(f"sine peak before the edit {before}, after {after} (ratio {after / before:.3f}, expected 0.25)")
    assert 0.18 < after / before < 0.32, f"peak {before} -> {after}"


PLAYBACK_V1 = """display: {output: headless, headless_size: 320x240}
audio: {device: none}
input: {enabled: false}
playback: {loop: playlist, gravity: fit, rate: 1}
items: [red.mp4, blue.mp4]
"""
PLAYBACK_V2 = (PLAYBACK_V1.replace("{loop: playlist, gravity: fit, rate: 1}", "{loop: item, gravity: fill, rate: 2}")
               .replace("headless_size: 320x240}", "headless_size: 320x240, rotation: 180}"))


@pytest.fixture(scope="module")
def playback_reload(tmp_path_factory):
    """A second run: the playback section changes while red plays (loop playlist -> item,
    gravity fit -> fill, rate 1 -> 2), and the display section too (rotation 180), which waits
    for a restart. The clips are 2:1, the screen 4:3: fit shows black bars above and below,
    fill none."""
    directory = tmp_path_factory.mktemp("reload-playback")
    for colour in ("red", "blue"):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"color=c={colour}:s=160x80:r=25:d=2", "-c:v", "libx264", "-preset", "ultrafast",
                        "-pix_fmt", "yuv420p", str(directory / f"{colour}.mp4")], check=True)
    conf, stats, shots = directory / "kiosk.conf", directory / "stats.jsonl", directory / "shots"
    conf.write_text(PLAYBACK_V1)
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--stats-file", str(stats), "--snapshots", str(shots),
                                "--snapshot-every", "0.2", "--duration", "8"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(lambda: any(r["item"] == 0 and r["pts"] >= 0.5 for r in read_stats(stats)), 20, "red to play")
        edited = time.monotonic()
        temporary = directory / "kiosk.conf.new"
        temporary.write_text(PLAYBACK_V2)
        os.replace(temporary, conf)
        output, _ = process.communicate(timeout=40)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return {"rc": process.returncode, "log": output, "stats": read_stats(stats), "edited": edited,
            "shots": sorted(shots.glob("shot-*.png"))}


def test_playback_section_applies_live(playback_reload):
    run = playback_reload
    assert run["rc"] == 0, run["log"]
    assert "reloaded: playback (loop, gravity, rate)" in run["log"], run["log"]
    assert run["log"].count("display section changed: applies on restart") == 1, run["log"]
    after = between(run["stats"], run["edited"] + 1)
    # loop: item -> red (item 0) repeats; blue never comes.
    assert after and {r["item"] for r in after} == {0}, sorted({r["item"] for r in after})
    # rate 2: media time runs twice as fast as the wall clock.
    pairs = [(a, b) for a, b in zip(after, after[1:]) if b["pts"] > a["pts"]]
    speed = sum(b["pts"] - a["pts"] for a, b in pairs) / sum(b["t"] - a["t"] for a, b in pairs)
    print(f"media seconds per second after the reload: {speed:.2f} (rate 2)")
    assert 1.6 < speed < 2.4
    # gravity: the first screenshot (fit) has black bars, the last (fill) has none.
    first, last = rgb_rows(run["shots"][0])[2], rgb_rows(run["shots"][-1])[2]
    assert max(first[0]) < 40, "fit: the top row should be a black bar"
    assert min(last[0][0::3]) > 200 and max(last[0][1::3]) < 60, "fill: the top row should be red"
