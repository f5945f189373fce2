"""Content sync (issue 21) from Debian's nginx, a real server rather than the tests' own
http_media_server.py: its ETags and 304s, its Range and If-Range answers, and `limit_rate`
throttling the media so a kill lands mid-file. Each test runs nginx as a plain process (its own
config in tmp_path, `-g 'daemon off;'`, a free port on 127.0.0.1), never the system's service;
deploy/setup installs the package (deploy/packages.txt) without starting that service. nginx
missing is a failure, not a skip: CI must not pass without having run these."""
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from content_sync_support import KIOSK, Box, make_manifest, write_media

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
RATE = "1m"   # limit_rate: an 8 MB file takes 8 s, time enough to see its partial grow and kill


@pytest.fixture(autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"{NGINX} is missing: deploy/setup installs Debian's nginx (deploy/packages.txt)")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Nginx:
    """nginx serving `root` on 127.0.0.1:port, media throttled to RATE. Its access log line per
    request: method and path, status, body bytes, then the Range, If-None-Match and If-Range
    kiosk sent."""

    def __init__(self, root: Path, folder: Path, port: int):
        self.root, self.folder, self.port = root, folder, port
        folder.mkdir(parents=True, exist_ok=True)
        self.conf, self.log, self.errors = folder / "nginx.conf", folder / "access.log", folder / "error.log"
        # As root, workers would switch to nobody, who cannot enter pytest's 0700 tmp folders.
        user = "user root;" if os.geteuid() == 0 else ""
        temp = "".join(f"    {kind}_temp_path {folder}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        self.conf.write_text(f"""{user}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {self.errors} info;
events {{ worker_connections 64; }}
http {{
    log_format kiosk escape=none '$request|$status|$body_bytes_sent|$http_range|$http_if_none_match|$http_if_range';
    access_log {self.log} kiosk;
{temp}    types {{ video/mp4 mp4; application/json json; }}
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location /media/ {{ limit_rate {RATE}; }}
    }}
}}
""")

    def __enter__(self):
        # Its own session: a kill of the group takes the worker too, as when the box dies.
        self.process = subprocess.Popen([NGINX, "-e", str(self.errors), "-p", str(self.folder), "-c", str(self.conf),
                                         "-g", "daemon off;"], start_new_session=True,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"nginx exited with {self.process.returncode}: {self.errors.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        pytest.fail(f"nginx did not listen on {self.port} in 30 s: {self.errors.read_text()}")

    def __exit__(self, *exc):
        self.kill()

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"

    def requests(self):
        """The access log: (request, status, bytes, range, if-none-match, if-range) per line."""
        if not self.log.exists():
            return []
        return [tuple(line.split("|")) for line in self.log.read_text().splitlines()]


def test_nginx_serves_the_set_then_answers_its_manifest_with_304(tmp_path):
    root = tmp_path / "www"
    write_media(root / "media", {"a.mp4": 300_000, "b.mp4": 200_000, "c.mp4": 100_000})
    port = free_port()
    make_manifest(root, f"http://127.0.0.1:{port}/media/")
    box = Box(tmp_path, f"http://127.0.0.1:{port}/manifest.json")
    with Nginx(root, tmp_path / "nginx", port) as nginx:
        first = box.sync()
        second = box.sync()
        requests = nginx.requests()
    assert first.returncode == 0 and first.report["outcome"] == "switched", first.stderr
    for name, data in box.played():
        assert data == (root / "media" / name).read_bytes(), name
    assert second.returncode == 0 and second.report["outcome"] == "unchanged", second.stderr
    assert second.report["fetched_bytes"] == 0
    manifests = [r for r in requests if r[0].startswith("GET /manifest.json ")]
    assert [r[1] for r in manifests] == ["200", "304"], requests
    assert manifests[1][4].startswith('"'), f"the second poll sent no If-None-Match with nginx's ETag: {requests}"


@pytest.mark.parametrize("touched", [False, True], ids=["same file: 206", "touched: If-Range misses, 200"])
def test_a_kill_of_nginx_mid_file_is_resumed_with_range_and_if_range(tmp_path, touched):
    """nginx is killed (master and worker) once the partial holds 1 MB of an 8 MB file served at
    1 MB/s; the next pass asks for the rest with Range and If-Range (nginx's ETag). The same file
    gets 206 and only the rest is fetched; a file touched meanwhile (same bytes, new mtime, so a
    new ETag) gets 200 and is fetched whole, as a changed file must be."""
    size = 8_000_000
    root = tmp_path / "www"
    write_media(root / "media", {"big.mp4": size})
    port = free_port()
    manifest = make_manifest(root, f"http://127.0.0.1:{port}/media/")
    partial = tmp_path / "store" / "partial" / manifest["files"][0]["sha256"]
    box = Box(tmp_path, f"http://127.0.0.1:{port}/manifest.json")
    with Nginx(root, tmp_path / "nginx", port) as nginx:
        sync = subprocess.Popen([str(KIOSK), "sync", "--once", "--json", "--config", str(box.config)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (partial.exists() and partial.stat().st_size >= 1_000_000):
            assert sync.poll() is None, f"the sync ended before the kill: {sync.communicate()}"
            assert time.monotonic() < deadline, "no 1 MB partial in 60 s"
            time.sleep(0.02)
        nginx.kill()
        out, err = sync.communicate(timeout=60)
    assert sync.returncode == 1 and "resumed next time" in err, err
    held = partial.stat().st_size
    assert 1_000_000 <= held < size
    if touched:
        later = time.time() + 10
        os.utime(root / "media" / "big.mp4", (later, later))
    with Nginx(root, tmp_path / "nginx", port) as nginx:
        second = box.sync()
        requests = nginx.requests()
    assert second.returncode == 0 and second.report["outcome"] == "switched", second.stderr
    assert box.played() == [("big.mp4", (root / "media" / "big.mp4").read_bytes())]
    media = [r for r in requests if r[0].startswith("GET /media/big.mp4 ")]
    resume = media[-1]
    assert resume[3] == f"bytes={held}-" and resume[5].startswith('"'), f"no Range/If-Range from the partial: {requests}"
    if touched:
        assert resume[1] == "200" and second.report["fetched_bytes"] == size, (requests, second.report)
    else:
        assert resume[1] == "206" and second.report["fetched_bytes"] == size - held, (requests, second.report)
    print(f"nginx killed at {held} of {size} bytes; {'touched' if touched else 'same file'}: "
          f"{resume[1]}, fetched {second.report['fetched_bytes']}")
