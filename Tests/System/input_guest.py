"""The guest's side of the bed tests that drive synthetic input devices (test_input, test_overlay,
test_triggers; test_gpio_triggers takes the clip): the start and end of their guest scripts
around input_driver.py, the host's Session with it, and the clips they play."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402

CLIP_SECONDS = 30
GUEST_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

DRIVER = Path(__file__).resolve().parent / "input_driver.py"

# The start of every guest script that drives synthetic devices (test_overlay.py too): the
# driver makes them, and kiosk starts once they exist. kiosk is started with
# `--control-socket $SOCKET`; watch_events then writes its events to events.jsonl.
DRIVER_PREAMBLE = r'''
K=@KIOSK@
SOCKET=/tmp/kiosk.sock
await() {  # FILE: wait for it, however long (the host's deadlines and bed.wait are the backstop)
    while [ ! -e "$1" ]; do sleep 0.1; done
}
watch_events() {
    await $SOCKET
    "$K" ctl --socket $SOCKET watch > events.jsonl 2> watch.log &
}
@PYTHON@ -S @DRIVER@ > driver.log 2>&1 &
await devices-ready
'''

# The end of such a script, once kiosk was started in the background: its pid noted, its
# events watched, and when the host touches `finish` it is stopped with SIGTERM, its exit status
# kept in kiosk.rc, and the driver told to quit.
DRIVER_EPILOGUE = r'''pid=$!
echo $pid > kiosk.pid
watch_events
await finish
kill -TERM $pid
wait $pid; echo $? > kiosk.rc
touch driver-quit
wait
'''


def make_clip(path: Path, colour: str, seconds: int = CLIP_SECONDS) -> None:
    # A white square crosses the picture in 3 s, so consecutive frames always differ.
    graph = (f"color=c={colour}:s=320x240:r=10:d={seconds}[bg];color=c=white:s=24x24:r=10[sq];"
             "[bg][sq]overlay=x='mod(t*100,296)':y=108:shortest=1")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264",
                    "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p", str(path)], check=True)


class Session:
    """The host's side of one guest: commands to the driver, reads of kiosk's stats."""

    def __init__(self, bed: Bed, workdir: Path):
        self.bed, self.workdir, self.sequence = bed, workdir, 0

    def command(self, text: str, timeout: float = 30) -> dict:
        self.sequence += 1
        tmp = self.workdir / f"cmd-{self.sequence:04d}.tmp"
        tmp.write_text(text)
        tmp.rename(self.workdir / f"cmd-{self.sequence:04d}")
        result = json.loads(self.bed.wait_for_file(f"done-{self.sequence:04d}", timeout=timeout).read_text())
        assert "error" not in result, (text, result)
        return result

    def stats(self) -> list[dict]:
        return self._json_lines("stats.jsonl")

    def events(self) -> list[dict]:
        """kiosk's control-socket events so far (watch_events in the guest)."""
        return self._json_lines("events.jsonl")

    def _json_lines(self, name: str) -> list[dict]:
        path = self.workdir / name
        if not path.exists():
            return []
        lines = path.read_text().splitlines()
        # A line still being written is left for the next read.
        return [json.loads(line) for line in lines if line.endswith("}")]

    def wait_for_watcher(self) -> None:
        """Until `kiosk ctl watch` is connected (its first event, a time tick while playing):
        a debug kiosk takes seconds to start under TCG, and a status change made before it
        connects would never be seen."""
        self.wait_until("kiosk ctl watch to pass on an event", lambda _: self.events(), timeout=180)

    def wait_for_status(self, status: str, after: int, timeout: float = 60.0) -> dict:
        """The first `time_control_status` event saying `status` among the events after the
        first `after` ones."""
        def said(_):
            return next((e for e in self.events()[after:] if e.get("event") == "time_control_status"
                         and e.get("time_control_status") == status), None)
        return self.wait_until(f"kiosk to say {status}", said, timeout)

    def videos(self) -> list[dict]:
        """The stats lines of decoded frames (not the overlay's redraws of a paused picture)."""
        return [line for line in self.stats() if line.get("event") is None]

    def shot_until(self, name: str, good, tries: int = 25) -> Path:
        """Screendumps until `good(path)` holds, a fifth of a second apart: QEMU shows a flip on
        its own display refresh (virtio-gpu's update is asynchronous too). The caller asserts on
        what the last one shows."""
        for _ in range(tries):
            path = self.shot(name)
            if good(path):
                break
            time.sleep(0.2)
        return path

    def wait_until(self, what: str, condition, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition(self.stats())
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; last stats: {self.stats()[-5:]}; "
                             f"kiosk log: {self.log()}")

    def log(self) -> str:
        path = self.workdir / "kiosk.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def shot(self, name: str) -> Path:
        return self.bed.screendump(self.workdir / f"{name}.png")
