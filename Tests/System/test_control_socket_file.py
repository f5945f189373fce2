"""kiosk's control socket as a file: a stale one of kiosk's replaced and removed at exit, a path
that is not a socket or belongs to another user refused and left as it was, and `kiosk run`'s
`control:` section (the socket's place relative to kiosk.conf, its time events' interval, `kiosk
ctl --config`). The requests themselves: test_control.py and test_control_clients.py."""
import os
import socket
import subprocess
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("socket-file-clip") / "a.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=320x240:rate=25:duration=6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


def play_with_socket(path, clip, seconds=1.5):
    return subprocess.run([str(KIOSK), "play", str(clip), "--display", "headless:320x240", "--audio", "none", "--no-input",
                           "--control-socket", str(path), "--duration", str(seconds)],
                          capture_output=True, text=True, timeout=60)


def test_stale_socket_of_ours_is_replaced_and_removed_on_exit(tmp_path, clip):
    path = tmp_path / "stale.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()   # the file stays, nobody listens: what a killed kiosk leaves
    result = play_with_socket(path, clip)
    assert result.returncode == 0, result.stderr
    assert not path.exists()


def test_path_that_is_not_a_socket_is_refused(tmp_path, clip):
    path = tmp_path / "notes.txt"
    path.write_text("mine")
    result = play_with_socket(path, clip)
    assert result.returncode == 2 and "is not a socket" in result.stderr
    assert path.read_text() == "mine"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a path owned by another user")
def test_path_owned_by_another_user_is_refused(tmp_path, clip):
    path = tmp_path / "theirs.sock"
    theirs = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    theirs.bind(str(path))
    theirs.close()
    os.chown(path, 65534, 65534)
    result = play_with_socket(path, clip)
    assert result.returncode == 2, result.stderr
    assert "belongs to uid 65534" in result.stderr and str(path) in result.stderr
    assert path.exists() and os.stat(path).st_uid == 65534


def test_run_reads_the_control_section(tmp_path, clip):
    conf = tmp_path / "kiosk.conf"
    conf.write_text(f"display:\n  output: headless\n  headless_size: 320x240\naudio:\n  device: none\n"
                    f"input:\n  enabled: false\ncontrol:\n  socket: ctl.sock\n  time_interval: 0.25\n"
                    f"items:\n  - {clip}\n")
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--duration", "20"],
                               stderr=subprocess.PIPE, text=True)
    try:
        path = tmp_path / "ctl.sock"   # relative to kiosk.conf's directory
        assert wait_until(path.exists, timeout=20), "no socket at control.socket"
        client = ControlClient(path)
        ticks = client.time_events_within(3)
        assert len(ticks) >= 6, f"time_interval 0.25 s gave {len(ticks)} time events in 3 s"
        client.close()
        # kiosk ctl finds the socket through --config.
        result = subprocess.run([str(KIOSK), "ctl", "--config", str(conf), "get", "playlist_count"],
                                capture_output=True, text=True, timeout=20)
        assert (result.returncode, result.stdout) == (0, "1\n"), result.stderr
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0, process.stderr.read()
    assert not (tmp_path / "ctl.sock").exists()
