"""Resume after a power loss and proof of play (issue 15), on the host: a headless `kiosk run`
(320x240, no sound) on a playlist of clips generated here with ffmpeg.

Resume: kiosk is killed with SIGKILL (a power cut, as far as its files can tell) at random
moments, measured in playback progress from its --stats-file, not in wall time; started again
it must show the same item within a few seconds of where the stats file last saw it, from its
first frame on (the item is opened at the saved place, never shown from its start). A torn
state file is ignored with one line and play starts from the first item.

Proof of play: a user's `next`, a natural end and a SIGTERM give one JSON line each, and
`kiosk report` reads them; an unwritable log path and state directory are one line each while
frames keep coming."""
import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
CLIP_SECONDS = 5
CLIPS = ("a", "b", "c")
LOOP_SECONDS = CLIP_SECONDS * len(CLIPS)
# kiosk saves its place this often (ResumeKeeper.interval): a restart may go back this far.
SAVE_INTERVAL = 2.0
# Issue 34: the first frame after a restart at most 3 s behind where the stats file last saw it
# (the save interval and the timer's lateness on a loaded host), or 1.5 s ahead.
MOST_BEHIND = 3.0
# Deadlines for a hang, never for a speed.
START_TIMEOUT = 30
EVENT_TIMEOUT = 30


def make_clip(path: Path):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y",
                    "-f", "lavfi", "-i", f"testsrc2=size=320x240:rate=25:duration={CLIP_SECONDS}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:duration={CLIP_SECONDS}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                    str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("resume-clips")
    return [make_clip(directory / f"{name}.mp4") for name in CLIPS]


def write_config(directory: Path, clips, extra: str) -> Path:
    config = directory / "kiosk.conf"
    items = ", ".join(str(clip) for clip in clips)
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"{extra}items: [{items}]\n")
    return config


class Run:
    """One `kiosk run`: its stats file, its log (stderr in a file: kiosk never blocks on a
    full pipe) and its control socket."""

    def __init__(self, directory: Path, config: Path, state: Path, name: str):
        self.stats = directory / f"stats-{name}.jsonl"
        self.log = directory / f"log-{name}.txt"
        self.socket = directory / f"control-{name}.sock"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(KIOSK), "run", "--config", str(config), "--display", "headless:320x240", "--audio", "none",
                 "--state-dir", str(state), "--stats-file", str(self.stats), "--control-socket", str(self.socket),
                 "--duration", "600"], stderr=log)
        if not wait_until(lambda: self.socket.exists() and self.frames(), timeout=START_TIMEOUT):
            self.process.kill()
            pytest.fail(f"kiosk did not start: {self.log.read_text()}")

    def frames(self):
        """Video frames presented so far (whole lines only: a kill may cut the last one)."""
        if not self.stats.exists():
            return []
        lines = self.stats.read_text().splitlines()
        return [record for record in (json.loads(line) for line in lines if line.endswith("}"))
                if record.get("video") and record["item"] >= 0]

    def stop(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)
        return self.process.wait(timeout=20)

    def log_lines(self, word):
        return [line for line in self.log.read_text().splitlines() if word in line]


def timeline(frame):
    """Seconds into one pass of the playlist."""
    return frame["item"] * CLIP_SECONDS + frame["pts"]


def behind(killed, resumed):
    """How far `resumed` is behind `killed` on the looping timeline (negative: ahead)."""
    gap = (killed - resumed) % LOOP_SECONDS
    return gap - LOOP_SECONDS if gap > LOOP_SECONDS / 2 else gap


def ahead(current, start):
    """How far playback moved from `start` to `current`, looping (a frame a hair before the
    start counts as no progress)."""
    moved = (current - start) % LOOP_SECONDS
    return 0 if moved > LOOP_SECONDS - 1 else moved


def resumed_frame(frames):
    """Where a resumed run's picture settled: the first frame after its seek (a generation
    above 0), or, when there was nothing to seek (saved at 0), the first of the item it plays."""
    after_seek = [frame for frame in frames if frame["gen"] > 0]
    if after_seek:
        return after_seek[0]
    return next(frame for frame in frames if frame["item"] == frames[-1]["item"])


