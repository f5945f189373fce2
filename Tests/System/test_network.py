"""Network items (issue 6, network streams), on the host, headless: HLS and a plain mp4 served
over http from a local server (http_media_server.py, its own process) that the tests start,
kill mid-stream and start again. Media is made with ffmpeg at test time, 320x240, a few
seconds."""
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
SERVER = Path(__file__).resolve().parent / "http_media_server.py"


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


def make_hls(directory: Path, seconds, fps):
    """A VOD HLS of 1 s segments (a keyframe each second, so every segment starts with one)."""
    directory.mkdir()
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size=320x240:rate={fps}:duration={seconds}",
           "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
           "-c:v", "libx264", "-preset", "ultrafast", "-g", fps, "-pix_fmt", "yuv420p", "-c:a", "aac",
           "-f", "hls", "-hls_time", 1, "-hls_playlist_type", "vod",
           "-hls_segment_filename", directory / "seg%03d.ts", directory / "index.m3u8")


class MediaServer:
    """http_media_server.py as a child process: `kill` drops every connection at once."""

    def __init__(self, directory: Path, rate=None):
        self.directory = directory
        self.port = 0
        self.process = None
        self.pacing = [str(rate)] if rate else []

    def start(self):
        self.process = subprocess.Popen([sys.executable, str(SERVER), str(self.directory), str(self.port), *self.pacing],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.process.stdout.readline())
        return self

    def kill(self):
        self.process.kill()
        self.process.wait()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("network")
    make_hls(directory / "short", 3, 25)
    make_hls(directory / "long", 14, 30)
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=14",
           "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=14", "-c:v", "libx264",
           "-preset", "ultrafast", "-g", 30, "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart",
           directory / "long.mp4")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264",
           "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-movflags", "+faststart", directory / "clip.mp4")
    ffmpeg("-f", "lavfi", "-i", "smptehdbars=size=160x120:rate=25:duration=1", "-c:v", "libx264",
           "-preset", "ultrafast", "-pix_fmt", "yuv420p", directory / "local.mp4")
    return directory


@pytest.fixture
def server(media):
    running = MediaServer(media).start()
    yield running
    if running.process.poll() is None:
        running.kill()


def kiosk(*args, stats: Path):
    return [str(KIOSK), "play", *map(str, args), "--display", "headless:320x240", "--no-input",
            "--stats-file", str(stats)]


