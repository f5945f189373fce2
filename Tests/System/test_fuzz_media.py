"""Damaged files never freeze the screen (issue 12). Host only, headless, no VM.

- A fixed-seed set of 40 mutated clips (fuzz_media.py): each played alone exits 0 or 1, never a
  signal, never a hang (no progress in the stats trace for clip + 5 s + slack); then 24 of them
  (two of each kind) in a looping playlist between two good clips, which come back every pass.
- The stall guard: a local "file" whose data stops while its container claims more (a
  terminal fed 12 s of a 20 s MPEG-TS, then nothing: what a dead network mount looks like to
  a reader) is ended after `--stall-timeout` with one log line naming it and an `item_failed`
  event on the control socket, and the next item plays.
The watchdog starving while the picture is frozen is `ServiceSupervisorTests` (swift test).
"""
import json
import os
import re
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_media  # noqa: E402
from control_client import ControlClient  # noqa: E402

KIOSK = fuzz_media.KIOSK

pytestmark = pytest.mark.skipif(not KIOSK.exists(), reason="needs a kiosk build (swift build)")


def test_forty_damaged_files_alone_and_in_a_looping_playlist(tmp_path):
    report = tmp_path / "report.json"
    status = fuzz_media.main(["--count", "40", "--seed", "12", "--jobs", "4", "--no-mpv", "--work", str(tmp_path),
                              # Two of each kind of clip in the loop keeps two passes near a minute.
                              "--playlist-files", "24", "--playlist-passes", "2", "--json", str(report)])
    result = json.loads(report.read_text())
    assert result["kiosk"]["hung"] == 0, result["failures"]
    assert result["kiosk"]["crashed"] == 0, result["failures"]
    # Damage that leaves something playable must play: a fuzzer whose every file is refused
    # at once would prove nothing about freezes.
    assert result["kiosk"]["played"] >= 10, result["kiosk"]
    assert result["playlist"]["passes"] >= 2, result["playlist"]
    assert result["playlist"]["problems"] == [], result["playlist"]
    assert status == 0


def make_transport_stream(path: Path, seconds: int):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size=160x120:rate=25:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
                    "-g", "25", "-pix_fmt", "yuv420p", "-f", "mpegts", str(path)], check=True)


class StalledSource:
    """A terminal in raw mode that gives the first `fraction` of `data`, then stays open and
    silent: a reader blocks as on a dead network mount."""

    def __init__(self, data: bytes, fraction: float):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        part = memoryview(data[:int(len(data) * fraction)])
        threading.Thread(target=self._feed, args=(part,), daemon=True).start()

    def _feed(self, part):
        try:
            while part:
                written = os.write(self.master, part[:4096])
                part = part[written:]
        except OSError:
            pass   # closed at the end of the test

    def close(self):
        os.close(self.master)
        os.close(self.slave)


def test_a_file_whose_data_stops_is_ended_by_the_stall_guard(tmp_path):
    clip = tmp_path / "twenty-seconds.ts"
    make_transport_stream(clip, 20)
    good = tmp_path / "good.png"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=1",
                    "-frames:v", "1", str(good)], check=True)
    source = StalledSource(clip.read_bytes(), 0.6)
    socket_path = tmp_path / "control.sock"
    stats = tmp_path / "stats.jsonl"
    process = subprocess.Popen([str(KIOSK), "play", source.path, str(good), "--image-duration", "1",
                                "--display", "headless:160x120", "--audio", "null", "--no-input",
                                "--stall-timeout", "2", "--stats-file", str(stats),
                                "--control-socket", str(socket_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not socket_path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        client = ControlClient(socket_path)
        failed = client.wait_for_event(lambda event: event.get("event") == "item_failed", timeout=120)
        assert failed is not None, "no item_failed event"
        assert failed["item"] == 0
        # The stall's length is measured (%.1f) when the loop next looks: 2.0 s, or a little more
        # on a busy host (the limit is 2 s).
        assert re.match(r"stalled: no new frame and no sound for 2\.\d s while playing", failed["reason"]), failed
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        source.close()
    lines = [line for line in output.splitlines() if source.path in line]
    assert len(lines) == 1, output
    assert "stalled" in lines[0]
    records = [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")]
    played = [record["pts"] for record in records if record["item"] == 0]
    # It played what came (about 12 s of 20) before its data stopped, then the next item came.
    assert max(played) > 5, played[-3:]
    assert any(record["item"] == 1 for record in records), "the item after the stalled one never played"
    assert process.returncode == 0
