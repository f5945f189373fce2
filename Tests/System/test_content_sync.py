"""Content sync (issue 21) on the host, loopback only: `kiosk manifest` makes the manifest,
http_media_server.py serves it (with ETags, dying mid-file, ignoring Range, HTML, 404), and
`kiosk sync --once --json` fetches into a store in tmp_path. Each case checks the store on disk
(which set `current` names, what objects/ and partial/ hold) and the one line on stderr."""
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KIOSK = REPO / ".build" / "debug" / "kiosk"
SERVER = Path(__file__).resolve().parent / "http_media_server.py"


class Server:
    """http_media_server.py serving `root` as a child process, with the given flags."""

    def __init__(self, root: Path, *flags, port=0):
        self.root, self.flags, self.port = root, [str(f) for f in flags], port

    def __enter__(self):
        if getattr(self, "process", None) is not None:
            return self   # started already (to learn its port for the manifest)
        self.process = subprocess.Popen([sys.executable, str(SERVER), str(self.root), str(self.port), *self.flags],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.process.stdout.readline())
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}"


class Box:
    """A kiosk.conf whose sync section points at a server, and its store."""

    def __init__(self, tmp_path: Path, manifest_url: str, **keys):
        self.store = tmp_path / "store"
        self.config = tmp_path / "kiosk.conf"
        lines = ["sync:", f"  manifest: {manifest_url}", f"  dir: {self.store}", "  min_free: 1M"]
        lines += [f"  {key}: {value}" for key, value in keys.items()]
        self.config.write_text("\n".join(lines + ["items:", "  - sync: true", ""]))

    def sync(self, *extra):
        started = time.monotonic()
        result = subprocess.run([str(KIOSK), "sync", "--once", "--json", "--config", str(self.config), *extra],
                                capture_output=True, text=True, timeout=60)
        result.seconds = time.monotonic() - started
        result.report = json.loads(result.stdout) if result.stdout.strip() else None
        return result

    def current(self):
        link = self.store / "current"
        return os.readlink(link) if link.is_symlink() else None

    def played(self):
        """The current set as the playlist lists it: (name, bytes) in order."""
        current = self.store / "current"
        return [(file.name, file.read_bytes()) for slot in sorted(current.iterdir()) for file in slot.iterdir()]

    def partials(self):
        folder = self.store / "partial"
        return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def write_media(folder: Path, sizes: dict):
    folder.mkdir(parents=True, exist_ok=True)
    for name, size in sizes.items():
        (folder / name).write_bytes(os.urandom(size))


def make_manifest(root: Path, base_url: str):
    subprocess.run([str(KIOSK), "manifest", str(root / "media"), "--base-url", base_url, "-o", str(root / "manifest.json")],
                   check=True, capture_output=True)
    return json.loads((root / "manifest.json").read_text())