def test_resumes_where_a_sigkill_left_it(tmp_path, clips):
    seed = int(os.environ.get("RESUME_SEED", time.time_ns() % 1_000_000))
    rng = random.Random(seed)
    state = tmp_path / "state"
    state.mkdir()
    config = write_config(tmp_path, clips, "playback: {resume: position}\n")
    killed = None
    # RESUME_ROUNDS=50 for the long run issue 34 asks for (by hand; CI runs 4).
    for round_number in range(int(os.environ.get("RESUME_ROUNDS", "4"))):
        saved_position = json.loads((state / "resume.json").read_text())["position"] if killed is not None else 0
        run = Run(tmp_path, config, state, f"round{round_number}")
        if killed is not None:
            # Past the seek: a few frames after the first one at the resumed item.
            assert wait_until(lambda: len(run.frames()) > 10 and any(f["gen"] > 0 for f in run.frames())
                              or len(run.frames()) > 60, timeout=EVENT_TIMEOUT)
            resumed = resumed_frame(run.frames())
            gap = behind(timeline(killed), timeline(resumed))
            # The first frame on screen is already at the saved place (issue 34): the item was
            # opened there, not shown from its start and then seeked.
            first = run.frames()[0]
            first_gap = behind(timeline(killed), timeline(first))
            assert -1.5 <= first_gap <= MOST_BEHIND, (
                f"seed {seed}, round {round_number}: killed at item {killed['item']} {killed['pts']:.2f} s, "
                f"the first frame after the restart was item {first['item']} {first['pts']:.2f} s")
            if saved_position > SAVE_INTERVAL:
                assert first["pts"] > 0.5, f"the item's start flashed up: {first}, saved at {saved_position} s"
            # The socket says the same item as the stats file.
            client = ControlClient(run.socket)
            assert client.ok("get", "item") in (resumed["item"], (resumed["item"] + 1) % len(CLIPS))
            client.close()
            print(f"round {round_number}: killed at item {killed['item']} {killed['pts']:.2f} s, "
                  f"resumed at item {resumed['item']} {resumed['pts']:.2f} s, {gap:.2f} s behind")
            # Behind by at most the save interval (plus a frame's and a timer's lateness); a
            # little ahead is possible, since kiosk saves its clock's position and a starved
            # presenter's last frame (what the stats file shows) lags that clock.
            # kiosk saves a new item at once: the same item, unless the cut came within a
            # moment of its first frame.
            assert resumed["item"] == killed["item"] or killed["pts"] < 0.5, (
                f"seed {seed}, round {round_number}: killed at item {killed['item']} {killed['pts']:.2f} s, "
                f"resumed at item {resumed['item']}")
            assert -1.5 <= gap <= MOST_BEHIND, (
                f"seed {seed}, round {round_number}: killed at item {killed['item']} {killed['pts']:.2f} s, "
                f"resumed at item {resumed['item']} {resumed['pts']:.2f} s ({gap:.2f} s behind)")
            assert len(run.log_lines("resume: item")) == 1
        # A random moment in playback progress (not wall time): at least one save has happened
        # since the start settled, since progress cannot outrun the clock.
        progress = rng.uniform(SAVE_INTERVAL + 1, 11)
        start = timeline(resumed_frame(run.frames()) if killed is not None else run.frames()[0])
        assert wait_until(lambda: ahead(timeline(run.frames()[-1]), start) >= progress,
                          timeout=EVENT_TIMEOUT, interval=0.02)
        run.process.kill()
        run.process.wait(timeout=20)
        killed = run.frames()[-1]
        assert json.loads((state / "resume.json").read_text())["format"] == "kiosk-resume"