def read_stats(path: Path):
    # Complete lines only: kiosk may be writing the last one while the test reads.
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def test_plays_hls_and_mp4_over_http(server, tmp_path):
    for path, seconds in [("short/index.m3u8", 3), ("clip.mp4", 2)]:
        stats = tmp_path / "stats.jsonl"
        result = subprocess.run(kiosk(server.url(path), "--audio", "null", stats=stats),
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        records = read_stats(stats)
        pts = [record["pts"] for record in records]
        assert len(records) >= 0.9 * seconds * 25, f"{path}: only {len(records)} frames"
        assert all(b > a for a, b in zip(pts, pts[1:])), f"{path}: pts not increasing"
        assert pts[-1] >= seconds - 0.2 and all(record["video"] for record in records)


def test_http_item_and_local_file_loop_with_seams(server, media, tmp_path):
    stats = tmp_path / "stats.jsonl"
    result = subprocess.run(kiosk(server.url("short/index.m3u8"), media / "local.mp4", "--loop", "--audio", "none",
                                  "--duration", 9, stats=stats), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    records = read_stats(stats)
    seams = [(a, b) for a, b in zip(records, records[1:]) if a["item"] != b["item"]]
    assert len(seams) >= 3, f"only {len(seams)} seams in 9 s of a 3 s + 1 s loop"
    assert all(record["video"] for record in records), "a black frame was presented"
    intervals = [round((b["t"] - a["t"]) * 1000, 1) for a, b in seams]
    print(f"seam intervals (ms): {intervals}")
    # Two frame periods at 25 fps: no stall at a seam into or out of the stream.
    assert max(intervals) < 80, intervals


def wait_for_pts(stats: Path, pts, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if stats.exists() and any(record["pts"] >= pts for record in read_stats(stats)[-5:]):
            return
        time.sleep(0.1)
    pytest.fail(f"playback did not reach {pts} s within {timeout} s")


@pytest.mark.parametrize("path, rate", [("long/index.m3u8", None), ("long.mp4", 200_000)])
def test_server_dropped_mid_stream_comes_back(media, path, rate, tmp_path):
    """The server dies 2 s into a 14 s stream and is back 8 s later: the read-ahead (a few
    seconds) runs out, the player waits on the last picture, reconnects and plays on to the end.
    HLS loses its next segments (the demuxer ends early); the mp4 comes over a paced link (else
    it would sit whole in the socket buffers) and its transfer breaks off mid-file."""
    server = MediaServer(media, rate).start()
    stats = tmp_path / "stats.jsonl"
    player = subprocess.Popen(kiosk(server.url(path), "--audio", "null", stats=stats),
                              stderr=subprocess.PIPE, text=True)
    try:
        wait_for_pts(stats, 2.0, timeout=30)
        server.kill()
        killed_at = read_stats(stats)[-1]["pts"]
        time.sleep(8)
        server.start()
        _, log = player.communicate(timeout=60)
    finally:
        if player.poll() is None:
            player.kill()
        server.kill()
    assert player.returncode == 0, log
    records = read_stats(stats)
    assert all(record["video"] for record in records)
    assert records[-1]["pts"] >= 13.5, f"stopped at {records[-1]['pts']} s: {log}"
    pts = [record["pts"] for record in records]
    assert all(b > a for a, b in zip(pts, pts[1:])), "pts went backwards after the reconnect"
    longest = max(b["t"] - a["t"] for a, b in zip(records, records[1:]))
    assert longest > 1.0, "the outage never emptied the buffer: the test proves nothing"
    assert any(record["pts"] > killed_at + 8 for record in records)
    assert "connection lost" in log and "reconnected" in log, log
    assert "buffering" in log and "waitingToPlay" in log and "playing again" in log, log
    assert "reconnect attempt 1 failed" in log, log   # one line per attempt while it was down
    assert f"127.0.0.1:{server.port}/{path}" in log


def test_dead_urls_are_skipped_and_the_local_item_plays(server, media, tmp_path):
    with socket.socket() as probe:   # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/gone.m3u8"
    missing = server.url("missing/index.m3u8")
    stats = tmp_path / "stats.jsonl"
    result = subprocess.run(kiosk(closed, missing, media / "local.mp4", "--loop", "--audio", "none",
                                  "--duration", 4, stats=stats), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    refused = [line for line in lines if closed in line]
    not_found = [line for line in lines if missing in line]
    assert refused and all("skipping item 0" in line and "refused" in line for line in refused), result.stderr
    assert not_found and all("skipping item 1" in line and "404" in line for line in not_found), result.stderr
    records = read_stats(stats)
    local = [record for record in records if record["item"] == 2]
    assert len(local) >= 0.7 * 25 * 3 and all(record["video"] for record in records), result.stderr
    # One line per failure per pass: never more failures than passes through the playlist.
    restarts = [(a, b) for a, b in zip(records, records[1:]) if b["gen"] == a["gen"] and b["pts"] < a["pts"]]
    passes = 1 + len(restarts)
    assert len(refused) <= passes + 1 and len(not_found) <= passes + 1, (passes, result.stderr)
    # The dead items are found out while the local one plays: its loops keep their seams.
    intervals = [round((b["t"] - a["t"]) * 1000, 1) for a, b in restarts]
    assert restarts and max(intervals) < 80, intervals


def test_stop_during_a_hanging_connect_is_prompt(tmp_path):
    """A server that takes the connection and never answers: SIGTERM still ends kiosk at once."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)   # never accepted, never answered
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/stuck.m3u8"
        player = subprocess.Popen(kiosk(url, "--audio", "none", stats=tmp_path / "stats.jsonl"),
                                  stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert player.poll() is None, "kiosk gave up on the connect too early"
        started = time.monotonic()
        player.send_signal(signal.SIGTERM)
        _, log = player.communicate(timeout=10)
        took = time.monotonic() - started
    assert player.returncode == 0, log
    assert took < 3, f"SIGTERM took {took:.1f} s during a hanging connect"