@pytest.fixture(autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")


def served(tmp_path, sizes, *flags):
    root = tmp_path / "www"
    write_media(root / "media", sizes)
    server = Server(root, *flags).__enter__()
    manifest = make_manifest(root, server.url("media/"))
    return root, server, manifest


def test_first_sync_downloads_and_switches_then_304_does_no_work(tmp_path):
    root, server, manifest = served(tmp_path, {"b.mp4": 300_000, "a.mp4": 2_000_000, "c.png": 0}, "--etag")
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        first = box.sync()
        assert first.returncode == 0, first.stderr
        assert first.report["outcome"] == "switched"
        assert first.report["fetched_bytes"] == 2_300_000
        assert [name for name, _ in box.played()] == ["a.mp4", "b.mp4", "c.png"]   # manifest order
        for name, data in box.played():
            assert data == (root / "media" / name).read_bytes()
        assert box.partials() == []
        assert "switched to set" in first.stderr and first.stderr.count("\n") == 1
        second = box.sync()
        assert second.returncode == 0, second.stderr
        assert second.report["outcome"] == "unchanged" and second.report["fetched_bytes"] == 0
        assert second.stderr == ""
        print(f"first sync of 3 files, 2.3 MB: {first.seconds:.2f} s; 304 pass: {second.seconds:.2f} s")


def test_server_killed_mid_file_is_resumed_with_few_bytes_fetched_again(tmp_path):
    size = 8_000_000
    root = tmp_path / "www"
    write_media(root / "media", {"big.mp4": size})
    with Server(root, "--etag") as probe:
        port = probe.port
    manifest = make_manifest(root, f"http://127.0.0.1:{port}/media/")
    manifest_bytes = (root / "manifest.json").stat().st_size
    box = Box(tmp_path, f"http://127.0.0.1:{port}/manifest.json")
    cut = 3_000_000
    with Server(root, "--etag", "--die-after", manifest_bytes + cut, port=port):
        first = box.sync()
    assert first.returncode == 1
    assert "big.mp4" in first.stderr and "resumed next time" in first.stderr
    assert box.current() is None
    held = (box.store / "partial" / manifest["files"][0]["sha256"]).stat().st_size
    assert 0 < held <= cut
    with Server(root, "--etag", port=port):
        second = box.sync()
    assert second.returncode == 0, second.stderr
    assert second.report["outcome"] == "switched"
    assert box.played() == [("big.mp4", (root / "media" / "big.mp4").read_bytes())]
    refetched = second.report["fetched_bytes"] - (size - held)
    assert second.report["fetched_bytes"] == size - held   # exactly the rest: nothing fetched twice
    print(f"killed after {held} of {size} bytes; the resume fetched {second.report['fetched_bytes']} "
          f"({refetched} bytes again)")


def test_a_file_changed_before_the_resume_is_fetched_whole(tmp_path):
    root = tmp_path / "www"
    write_media(root / "media", {"clip.mp4": 2_000_000})
    with Server(root, "--etag") as probe:
        port = probe.port
    make_manifest(root, f"http://127.0.0.1:{port}/media/")
    box = Box(tmp_path, f"http://127.0.0.1:{port}/manifest.json")
    with Server(root, "--etag", "--die-after", (root / "manifest.json").stat().st_size + 500_000, port=port):
        assert box.sync().returncode == 1
    write_media(root / "media", {"clip.mp4": 2_000_000})   # new bytes, new ETag, new manifest
    make_manifest(root, f"http://127.0.0.1:{port}/media/")
    with Server(root, "--etag", port=port):
        result = box.sync()
    assert result.returncode == 0, result.stderr
    assert result.report["fetched_bytes"] == 2_000_000   # If-Range did not match: 200, from 0
    assert box.played() == [("clip.mp4", (root / "media" / "clip.mp4").read_bytes())]


def test_a_server_that_ignores_range_restarts_the_file(tmp_path):
    root, server, manifest = served(tmp_path, {"a.mp4": 1_000_000}, "--etag", "--ignore-range")
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        sha = manifest["files"][0]["sha256"]
        (box.store / "partial").mkdir(parents=True)
        (box.store / "partial" / sha).write_bytes(b"x" * 400_000)          # a partial of other bytes
        (box.store / "partial" / (sha + ".validator")).write_text('"stale"\n')
        result = box.sync()
    assert result.returncode == 0, result.stderr
    assert result.report["fetched_bytes"] == 1_000_000
    assert box.played()[0][1] == (root / "media" / "a.mp4").read_bytes()


def test_hash_mismatch_is_fetched_three_times_then_no_switch(tmp_path):
    root, server, manifest = served(tmp_path, {"good.mp4": 1000, "bad.mp4": 1000})
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        manifest["files"][0]["sha256"] = "0" * 64
        (root / "manifest.json").write_text(json.dumps(manifest))
        result = box.sync()
    assert result.returncode == 1
    lines = result.stderr.strip().split("\n")
    mismatches = [line for line in lines if "bad.mp4: sha256 is" in line]
    assert len(mismatches) == 4, result.stderr   # 3 attempts, then the pass's own line
    assert mismatches[0].endswith("; fetching it again")
    assert "not switching until the manifest changes" in mismatches[2]
    assert box.current() is None
    assert box.partials() == []   # bytes that hashed wrong are not kept


def test_bad_manifest_is_one_line_with_its_place_and_the_old_set_plays_on(tmp_path):
    root, server, manifest = served(tmp_path, {"a.mp4": 1000})
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        assert box.sync().returncode == 0
        before = box.current()
        text = (root / "manifest.json").read_text().replace(manifest["files"][0]["sha256"], "abc123")
        (root / "manifest.json").write_text(text)
        result = box.sync()
    assert result.returncode == 1
    line = result.stderr.strip()
    assert "\n" not in line
    assert line.startswith(server.url("manifest.json") + ":2:"), line
    assert "sha256 must be 64 hex digits; the current set plays on" in line
    assert box.current() == before and box.played()[0][0] == "a.mp4"


@pytest.mark.parametrize("bad_name", ["../evil.mp4", "..", "sub/clip.mp4"])
def test_names_that_leave_the_set_are_refused(tmp_path, bad_name):
    root, server, manifest = served(tmp_path, {"a.mp4": 1000})
    with server:
        manifest["files"][0]["name"] = bad_name
        (root / "manifest.json").write_text(json.dumps(manifest))
        box = Box(tmp_path, server.url("manifest.json"))
        result = box.sync()
    assert result.returncode == 1
    assert f"name '{bad_name}'" in result.stderr and result.stderr.count("\n") == 1
    assert box.current() is None and not (tmp_path / "evil.mp4").exists()
    assert not (box.store / "objects").exists() or not any((box.store / "objects").iterdir())


def test_404_and_html_are_one_line_each_and_nothing_switches(tmp_path):
    root, server, manifest = served(tmp_path, {"a.mp4": 5000, "page.mp4": 7000}, "--html", "page.mp4")
    with server:
        manifest["files"][0]["url"] = server.url("media/gone.mp4")
        (root / "manifest.json").write_text(json.dumps(manifest))
        box = Box(tmp_path, server.url("manifest.json"))
        result = box.sync()
    assert result.returncode == 1
    assert f"{server.url('media/gone.mp4')}: HTTP 404" in result.stderr
    assert f"{server.url('media/page.mp4')}: got text/html, not 7000 bytes" in result.stderr
    assert box.current() is None


def test_a_manifest_that_is_not_there_is_one_line(tmp_path):
    root, server, _ = served(tmp_path, {"a.mp4": 10})
    with server:
        box = Box(tmp_path, server.url("nothing.json"))
        result = box.sync()
    assert result.returncode == 1
    assert result.stderr.strip() == f"{server.url('nothing.json')}: HTTP 404; the current set plays on"


def test_no_space_is_said_before_any_byte_is_fetched(tmp_path):
    root, server, _ = served(tmp_path, {"a.mp4": 100_000})
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        box.config.write_text(box.config.read_text().replace("min_free: 1M", "min_free: 4000G"))
        result = box.sync()
    assert result.returncode == 1
    assert "need " in result.stderr and " more, " in result.stderr and " free (" in result.stderr
    assert "nothing fetched" in result.stderr
    assert box.partials() == [] and box.current() is None


def test_dry_run_says_what_would_be_fetched(tmp_path):
    root, server, _ = served(tmp_path, {"a.mp4": 4000, "b.mp4": 6000})
    with server:
        box = Box(tmp_path, server.url("manifest.json"))
        result = subprocess.run([str(KIOSK), "sync", "--dry-run", "--json", "--config", str(box.config)],
                                capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["outcome"] == "planned" and report["bytes_to_fetch"] == 10_000
    assert [f["name"] for f in report["files_to_fetch"]] == ["a.mp4", "b.mp4"]
    assert box.current() is None


def test_a_changed_file_fetches_only_it(tmp_path):
    root, server, _ = served(tmp_path, {f"clip{i}.mp4": 50_000 for i in range(20)}, "--etag")
    with server:
        box = Box(tmp_path, server.url("manifest.json"), parallel=4)
        assert box.sync().report["fetched_bytes"] == 20 * 50_000
        (root / "media" / "clip7.mp4").write_bytes(os.urandom(60_000))
        make_manifest(root, server.url("media/"))
        result = box.sync()
    assert result.report["outcome"] == "switched"
    assert result.report["fetched_bytes"] == 60_000
    assert len(list((box.store / "objects").iterdir())) == 20   # the old clip7 is gone
    assert len(list((box.store / "sets").iterdir())) == 1


def make_clip(path: Path, seconds: float, pattern: str):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"{pattern}=size=160x120:rate=25:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)


def test_kiosk_run_plays_the_set_and_sync_now_switches_to_a_new_one(tmp_path):
    """`kiosk run` with `- sync: true`: the first pass's set plays; a new manifest and `sync_now`
    bring the new file into the playlist through the reload path, without a restart."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from control_client import ControlClient
    root = tmp_path / "www"
    (root / "media").mkdir(parents=True)
    make_clip(root / "media" / "a.mp4", 1.0, "testsrc2")
    make_clip(tmp_path / "b.mp4", 1.0, "smptebars")
    with Server(root, "--etag") as server:
        make_manifest(root, server.url("media/"))
        box = Box(tmp_path, server.url("manifest.json"), interval=600)
        control = tmp_path / "ctl.sock"
        box.config.write_text("input: {enabled: false}\nplayback: {loop: playlist}\n" + box.config.read_text())
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(box.config), "--display", "headless:320x240",
                                    "--audio", "none", "--control-socket", str(control), "--duration", "40"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 20
            while not control.exists():
                assert process.poll() is None and time.monotonic() < deadline, "no control socket"
                time.sleep(0.05)
            client = ControlClient(control, timeout=10)
            client.ok("observe", "status")
            deadline = time.monotonic() + 20
            while client.ok("get", "sync")["state"] != "switched":
                assert time.monotonic() < deadline, client.ok("get", "sync")
                time.sleep(0.1)
            client.wait_for_event(lambda e: e.get("event") == "item_started" and e.get("path") == "a.mp4", timeout=15)
            status = client.ok("get", "sync")
            assert status["files_total"] == 1 and status["next_check"] is not None
            (root / "media" / "b.mp4").write_bytes((tmp_path / "b.mp4").read_bytes())
            make_manifest(root, server.url("media/"))
            asked = time.monotonic()
            client.ok("sync_now")
            client.wait_for_event(lambda e: e.get("event") == "item_started" and e.get("path") == "b.mp4", timeout=15)
            seconds = time.monotonic() - asked
            assert client.ok("get", "sync")["files_total"] == 2
            assert client.ok("get", "playlist_count") == 2
            print(f"sync_now to the new file on screen: {seconds:.2f} s")
            client.close()
        finally:
            process.terminate()
            output = process.communicate(timeout=20)[0]
    assert "content sync: switched to set" in output, output


def test_max_rate_holds_the_download_back(tmp_path):
    root, server, _ = served(tmp_path, {"a.mp4": 3_000_000})
    with server:
        box = Box(tmp_path, server.url("manifest.json"), max_rate="1M", parallel=1)
        result = box.sync()
    assert result.returncode == 0, result.stderr
    rate = result.report["fetched_bytes"] / result.report["seconds"]
    print(f"max_rate 1M (1048576 B/s): {rate:.0f} B/s over {result.report['seconds']:.2f} s")
    assert result.report["seconds"] >= 3_000_000 / 1_048_576 * 0.9
    assert rate <= 1_048_576 * 1.1


def openssl(*args, cwd):
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, cwd=cwd)


def make_ca(folder: Path, name: str):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem",
            "-days", "2", "-subj", f"/CN={name}", cwd=folder)


def make_server_cert(folder: Path, ca: str, start: str, end: str):
    """A certificate for 127.0.0.1 signed by `ca`, valid from `start` to `end` (YYYYMMDDHHMMSSZ):
    `openssl ca`, since `openssl x509` of OpenSSL 3.0 cannot set a start date."""
    (folder / "db").mkdir(exist_ok=True)
    (folder / "db" / "index.txt").write_text("")
    (folder / "ca.cnf").write_text(f"""[ca]
default_ca = test
[test]
database = db/index.txt
new_certs_dir = db
serial = db/serial
default_md = sha256
policy = anything
copy_extensions = copy
unique_subject = no
[anything]
commonName = supplied
""")
    (folder / "db" / "serial").write_text("1000\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", cwd=folder)
    openssl("ca", "-batch", "-config", "ca.cnf", "-cert", f"{ca}.pem", "-keyfile", f"{ca}.key", "-in", "server.csr",
            "-out", "server.pem", "-startdate", start, "-enddate", end, cwd=folder)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pki")
    make_ca(folder, "ca")
    make_ca(folder, "other-ca")
    make_server_cert(folder, "ca", "20240101000000Z", "20991231000000Z")
    future = folder / "future"
    future.mkdir()
    for name in ("ca.pem", "ca.key"):
        (future / name).write_bytes((folder / name).read_bytes())
    make_server_cert(future, "ca", "20900101000000Z", "20991231000000Z")
    return folder


def https_box(tmp_path, pki, cert_folder, ca_file):
    root = tmp_path / "www"
    write_media(root / "media", {"a.mp4": 20_000})
    server = Server(root, "--tls", cert_folder / "server.pem", cert_folder / "server.key").__enter__()
    base = f"https://127.0.0.1:{server.port}/"
    make_manifest(root, base + "media/")
    return server, Box(tmp_path, base + "manifest.json", ca_file=ca_file)


def test_https_with_the_right_ca_file_syncs(tmp_path, pki):
    server, box = https_box(tmp_path, pki, pki, pki / "ca.pem")
    with server:
        result = box.sync()
    assert result.returncode == 0, result.stderr
    assert result.report["outcome"] == "switched"


@pytest.mark.parametrize("ca", ["other-ca.pem", "system"])
def test_https_with_a_certificate_not_trusted_is_one_line(tmp_path, pki, ca):
    server, box = https_box(tmp_path, pki, pki, pki / ca if ca != "system" else "system")
    with server:
        result = box.sync()
    assert result.returncode == 1
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith(f"https://127.0.0.1:{server.port}/manifest.json: "), line
    assert "certificate" in line and box.current() is None


def test_a_certificate_not_yet_valid_is_refused(tmp_path, pki):
    server, box = https_box(tmp_path, pki, pki / "future", pki / "ca.pem")
    with server:
        result = box.sync()
    assert result.returncode == 1
    assert "certificate is not yet valid" in result.stderr, result.stderr
    assert box.current() is None


def minisign_keys(folder: Path, name: str):
    subprocess.run(["minisign", "-G", "-W", "-p", str(folder / f"{name}.pub"), "-s", str(folder / f"{name}.key")],
                   check=True, capture_output=True)
    return folder / f"{name}.pub", folder / f"{name}.key"


def signed_box(tmp_path, key_name="k"):
    keys = tmp_path / "keys"
    keys.mkdir(exist_ok=True)
    public, secret = minisign_keys(keys, key_name)
    root = tmp_path / "www"
    write_media(root / "media", {"a.mp4": 30_000})
    server = Server(root).__enter__()
    return root, server, public, secret


def test_a_manifest_signed_by_minisign_is_taken(tmp_path):
    root, server, public, secret = signed_box(tmp_path)
    with server:
        make_manifest(root, server.url("media/"))
        subprocess.run(["minisign", "-S", "-W", "-s", str(secret), "-m", str(root / "manifest.json")], check=True,
                       capture_output=True)
        box = Box(tmp_path, server.url("manifest.json"), public_key=public)
        result = box.sync()
    assert result.returncode == 0, result.stderr
    assert result.report["outcome"] == "switched"


def test_kiosk_manifest_sign_is_checked_by_minisign_and_by_kiosk(tmp_path):
    root, server, public, secret = signed_box(tmp_path)
    with server:
        subprocess.run([str(KIOSK), "manifest", str(root / "media"), "--base-url", server.url("media/"),
                        "-o", str(root / "manifest.json"), "--sign", str(secret)], check=True, capture_output=True)
        subprocess.run(["minisign", "-V", "-p", str(public), "-m", str(root / "manifest.json")], check=True,
                       capture_output=True)
        key_text = public.read_text().split("\n")[1]
        box = Box(tmp_path, server.url("manifest.json"), public_key=key_text)
        result = box.sync()
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("case", ["changed after signing", "no signature", "another key"])
def test_a_manifest_not_signed_with_the_key_is_refused_in_one_line(tmp_path, case):
    root, server, public, secret = signed_box(tmp_path)
    with server:
        sign = ["--sign", str(secret)] if case != "no signature" else []
        if case == "another key":
            sign = ["--sign", str(minisign_keys(tmp_path / "keys", "other")[1])]
        subprocess.run([str(KIOSK), "manifest", str(root / "media"), "--base-url", server.url("media/"),
                        "-o", str(root / "manifest.json"), *sign], check=True, capture_output=True)
        if case == "changed after signing":
            manifest = root / "manifest.json"
            manifest.write_text(manifest.read_text().replace("a.mp4\"", "b.mp4\"", 1))
        box = Box(tmp_path, server.url("manifest.json"), public_key=public)
        result = box.sync()
    assert result.returncode == 1
    line = result.stderr.strip()
    assert "\n" not in line, line
    expected = {"changed after signing": "the signature does not match the manifest",
                "no signature": ".minisig: HTTP 404; a manifest without its signature is refused",
                "another key": "signed with key "}[case]
    assert expected in line and server.url("manifest.json") in line, line
    assert box.current() is None
    assert not (box.store / "objects").exists() or not any((box.store / "objects").iterdir())
