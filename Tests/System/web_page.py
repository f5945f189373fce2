"""The web page's tests' common parts (test_web_console, test_web_uploads, test_web_tls): a clip,
a free port, plain HTTP to the page as curl or an attacker's script would speak it, a headless
`kiosk run` until its page answers, and a request on its control socket."""
import contextlib
import http.client
import re
import socket
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

REPO = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = "/usr/bin/python3"
TIMEOUT = 60


def make_clip(path: Path, source: str):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"{source}=size=320x180:rate=25:duration=5",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Page:
    """Plain HTTP to the page, as curl or an attacker's script would speak it."""

    def __init__(self, port):
        self.port = port

    def request(self, method, path, body=b"", headers=None, host=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", host or f"127.0.0.1:{self.port}")
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body or method == "POST":
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body if body else None)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    @property
    def origin(self):
        return {"Origin": f"http://127.0.0.1:{self.port}"}

    def login(self, password):
        """A browser session: its cookie and the CSRF token of its page."""
        status, headers, _ = self.request("POST", "/login", urllib.parse.urlencode({"password": password}).encode(),
                                          {**self.origin, "Content-Type": "application/x-www-form-urlencoded"})
        assert status == 303, (status, headers)
        cookie = headers["Set-Cookie"].split(";")[0]
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        status, _, page = self.request("GET", "/", headers={"Cookie": cookie})
        assert status == 200
        csrf = re.search(rb'<meta name="csrf" content="([0-9a-f]{64})">', page).group(1).decode()
        return cookie, csrf


@contextlib.contextmanager
def running_kiosk(config: Path, state: Path, port: int):
    """`kiosk run` headless with `config`, until the page answers on `port`; stopped on exit.
    Yields the process, its control socket and its log."""
    socket_path = config.parent / "control.sock"
    log = config.parent / "log.txt"
    with open(log, "w") as stream:
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--display", "headless:320x180@25",
                                    "--state-dir", str(state), "--control-socket", str(socket_path)], stderr=stream)
    try:
        if not wait_until(lambda: socket_path.exists() and (state / "web-token").exists(), timeout=TIMEOUT):
            pytest.fail(f"kiosk did not start: {log.read_text()}")
        assert wait_until(lambda: answers(Page(port)), timeout=TIMEOUT), log.read_text()
        yield process, socket_path, log
    finally:
        process.terminate()
        process.wait(timeout=30)


def answers(page):
    """Whether the page is served yet (the password file is written just before it listens)."""
    try:
        return page.request("GET", "/login")[0] == 200
    except OSError:
        return False


def control(kiosk, *words):
    client = ControlClient(str(kiosk["socket"]))
    try:
        return client.command(*words)
    finally:
        client.close()