def test_a_torn_state_file_is_ignored_with_one_line(tmp_path, clips):
    state = tmp_path / "state"
    state.mkdir()
    config = write_config(tmp_path, clips, "playback: {resume: position}\n")
    whole = json.dumps({"config": str(config), "format": "kiosk-resume", "index": 2, "path": str(clips[2]),
                        "position": 3.5, "saved": "2026-11-23T21:00:00.000+00:00", "version": 1})
    (state / "resume.json").write_text(whole[:len(whole) // 2])   # the power went mid-write
    run = Run(tmp_path, config, state, "torn")
    assert wait_until(lambda: len(run.frames()) > 25, timeout=EVENT_TIMEOUT)
    frames = run.frames()
    assert frames[0]["item"] == 0 and frames[0]["pts"] < 0.1
    assert all(frame["gen"] == 0 for frame in frames[:25]), "a seek happened: the torn file was used"
    assert run.stop() == 0
    lines = run.log_lines("resume:")
    assert len(lines) == 1 and "ignoring" in lines[0] and "not whole JSON" in lines[0], lines
    # The clean stop saved a whole file again, at the item the last frame showed (or the one
    # just opened after it).
    saved = json.loads((state / "resume.json").read_text())
    last = run.frames()[-1]["item"]
    assert saved["index"] in (last, (last + 1) % len(CLIPS)) and saved["path"] == str(clips[saved["index"]])


def test_proof_of_play_lines_and_report(tmp_path, clips):
    plays = tmp_path / "plays.jsonl"
    config = write_config(tmp_path, clips, f"logging: {{proof_of_play: {plays}}}\n")
    run = Run(tmp_path, config, tmp_path, "plays")
    client = ControlClient(run.socket)
    # Item 0 plays to its end, item 1 is cut short by `next`, item 2 by the SIGTERM.
    assert wait_until(lambda: client.ok("get", "item") == 1, timeout=EVENT_TIMEOUT)
    assert wait_until(lambda: (client.ok("get", "time") or 0) > 1, timeout=EVENT_TIMEOUT)
    client.ok("next")
    # A play ends when the next item's first frame replaces its picture (the cursor moves
    # before that: `get item` says 2 while item 2 is still being opened).
    assert wait_until(lambda: any(f["item"] == 2 for f in run.frames()), timeout=EVENT_TIMEOUT)
    client.close()
    assert run.stop() == 0
    records = [json.loads(line) for line in plays.read_text().splitlines()]
    assert [(r["item"], r["outcome"], r.get("reason")) for r in records] == [
        (0, "completed", None), (1, "interrupted", "next"), (2, "interrupted", "kiosk stopping")]
    assert records[0]["path"] == str(clips[0]) and records[0]["title"] == "a.mp4"
    # kiosk.conf's items are the default playlist, played in the loop (not an insert or override).
    assert all((r["playlist"], r["played_as"]) == ("default", "loop") and "by" not in r for r in records), records
    assert abs(records[0]["seconds"] - CLIP_SECONDS) < 1.0
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", r[key])
               for r in records for key in ("start", "end"))
    report = subprocess.run([str(KIOSK), "report", str(plays), "--csv"], capture_output=True, text=True, timeout=20)
    assert report.returncode == 0, report.stderr
    rows = report.stdout.splitlines()
    assert rows[0] == "day,item,path,title,plays,completed,seconds,playlist,played_as,by" and len(rows) == 4


def test_unwritable_paths_are_one_line_each_and_play_goes_on(tmp_path, clips):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a directory should be\n")
    config = write_config(tmp_path, clips, "playback: {resume: item}\n"
                          f"logging: {{proof_of_play: {blocked}/plays.jsonl}}\n")
    run = Run(tmp_path, config, blocked, "blocked")
    before = len(run.frames())
    # Past the first item change (a play to record) and two saves.
    assert wait_until(lambda: any(f["item"] == 1 for f in run.frames()), timeout=EVENT_TIMEOUT)
    assert wait_until(lambda: len(run.frames()) > before + 100, timeout=EVENT_TIMEOUT)
    assert run.stop() == 0
    proof = run.log_lines("proof of play:")
    resume_errors = [line for line in run.log_lines("resume:") if "not saved" in line]
    assert len(proof) == 1 and f"{blocked}/plays.jsonl" in proof[0], proof
    assert len(resume_errors) == 1 and f"{blocked}/resume.json" in resume_errors[0], resume_errors


def test_proof_of_play_rotates_and_stays_bounded(tmp_path):
    """Stills of a tenth of a second: dozens of plays a second pass the smallest limit (4K)
    many times. The files stay under the limit (plus one line) and never more than four."""
    stills = []
    for name, colour in (("red", "red"), ("green", "green"), ("blue", "blue")):
        path = tmp_path / f"{name}.png"
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"color=c={colour}:size=64x48", "-frames:v", "1", str(path)], check=True)
        stills.append(path)
    plays = tmp_path / "plays.jsonl"
    config = tmp_path / "kiosk.conf"
    items = "\n".join(f"  - {{path: {still}, duration: 0.1}}" for still in stills)
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"logging: {{proof_of_play: {plays}, proof_of_play_max: 4K}}\nitems:\n{items}\n")
    run = Run(tmp_path, config, tmp_path, "rotate")
    assert wait_until(lambda: Path(f"{plays}.3").exists() and plays.exists() and plays.stat().st_size > 0,
                      timeout=120), "three rotations did not happen"
    assert run.stop() == 0
    files = sorted(tmp_path.glob("plays.jsonl*"))
    assert [f.name for f in files] == ["plays.jsonl", "plays.jsonl.1", "plays.jsonl.2", "plays.jsonl.3"]
    longest = max(len(line) + 1 for f in files for line in f.read_text().splitlines())
    for f in files:
        assert f.stat().st_size <= 4096 + longest, f
        records = [json.loads(line) for line in f.read_text().splitlines()]   # whole lines only
        assert records
    # The rotated files follow each other: .3 holds the oldest plays, the current file the newest.
    starts = [json.loads(f.read_text().splitlines()[0])["start"] for f in reversed(files)]
    assert starts == sorted(starts)
