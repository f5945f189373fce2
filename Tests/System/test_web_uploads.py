"""Uploads through the web page (#36): a 1 GB file streamed to disk over connections cut at
random points (each resumed from kiosk's count; sha256 equal), by a raw client and by the page
itself in a real browser through a relay that cuts its connections; a file that is not media
refused with the reason, a disk without room refused before and while it fills, and an upload
through the page's own file input that lands in the playlist. kiosk plays on throughout.

Every wait is for an event, with a deadline meant for a hang."""
import hashlib
import json
import os
import random
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from control_client import wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from web_page import DEBIAN_PYTHON, REPO, TIMEOUT, Page, control, free_port, make_clip, running_kiosk

GB = 1 << 30


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def free_bytes(path: Path) -> int:
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


@pytest.fixture(scope="module")
def kiosk(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("uploads")
    clip = make_clip(directory / "clip.mp4", "testsrc2")
    # Over 1 GiB of real MPEG-TS in a few seconds: a short clip padded with null packets.
    big = directory / "big.ts"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "44",
                    "-c:v", "mpeg2video", "-f", "mpegts", "-muxrate", "200M", str(big)], check=True)
    assert big.stat().st_size > GB
    uploads = directory / "up"
    free = free_bytes(directory)
    if free < 3 * GB:
        pytest.fail(f"the test needs 3 GB free in {directory}, has {free}")
    # Room for the big upload and 0.4 GB more: the disk-full cases below use the rest.
    min_free = free - big.stat().st_size - 400 * (1 << 20)
    state = directory / "state"
    port = free_port()
    config = directory / "kiosk.conf"
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"items: [{clip}]\n"
                      f"web: {{listen: '127.0.0.1:{port}', page_file: {directory / 'page.yaml'}, upload_dir: {uploads}, "
                      f"upload_min_free: {min_free}}}\n")
    with running_kiosk(config, state, port) as (process, socket_path, log):
        yield {"page": Page(port), "state": state, "socket": socket_path, "directory": directory, "big": big, "uploads": uploads,
               "process": process, "log": log, "token": (state / "web-token").read_text().strip(), "min_free": min_free}


def api(kiosk, method, path, body=b"", headers=None):
    status, answer_headers, data = kiosk["page"].request(method, path, body,
                                                         {"Authorization": f"Bearer {kiosk['token']}", **(headers or {})})
    return status, json.loads(data) if data else None


def begin(kiosk, name, size):
    return api(kiosk, "POST", "/api/v1/uploads", json.dumps({"name": name, "size": size}).encode(),
               {"Content-Type": "application/json"})


def cut_patch(kiosk, upload_id, offset, source: Path, cut_after: int):
    """A PATCH announcing the rest of the file whose connection is closed after `cut_after` bytes."""
    size = source.stat().st_size
    with socket.create_connection(("127.0.0.1", kiosk["page"].port), timeout=TIMEOUT) as connection, open(source, "rb") as stream:
        connection.sendall((f"PATCH /api/v1/uploads/{upload_id} HTTP/1.1\r\nHost: 127.0.0.1:{kiosk['page'].port}\r\n"
                            f"Authorization: Bearer {kiosk['token']}\r\nUpload-Offset: {offset}\r\n"
                            f"Content-Length: {size - offset}\r\nConnection: close\r\n\r\n").encode())
        stream.seek(offset)
        left = cut_after
        try:
            while left > 0:
                block = stream.read(min(left, 1 << 20))
                connection.sendall(block)
                left -= len(block)
        except (BrokenPipeError, ConnectionResetError):
            # kiosk answered early: 409 while it still wrote what the last cut connection had
            # sent (its count moves on meanwhile), as a browser would be told to ask again.
            pass


