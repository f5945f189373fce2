"""The live sources and the outage that test_live_sources.py puts kiosk through: senders made
with ffmpeg (UDP, SRT, live HLS) or gst-rtsp-server (RTSP), `kiosk play` through one outage of
AWAY seconds, and what the log, stats and socket must say of it."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until as poll_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

AWAY = 17.0   # longer than ReconnectPolicy.standard's 15 s, after which a VOD item is skipped


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def udp_sender(port: int, offset: float = 0) -> subprocess.Popen:
    """testsrc2 320x240 25 fps, 1 s GOP, MPEG-TS over UDP in real time, until killed; its
    timestamps from `offset` seconds."""
    return subprocess.Popen(
        ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
         "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "25", "-pix_fmt", "yuv420p",
         "-output_ts_offset", str(offset), "-f", "mpegts", f"udp://127.0.0.1:{port}?pkt_size=1316"], stdin=subprocess.DEVNULL)


def srt_listener(port: int) -> subprocess.Popen:
    """The same stream from ffmpeg as an SRT listener (bookworm's FFmpeg has libsrt): it sends
    once kiosk, the caller, has connected. In a loop, as an encoder in listener mode keeps
    listening: ffmpeg serves one caller and exits when it leaves, and a caller that gave up on a
    stall (kiosk reconnects after 1 s without data; CI's loaded host once stalled the new
    listener's first seconds) would then find no one for the rest of the test. Its own session,
    so `stop` ends the loop and the ffmpeg in it."""
    command = ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
               "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "25", "-pix_fmt", "yuv420p",
               "-f", "mpegts", f"srt://127.0.0.1:{port}?mode=listener"]
    return subprocess.Popen(["sh", "-c", 'while :; do "$@"; sleep 0.1; done', "sh", *command],
                            stdin=subprocess.DEVNULL, start_new_session=True)


def hls_packager(directory: Path, endlist_at_exit: bool = False) -> subprocess.Popen:
    """A live HLS (no ENDLIST while it runs) of 1 s segments, numbered from 0 at each start;
    `endlist_at_exit`: a clean stop (SIGTERM, `systemctl restart`) writes `EXT-X-ENDLIST`, as
    ffmpeg's hls muxer does by default."""
    flags = "delete_segments" if endlist_at_exit else "delete_segments+omit_endlist"
    return subprocess.Popen(
        ["ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
         "-f", "hls", "-hls_time", "1", "-hls_list_size", "4", "-hls_flags", flags,
         "-start_number", "0", "-hls_segment_filename", str(directory / "live%05d.ts"), str(directory / "live.m3u8")],
        stdin=subprocess.DEVNULL)


def read_stats(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def wait_until(what: str, check, timeout: float, log: Path):
    """control_client's poll, failing with kiosk's log on a timeout (a deadline for a hang)."""
    value = poll_until(check, timeout=timeout, interval=0.1)
    if not value:
        pytest.fail(f"timed out waiting for {what}; kiosk's log: {log.read_text(errors='replace')[-3000:]}")
    return value


def flips_after(stats: Path, host_time: float) -> list[dict]:
    return [r for r in read_stats(stats) if r.get("video") and r["t"] > host_time]


def play_through_an_outage(tmp_path: Path, url: str, start_source, stop_source, command: list[str] | None = None,
                           socket_path: Path | None = None) -> dict:
    """`kiosk play URL` (or `command`, which writes stats.jsonl in tmp_path) through one outage;
    with `socket_path` (the command's control socket), the events seen there up to the source's
    return (`events`)."""
    stats, log = tmp_path / "stats.jsonl", tmp_path / "kiosk.log"
    source, client, events = start_source(), None, []
    with open(log, "w") as log_file:
        player = subprocess.Popen(command or [str(KIOSK), "play", url, "--display", "headless:320x240", "--no-input",
                                              "--audio", "none", "--stats-file", str(stats)],
                                  stderr=log_file, stdin=subprocess.DEVNULL)
    try:
        wait_until("the first live frames", lambda: len(flips_after(stats, 0)) >= 50, 120, log)
        if socket_path:
            client = ControlClient(socket_path)
        stop_source(source)
        lost_at = time.monotonic()
        wait_until("kiosk to see the loss", lambda: "connection lost" in log.read_text(errors="replace"), 60, log)
        time.sleep(max(0.0, AWAY - (time.monotonic() - lost_at)))
        # Taken before the start: a packager's playlist can be read (and played) before the
        # poll that waits for it in `start_source` wakes (CI: two new frames flipped 50 ms
        # before a `back_at` taken after it, counted as replays).
        back_at = time.monotonic()
        source = start_source()
        wait_until("frames after the sender came back", lambda: len(flips_after(stats, back_at)) >= 50, 120, log)
        gap = flips_after(stats, back_at)[0]["t"] - back_at
        if client:
            client.wait_for_event(lambda e: e["event"] == "source_back", timeout=30)
            events = client.events
        assert player.poll() is None, log.read_text(errors="replace")
        player.send_signal(signal.SIGTERM)
        status = player.wait(timeout=60)
    finally:
        if client:
            client.close()
        if player.poll() is None:
            player.kill()
        stop_source(source)
    return {"status": status, "log": log.read_text(errors="replace"), "stats": read_stats(stats), "gap": gap,
            "lost_at": lost_at, "back_at": back_at, "events": events}


@contextmanager
def kiosk_running(command: list[str], log: Path, senders: list[subprocess.Popen] | None = None):
    """`command` (a kiosk) with its stderr in `log`; whatever the body leaves running is killed on
    the way out, and then the senders in `senders` (the body may add to it) are stopped."""
    player = None
    try:
        with open(log, "w") as log_file:
            player = subprocess.Popen(command, stderr=log_file, stdin=subprocess.DEVNULL)
        yield player
    finally:
        if player is not None and player.poll() is None:
            player.kill()
            player.wait()
        for sender in senders or []:
            stop(sender)


def sigterm(player: subprocess.Popen) -> int:
    """Ends kiosk as systemd does; its exit status."""
    player.send_signal(signal.SIGTERM)
    return player.wait(timeout=60)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            leads_its_group = os.getpgid(process.pid) == process.pid
        except ProcessLookupError:
            leads_its_group = False
        if leads_its_group:   # a source in a loop of its own (srt_listener): the loop and its child
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait()


def stop_cleanly(process: subprocess.Popen) -> None:
    """SIGTERM, as systemd stops a service: ffmpeg finishes its output (an HLS playlist gets its
    `EXT-X-ENDLIST`)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def check_outage(result: dict, url_part: str) -> None:
    log = result["log"]
    assert result["status"] == 0, log[-3000:]
    # libsrt says so when its sockets vanish under a thread still waiting on them: at exit, its
    # static destructor ran while a demux thread was inside srt_epoll_wait (SIGSEGV now and
    # then; ExitGate.swift). Every run showed the line before the fix, whatever its status.
    assert "this would deadlock" not in log, log[-3000:]
    assert "skipping item" not in log and "stream lost" not in log, log[-3000:]
    assert "connection lost" in log and "reconnected" in log, log[-3000:]
    attempts = log.count("reconnect attempt")
    # 17 s away at 0.1, 0.2, 0.4, then 0.5 s: ~35 attempts; three lines, maybe one a minute.
    assert 1 <= attempts <= 4, f"{attempts} reconnect lines: {log[-3000:]}"
    assert url_part in log
    video = [r for r in result["stats"] if r.get("video")]
    # Nothing old played again while the sender was away (a dead packager's playlist, still
    # served, rejoined and replayed every few seconds before this was fixed): after the frames
    # buffered at the loss (under 3 s), no flip until the sender is back.
    replayed = [r for r in video if result["lost_at"] + 3 < r["t"] < result["back_at"]]
    assert not replayed, f"{len(replayed)} flips while the sender was away: {replayed[:3]}"
    pts = [r["pts"] for r in video]
    assert all(b > a for a, b in zip(pts, pts[1:])), "pts went backwards across the outage"
    print(f"{url_part}: first flip {result['gap']:.2f} s after the sender was started")


def check_source_events(result: dict) -> None:
    """The socket said `source_lost` once (with its reason) and `source_back` once, for item 0,
    in that order, `after` about as long as the sender was away (the loss counts from the read
    that found the silence, which began at about the kill; the return is the new sender's
    first packet)."""
    changes = [e for e in result["events"] if e["event"] in ("source_lost", "source_back")]
    assert [e["event"] for e in changes] == ["source_lost", "source_back"], changes
    assert all(e["item"] == 0 for e in changes), changes
    assert changes[0]["reason"], changes
    assert AWAY - 4 < changes[1]["after"] < AWAY + 15, changes


RTSP_SERVER = Path(__file__).resolve().parent / "rtsp_test_server.py"
# Debian's python3-gi is Debian's Python's: a Python of its own (pyenv, a venv) does not see it.
SYSTEM_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rtsp_camera(port: int) -> subprocess.Popen:
    """gst-rtsp-server's live test picture at /live on `port`, once it listens."""
    server = subprocess.Popen([SYSTEM_PYTHON, str(RTSP_SERVER), str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if line.strip() != str(port):
        stop(server)
        raise RuntimeError(f"the RTSP server did not start on port {port}: {server.stderr.read() or line}")
    return server
