"""Live sources the other live tests do not reach (issue 35): a real multicast group and a
camera that freezes instead of dying.

- **Multicast.** In a network namespace the test makes (`unshare --net`, lo up with multicast
  on and a route for 239/8, as the issue asks; the host's own network is not touched), ffmpeg
  sends MPEG-TS to 239.255.35.1 and kiosk plays `udp://239.255.35.1:PORT`: the group is joined
  (the namespace's `ip maddr` lists it while kiosk plays), the sender is killed and started
  again, and kiosk comes back on the same group without skipping the item.
- **A frozen camera.** gst-rtsp-server over TCP stopped with SIGSTOP: its socket stays open and
  says nothing, the case where FFmpeg 5.1 with no `timeout` held a read for 13 minutes. kiosk
  must call it a loss within seconds, keep trying while the server is frozen (each try must
  time out, not hang), and play again after SIGCONT.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

import pytest

from built_kiosk import KIOSK
from paused_shots import terminate
from test_live_sources import flips_after, free_tcp_port, free_udp_port, rtsp_camera, stop, wait_until

GROUP = "239.255.35.1"


@pytest.fixture(scope="module", autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")


@pytest.fixture
def namespace():
    """A network namespace held by a sleeping process; commands enter it with nsenter."""
    if not shutil.which("unshare") or not shutil.which("nsenter") or not shutil.which("ip"):
        pytest.skip("not run: unshare, nsenter or ip (util-linux, iproute2) missing")
    holder = subprocess.Popen(["unshare", "--net", "sleep", "infinity"])
    time.sleep(0.2)
    if holder.poll() is not None:
        pytest.skip("not run: this host does not allow a network namespace (unshare --net needs root or CAP_SYS_ADMIN)")
    enter = ["nsenter", f"--net=/proc/{holder.pid}/ns/net"]
    for command in (["ip", "link", "set", "lo", "up"], ["ip", "link", "set", "lo", "multicast", "on"],
                    ["ip", "route", "add", "239.0.0.0/8", "dev", "lo"]):
        subprocess.run(enter + command, check=True)
    yield enter
    holder.kill()
    holder.wait()


def multicast_sender(enter: list[str], port: int) -> subprocess.Popen:
    """testsrc2 320x240 25 fps, 1 s GOP, MPEG-TS to the group, in real time, in the namespace."""
    return subprocess.Popen(
        enter + ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
                 "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "25", "-pix_fmt", "yuv420p",
                 "-f", "mpegts", f"udp://{GROUP}:{port}?pkt_size=1316&ttl=1"], stdin=subprocess.DEVNULL)


def test_a_multicast_group_is_joined_and_played_again_after_its_sender_restarts(tmp_path, namespace):
    port = free_udp_port()
    stats, log = tmp_path / "stats.jsonl", tmp_path / "kiosk.log"
    sender = multicast_sender(namespace, port)
    with open(log, "w") as log_file:
        player = subprocess.Popen(namespace + [str(KIOSK), "play", f"udp://{GROUP}:{port}", "--display", "headless:320x240",
                                               "--no-input", "--audio", "none", "--stats-file", str(stats)],
                                  stderr=log_file, stdin=subprocess.DEVNULL)
    try:
        wait_until("the first frames from the group", lambda: len(flips_after(stats, 0)) >= 50, 120, log)
        joined = subprocess.run(namespace + ["ip", "maddr", "show", "dev", "lo"], capture_output=True, text=True).stdout
        assert GROUP in joined, f"the namespace's lo has not joined {GROUP}: {joined}"
        stop(sender)
        wait_until("kiosk to see the loss", lambda: "connection lost" in log.read_text(errors="replace"), 60, log)
        time.sleep(3)
        back_at = time.monotonic()
        sender = multicast_sender(namespace, port)
        wait_until("frames from the group again", lambda: len(flips_after(stats, back_at)) >= 50, 120, log)
        assert player.poll() is None, log.read_text(errors="replace")[-3000:]
        status = terminate(player)
    finally:
        if player.poll() is None:
            player.kill()
        stop(sender)
    text = log.read_text(errors="replace")
    assert status == 0, text[-3000:]
    assert "skipping item" not in text and "reconnected" in text, text[-3000:]
    print(f"multicast: first flip {flips_after(stats, back_at)[0]['t'] - back_at:.2f} s after the sender restarted")


def test_a_frozen_rtsp_camera_is_called_lost_and_played_again_when_it_wakes(tmp_path):
    port = free_tcp_port()
    server = rtsp_camera(port)
    url = f"rtsp://127.0.0.1:{port}/live"
    config, stats, log = tmp_path / "kiosk.conf", tmp_path / "stats.jsonl", tmp_path / "kiosk.log"
    config.write_text("display: {output: headless, headless_size: 320x240}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"items:\n  - {{path: '{url}', transport: tcp}}\n")
    with open(log, "w") as log_file:
        player = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--stats-file", str(stats)],
                                  stderr=log_file, stdin=subprocess.DEVNULL)
    frozen_for = 12.0
    try:
        wait_until("the camera's first frames", lambda: len(flips_after(stats, 0)) >= 50, 120, log)
        os.kill(server.pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        wait_until("kiosk to call the frozen camera lost", lambda: "connection lost" in log.read_text(errors="replace"), 30, log)
        lost_after = time.monotonic() - frozen_at
        time.sleep(max(0.0, frozen_for - (time.monotonic() - frozen_at)))
        # Tries made while frozen each ended (a hung open would leave kiosk silent from here on).
        attempts_while_frozen = log.read_text(errors="replace").count("reconnect attempt")
        woke_at = time.monotonic()
        os.kill(server.pid, signal.SIGCONT)
        wait_until("frames after the camera woke", lambda: len(flips_after(stats, woke_at)) >= 50, 120, log)
        assert player.poll() is None, log.read_text(errors="replace")[-3000:]
        status = terminate(player)
    finally:
        if player.poll() is None:
            player.kill()
        if server.poll() is None:
            os.kill(server.pid, signal.SIGCONT)
        stop(server)
    text = log.read_text(errors="replace")
    back = flips_after(stats, woke_at)[0]["t"] - woke_at
    print(f"frozen camera: called lost {lost_after:.1f} s after SIGSTOP; {attempts_while_frozen} reconnect lines while frozen; "
          f"first flip {back:.2f} s after SIGCONT")
    assert status == 0, text[-3000:]
    assert "skipping item" not in text, text[-3000:]
    # The loss: 2 s without a packet, plus the read's own timeout and the frames buffered.
    assert lost_after < 10, f"the frozen camera was called lost only after {lost_after:.1f} s"
    assert attempts_while_frozen >= 1, text[-3000:]
