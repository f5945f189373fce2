"""The web page over HTTPS with the operator's certificate and key, and a password given as
kiosk.conf's Argon2id hash (`kiosk web-password`), not made by kiosk (#36)."""
import http.client
import ssl
import subprocess
import urllib.parse

import pytest

from control_client import wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from web_page import TIMEOUT, free_port, make_clip

PASSWORD = "correct horse battery staple"


def https(port, context, method, path, body=b"", headers=None):
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=TIMEOUT)
    try:
        connection.request(method, path, body=body, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_https_with_the_operators_certificate_and_a_hashed_password(tmp_path):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    made = subprocess.run([str(KIOSK), "web-password"], input=PASSWORD + "\n", capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    line = made.stdout.splitlines()[-1]
    assert line.startswith("  password_hash: '$argon2id$") and PASSWORD not in made.stdout
    short = subprocess.run([str(KIOSK), "web-password"], input="short\n", capture_output=True, text=True, timeout=60)
    assert short.returncode != 0 and "at least 8" in short.stderr
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tmp_path / "web.key"),
                    "-out", str(tmp_path / "web.crt"), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], check=True, capture_output=True)
    clip = make_clip(tmp_path / "clip.mp4", "testsrc2")
    port = free_port()
    config = tmp_path / "kiosk.conf"
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"items: [{clip}]\nweb:\n  listen: '127.0.0.1:{port}'\n  certificate: web.crt\n  key: web.key\n{line}\n")
    state = tmp_path / "state"
    log = tmp_path / "log.txt"
    context = ssl.create_default_context(cafile=str(tmp_path / "web.crt"))
    with open(log, "w") as stream:
        process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--display", "headless:320x180@25",
                                    "--state-dir", str(state), "--control-socket", "none"], stderr=stream)
    try:
        def served():
            try:
                return https(port, context, "GET", "/login")[0] == 200
            except OSError:
                return False

        assert wait_until(served, timeout=TIMEOUT), log.read_text()
        # No password was made: kiosk.conf's hash is the password.
        assert not (state / "web-password").exists()
        origin = {"Origin": f"https://127.0.0.1:{port}", "Content-Type": "application/x-www-form-urlencoded"}
        status, _, _ = https(port, context, "POST", "/login", urllib.parse.urlencode({"password": "wrong password"}).encode(), origin)
        assert status == 401
        status, headers, _ = https(port, context, "POST", "/login", urllib.parse.urlencode({"password": PASSWORD}).encode(), origin)
        assert status == 303
        assert "Secure" in headers["Set-Cookie"] and "HttpOnly" in headers["Set-Cookie"]
        cookie = headers["Set-Cookie"].split(";")[0]
        status, _, body = https(port, context, "GET", "/api/v1/status", headers={"Cookie": cookie})
        assert status == 200 and b'"online":true' in body
        # Plain HTTP on the HTTPS port gets no page.
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        with pytest.raises((http.client.HTTPException, OSError)):
            plain.request("GET", "/login", headers={"Host": f"127.0.0.1:{port}"})
            plain.getresponse().read()
        plain.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
