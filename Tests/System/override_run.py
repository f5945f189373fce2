"""The parts test_overrides.py and test_text_cards.py share: a clip, `kiosk run` of a kiosk.conf
with its control socket beside it, the newest snapshot's rows, and an override's events."""
import subprocess
import sys
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screen_geometry import rgb_rows  # noqa: E402
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)


def make_clip(path: Path, seconds: int) -> Path:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=320x240:rate=25:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


class Run:
    """`kiosk run` of `conf` with its socket at `directory`/ctl.sock."""

    def __init__(self, conf: Path, state: Path, extra: list[str] | None = None):
        self.socket = conf.parent / "ctl.sock"
        self.process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--state-dir", str(state),
                                         "--duration", "600", *(extra or [])], stderr=subprocess.PIPE, text=True)
        if not wait_until(self.socket.exists, timeout=60):
            self.process.kill()
            pytest.fail(f"kiosk did not open its socket: {self.process.stderr.read()}")
        self.client = ControlClient(self.socket, timeout=30)

    def title(self) -> str:
        return self.client.ok("get", "title")

    def stop(self) -> str:
        self.client.close()
        self.process.terminate()
        code = self.process.wait(timeout=60)
        log = self.process.stderr.read()
        assert code == 0, log
        return log


def newest_rows(shots: Path):
    """The RGB rows of the newest whole snapshot in `shots` (one still being written is
    skipped), or None before the first."""
    for shot in reversed(sorted(shots.glob("shot-*.png"))):
        try:
            return rgb_rows(shot)[2]
        except Exception:
            continue
    return None


def event(run: Run, name: str, which: str, timeout: float = 60):
    return run.client.wait_for_event(lambda e: e["event"] == name and e.get("name") == which, timeout=timeout)
