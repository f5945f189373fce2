"""What the content sync tests share (test_content_sync.py, test_content_sync_trust.py,
test_content_sync_run.py): http_media_server.py as a child process, a kiosk.conf whose sync
section points at it, `kiosk sync --once --json`, a look at the store on disk, and a test CA
made with openssl (also for test_content_sync_clock.py in the VM bed)."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
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
        # A folder per file, named as it; `.order` lists them in the manifest's order.
        order = (current / ".order").read_text().splitlines()
        assert sorted(order) == sorted(p.name for p in current.iterdir() if p.is_dir()), order
        return [(file.name, file.read_bytes()) for slot in order for file in (current / slot).iterdir()]

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


def served(tmp_path, sizes, *flags):
    root = tmp_path / "www"
    write_media(root / "media", sizes)
    server = Server(root, *flags).__enter__()
    manifest = make_manifest(root, server.url("media/"))
    return root, server, manifest


def openssl(*args, cwd):
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, cwd=cwd)


def make_ca(folder: Path, name: str, days: int = 2):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem",
            "-days", str(days), "-subj", f"/CN={name}", cwd=folder)


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