def test_a_gigabyte_over_cut_connections_arrives_whole(kiosk):
    big = kiosk["big"]
    size = big.stat().st_size
    frames = control(kiosk, "get", "frames_presented")["data"]
    status, started = begin(kiosk, "../Big Show.ts", size)
    assert status == 201 and started["offset"] == 0, started
    upload_id = started["id"]
    generator = random.Random(36)
    offsets = []
    offset = 0

    def settled():
        """kiosk's count once no connection appends any more (a cut one's last bytes landed)."""
        assert wait_until(lambda: not api(kiosk, "GET", f"/api/v1/uploads/{upload_id}")[1]["busy"], timeout=TIMEOUT)
        status, where = api(kiosk, "GET", f"/api/v1/uploads/{upload_id}")
        assert status == 200
        return where["offset"]

    for _ in range(5):
        cut_patch(kiosk, upload_id, offset, big, generator.randrange(1, (size - offset) // 2))
        # kiosk's count after the cut: where the next piece goes.
        moved = settled()
        assert offset < moved < size
        offset = moved
        offsets.append(offset)
    # A piece sent from the wrong place is refused, with the right place.
    status, answer = api(kiosk, "PATCH", f"/api/v1/uploads/{upload_id}", b"xx", {"Upload-Offset": "1"})
    assert status == 409 and answer["offset"] >= offset
    # The rest, from kiosk's count.
    for _ in range(50):
        offset = settled()
        with open(big, "rb") as stream:
            stream.seek(offset)
            rest = stream.read()
        try:
            status, done = api(kiosk, "PATCH", f"/api/v1/uploads/{upload_id}", rest, {"Upload-Offset": str(offset)})
        except (BrokenPipeError, ConnectionResetError):
            continue   # answered 409 early, before the body was sent
        if status != 409:
            break
    assert status == 201 and done["done"] is True, done
    kept = Path(done["path"])
    assert kept == kiosk["uploads"] / "Big Show.ts"
    assert sha256(kept) == sha256(big)
    assert not [name for name in os.listdir(kiosk["uploads"]) if name.startswith(".upload-")]
    assert offsets == sorted(offsets) and len(set(offsets)) == 5
    assert control(kiosk, "get", "frames_presented")["data"] > frames
    kept.unlink()


class CuttingRelay:
    """A TCP relay between the browser and kiosk that closes, both ways, whichever connection is
    carrying the browser's bytes when their count passes each of `cuts`: an upload's piece cut
    mid-body, as a dropped Wi-Fi or a proxy's timeout would. `done`: the cuts made."""

    def __init__(self, target_port: int, cuts: list[int]):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.target_port, self.cuts, self.sent, self.done = target_port, sorted(cuts), 0, 0
        self.refused: list[str] = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError as error:
                # kiosk refused this one: the browser sees a dropped connection, and the relay
                # goes on accepting (an exception here would end this thread and the relay).
                self.refused.append(repr(error))
                client.close()
                continue
            threading.Thread(target=self.pump, args=(upstream, client, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(client, upstream, True), daemon=True).start()

    def pump(self, source, sink, counted):
        try:
            while data := source.recv(1 << 16):
                sink.sendall(data)
                if counted:
                    with self.lock:
                        self.sent += len(data)
                        cut = self.done < len(self.cuts) and self.sent >= self.cuts[self.done]
                        self.done += cut
                    if cut:
                        break
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def close(self):
        self.server.close()


def test_the_page_resumes_a_gigabyte_over_cut_connections(kiosk, tmp_path):
    if not all(Path(tool).exists() for tool in ("/usr/bin/chromium", "/usr/bin/chromedriver")):
        pytest.fail("chromium and chromium-driver are missing: run deploy/setup")
    # The same gigabyte under another name, sent by the page's own script in chromium through a
    # relay that cuts its connection at five seeded points of the way.
    source = tmp_path / "Browser Show.ts"
    os.link(kiosk["big"], source)
    size = source.stat().st_size
    generator = random.Random(3636)
    relay = CuttingRelay(kiosk["page"].port, [generator.randrange(16 << 20, size - (16 << 20)) for _ in range(5)])
    frames = control(kiosk, "get", "frames_presented")["data"]
    password = (kiosk["state"] / "web-password").read_text().strip()
    try:
        result = subprocess.run([DEBIAN_PYTHON, str(REPO / "Tests" / "System" / "web_browser_upload.py"),
                                 f"http://127.0.0.1:{relay.port}/", password, str(source), "--no-save"],
                                capture_output=True, text=True, timeout=900)
    finally:
        relay.close()
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert relay.done == 5, (f"the relay cut {relay.done} of 5 times: {relay.sent} bytes from the browser went "
                             f"through it, cuts at {relay.cuts}, the file {size} bytes; the page said {seen}; "
                             f"connections kiosk refused: {relay.refused}")
    assert seen["message"].startswith("Uploaded Browser Show.ts"), seen
    kept = kiosk["uploads"] / "Browser Show.ts"
    assert sha256(kept) == sha256(kiosk["big"])
    assert not partials(kiosk)
    # The same gigabyte again, with the first one kept: the disk has no room for it under
    # upload_min_free, and the page says so with the figures; nothing is written.
    before = set(os.listdir(kiosk["uploads"]))
    result = subprocess.run([DEBIAN_PYTHON, str(REPO / "Tests" / "System" / "web_browser_upload.py"),
                             f"http://127.0.0.1:{kiosk['page'].port}/", password, str(source), "--no-save"],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    refused = json.loads(result.stdout.strip().splitlines()[-1])["message"]
    assert refused.startswith("Not uploaded: the disk is too full: Browser Show.ts needs"), refused
    assert set(os.listdir(kiosk["uploads"])) == before
    assert control(kiosk, "get", "frames_presented")["data"] > frames, "kiosk played on"
    kept.unlink()


def partials(kiosk):
    # The folder appears with the first upload: none yet when this test runs alone (-k).
    if not kiosk["uploads"].exists():
        return set()
    return {name for name in os.listdir(kiosk["uploads"]) if name.startswith(".upload-")}


def test_what_is_not_media_is_refused_with_the_reason(kiosk):
    before = partials(kiosk)
    junk = random.Random(1).randbytes(200_000)
    status, started = begin(kiosk, "menu.mp4", len(junk))
    assert status == 201
    status, answer = api(kiosk, "PATCH", f"/api/v1/uploads/{started['id']}", junk, {"Upload-Offset": "0"})
    assert status == 422 and "not media kiosk can play: menu.mp4" in answer["error"], answer
    assert not (kiosk["uploads"] / "menu.mp4").exists()
    for name in ("evil.sh", "../", ".mp4"):
        status, answer = begin(kiosk, name, 10)
        assert status == 422 and "not a file name" in answer["error"], (name, answer)
    status, answer = begin(kiosk, "a.mp4", 0)
    assert status == 400
    # More bytes than announced.
    status, started = begin(kiosk, "short.mp4", 10)
    status, answer = api(kiosk, "PATCH", f"/api/v1/uploads/{started['id']}", b"x" * 1000, {"Upload-Offset": "0"})
    assert status == 413
    status, _ = api(kiosk, "DELETE", f"/api/v1/uploads/{started['id']}")
    assert status == 200
    assert partials(kiosk) <= before


def test_a_full_disk_is_refused_before_and_while_it_fills(kiosk):
    directory = kiosk["directory"]
    before = partials(kiosk)
    room = free_bytes(directory) - kiosk["min_free"]
    assert room > 64 << 20, room
    # Before: more than the room left.
    status, answer = begin(kiosk, "huge.mp4", room + (64 << 20))
    assert status == 507 and "the disk is too full" in answer["error"], answer
    # While: room when it began, then another writer takes it.
    size = room - (32 << 20)
    status, started = begin(kiosk, "filling.ts", size)
    assert status == 201, started
    filler = directory / "filler.bin"
    with open(filler, "wb") as stream:
        stream.truncate(0)
        block = b"\0" * (1 << 20)
        for _ in range(room // (1 << 20) - 16):
            stream.write(block)
        stream.flush()
        os.fsync(stream.fileno())
    try:
        status, answer = api(kiosk, "PATCH", f"/api/v1/uploads/{started['id']}", b"\0" * (48 << 20), {"Upload-Offset": "0"})
        assert status == 507 and "the disk filled" in answer["error"], (status, answer)
        assert partials(kiosk) <= before
    finally:
        filler.unlink()
    assert kiosk["process"].poll() is None
    frames = control(kiosk, "get", "frames_presented")["data"]
    assert wait_until(lambda: control(kiosk, "get", "frames_presented")["data"] > frames + 10, timeout=TIMEOUT)


def test_the_pages_file_input_uploads_into_the_playlist(kiosk, tmp_path):
    if not all(Path(tool).exists() for tool in ("/usr/bin/chromium", "/usr/bin/chromedriver")):
        pytest.fail("chromium and chromium-driver are missing: run deploy/setup")
    clip = make_clip(tmp_path / "Lobby Loop.mp4", "smptehdbars")
    password = (kiosk["state"] / "web-password").read_text().strip()
    result = subprocess.run([DEBIAN_PYTHON, str(REPO / "Tests" / "System" / "web_browser_upload.py"),
                             f"http://127.0.0.1:{kiosk['page'].port}/", password, str(clip)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    kept = kiosk["uploads"] / "Lobby Loop.mp4"
    assert seen["message"].startswith("Uploaded Lobby Loop.mp4")
    assert seen["playlist"][-1] == str(kept)
    assert sha256(kept) == sha256(clip)
    # Saved, it plays: the playlist has it.
    assert wait_until(lambda: control(kiosk, "get", "playlist_count")["data"] == 2, timeout=TIMEOUT)
