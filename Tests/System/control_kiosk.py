"""The shared player of the control-socket tests (test_control.py, test_control_clients.py): a
real `kiosk play` of three clips (headless 320x240, no sound) with its socket and --stats-file,
one per test module, put back to playing at rate 1, volume 100, unmuted after each test."""
import json
import subprocess
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
CLIP_SECONDS = 6
# A backstop only, far beyond any run: the module stops kiosk itself when its tests are done,
# and a kiosk that ended on its own mid-module (a slow host) would fail the tests after it.
RUN_SECONDS = 3600


def make_clip(path: Path):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=320x240:rate=25:duration={CLIP_SECONDS}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    directory = tmp_path_factory.mktemp("control-clips")
    return [make_clip(directory / f"{name}.mp4") for name in ("a", "b", "c")]


class Kiosk:
    def __init__(self, directory: Path, clips):
        self.socket = directory / "control.sock"
        self.stats = directory / "stats.jsonl"
        self.process = subprocess.Popen(
            [str(KIOSK), "play", *map(str, clips), "--loop", "--display", "headless:320x240", "--audio", "none",
             "--no-input", "--stats-file", str(self.stats), "--control-socket", str(self.socket),
             "--duration", str(RUN_SECONDS)], stderr=subprocess.PIPE, text=True)
        if not wait_until(lambda: self.socket.exists() and self.frame_count() > 0, timeout=20):
            self.process.kill()
            pytest.fail(f"kiosk did not start: {self.process.stderr.read()}")

    def records(self):
        return [json.loads(line) for line in self.stats.read_text().splitlines() if line.endswith("}")]

    def frame_count(self):
        return len(self.records()) if self.stats.exists() else 0

    def client(self):
        return ControlClient(self.socket)

    def assert_alive(self):
        """Still presenting frames and still answering."""
        before = self.frame_count()
        assert wait_until(lambda: self.frame_count() > before + 5, timeout=5), "the player stopped presenting frames"
        client = self.client()
        assert client.ok("get", "playlist_count") == 3
        client.close()


@pytest.fixture(scope="module")
def kiosk(tmp_path_factory, clips):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    player = Kiosk(tmp_path_factory.mktemp("control"), clips)
    yield player
    player.process.terminate()
    assert player.process.wait(timeout=10) == 0, player.process.stderr.read()
    assert not player.socket.exists(), "the socket file outlived kiosk"


@pytest.fixture(autouse=True)
def restore_playback(request):
    """The module's tests share one kiosk: after each that used it, playing again at rate 1,
    volume 100 and unmuted, whatever the test left (a failed one may stop half-way)."""
    yield
    if "kiosk" not in request.fixturenames:
        return
    player = request.getfixturevalue("kiosk")
    if player.process.poll() is not None:
        return   # kiosk is gone: the module's teardown reports it
    client = player.client()
    try:
        client.ok("rate", 1)
        client.ok("volume", 100)
        client.ok("mute", False)
        client.ok("play")
        assert wait_until(lambda: client.ok("get", "time_control_status") != "paused", timeout=10)
    finally:
        client.close()


def ctl(kiosk, *words, cwd=None):
    return subprocess.run([str(KIOSK), "ctl", "--socket", str(kiosk.socket), *words],
                          capture_output=True, text=True, timeout=20, cwd=cwd)
