"""Watched folders on the host, headless (issue 15): the ways files arrive in a folder that
`kiosk run` plays, timed on the host against the control socket's events:

1. a file written whole and then held open longer than `playback.settle` joins once its size
   has been steady for `settle` (the path for writers that never close), before its close;
2. a file written in parts with pauses shorter than `settle` does not start before its writer
   closes it, and does after;
3. a file written as `NAME.part` and renamed to its name joins at once (the rename), and the
   `.part` name never plays;
4. an empty file never plays and gets no failure line;
5. a reload of kiosk.conf with another `settle` applies live (logged as playback (settle)).
The bed's test_media_arrival.py checks the guest kernel's paths and USB sticks; this one is
quick and runs in `deploy/test --quick` too.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
SETTLE = 1.5


def make_clip(path: Path, seconds: float):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=160x120:rate=25:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)


def config(settle: float) -> str:
    return (f"input: {{enabled: false}}\nplayback: {{loop: playlist, settle: {settle}}}\n"
            "items:\n  - folder/\n")


class EventLog:
    """Every event of the control socket with the host's monotonic time it arrived."""

    def __init__(self, path: Path):
        # The socket file exists from bind(2) on; connections are taken from listen(2) on.
        deadline = time.monotonic() + 10
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(str(path))
                break
            except ConnectionRefusedError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.events: list[tuple[float, dict]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                if "event" in message:
                    with self.lock:
                        self.events.append((time.monotonic(), message))

    def starts(self, title: str) -> list[float]:
        with self.lock:
            return [t for t, e in self.events if e["event"] == "item_started" and e.get("path") == title]

    def wait_for_start(self, title: str, after: float, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            later = [t for t in self.starts(title) if t > after]
            if later:
                return later[0]
            time.sleep(0.05)
        pytest.fail(f"{title} did not start within {timeout} s after the step; events: {self.events[-8:]}")


@pytest.fixture(scope="module")
def folder_run(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("watched")
    folder = directory / "folder"
    folder.mkdir()
    for name in ("a", "b", "c", "d"):
        make_clip(directory / f"{name}.mp4", 1.0)
    (folder / "a.mp4").write_bytes((directory / "a.mp4").read_bytes())
    os.utime(folder / "a.mp4", (1_600_000_000, 1_600_000_000))   # there long before kiosk
    conf, control = directory / "kiosk.conf", directory / "ctl.sock"
    conf.write_text(config(SETTLE))
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:320x240",
                                "--audio", "none", "--control-socket", str(control), "--duration", "60"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    times = {}
    try:
        deadline = time.monotonic() + 30
        while not control.exists():
            assert process.poll() is None and time.monotonic() < deadline, "kiosk did not open its control socket"
            time.sleep(0.05)
        events = EventLog(control)
        events.wait_for_start("a.mp4", 0, 30)
        # 1. Written whole, held open well beyond settle.
        with open(folder / "b.mp4", "wb") as writer:
            writer.write((directory / "b.mp4").read_bytes())
            writer.flush()
            times["b written"] = time.monotonic()
            times["b started"] = events.wait_for_start("b.mp4", times["b written"], SETTLE + 20)
            times["b closed"] = time.monotonic()
        # 2. Written in parts, each pause shorter than settle, then closed.
        data = (directory / "c.mp4").read_bytes()
        with open(folder / "c.mp4", "wb") as writer:
            times["c opened"] = time.monotonic()
            for part in range(4):
                writer.write(data[part * len(data) // 4:(part + 1) * len(data) // 4])
                writer.flush()
                time.sleep(SETTLE / 3)
        times["c closed"] = time.monotonic()
        times["c started"] = events.wait_for_start("c.mp4", times["c closed"], 20)
        # 3. Written under a temporary name, renamed into place.
        (folder / "d.mp4.part").write_bytes((directory / "d.mp4").read_bytes())
        times["d part written"] = time.monotonic()
        time.sleep(SETTLE + 1)   # long enough for the .part name to have joined, were it a candidate
        os.rename(folder / "d.mp4.part", folder / "d.mp4")
        times["d renamed"] = time.monotonic()
        times["d started"] = events.wait_for_start("d.mp4", times["d renamed"], 20)
        # 4. An empty file.
        (folder / "e.mp4").touch()
        times["e touched"] = time.monotonic()
        # 5. settle changed by a reload.
        conf.write_text(config(0.5))
        time.sleep(3)
        process.terminate()
        output, _ = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return {"rc": process.returncode, "log": output, "times": times, "events": events}


def test_kiosk_stops_cleanly(folder_run):
    assert folder_run["rc"] == 0, folder_run["log"]


def test_a_file_held_open_joins_once_its_size_is_steady(folder_run):
    times = folder_run["times"]
    # Not before settle, and before its writer closed it (the steady-size path).
    waited = times["b started"] - times["b written"]
    assert waited >= SETTLE - 0.1, f"b started {waited:.2f} s after it was written"
    assert times["b started"] < times["b closed"]


def test_a_file_written_with_short_pauses_waits_for_its_close(folder_run):
    times, events = folder_run["times"], folder_run["events"]
    early = [t for t in events.starts("c.mp4") if t < times["c closed"]]
    assert not early, f"c started {times['c closed'] - early[0]:.2f} s before its writer closed it"
    assert times["c started"] - times["c closed"] < 10


def test_a_renamed_in_file_joins_and_its_temporary_never_plays(folder_run):
    times, events, log = folder_run["times"], folder_run["events"], folder_run["log"]
    assert not events.starts("d.mp4.part")
    assert "d.mp4.part" not in log
    assert times["d started"] - times["d renamed"] < 10
    assert "watched folders: +" in log and "/folder/d.mp4 (" in log, log


def test_an_empty_file_never_plays_and_says_nothing(folder_run):
    assert not folder_run["events"].starts("e.mp4")
    assert "e.mp4" not in folder_run["log"], folder_run["log"]


def test_settle_is_taken_live(folder_run):
    assert "kiosk.conf: reloaded: playback (settle)" in folder_run["log"], folder_run["log"]
