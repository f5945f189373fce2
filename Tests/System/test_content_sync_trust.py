"""Content sync's trust (issue 21): HTTPS verified against `ca_file` (a CA made with openssl,
another CA, the system store, a certificate not valid yet) and manifests signed in minisign's
format (by the minisign command and by `kiosk manifest --sign`), loopback only."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from content_sync_support import KIOSK, Box, Server, make_ca, make_manifest, make_server_cert, served, write_media


@pytest.fixture(autouse=True)
def built():
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")


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


def test_a_password_protected_minisign_key_signs_with_its_password_only(tmp_path):
    """minisign's default key (no -W) is encrypted: scrypt at 1 GiB, the password typed twice
    (here on standard input, which minisign reads when it is not a tty). kiosk takes the password
    from --password-file or $KIOSK_MINISIGN_PASSWORD; a wrong or missing one is one line naming
    the key file, and no signature is written."""
    keys = tmp_path / "keys"
    keys.mkdir()
    public, secret = keys / "p.pub", keys / "p.key"
    subprocess.run(["minisign", "-G", "-p", str(public), "-s", str(secret)], input="kiosk pass\nkiosk pass\n",
                   check=True, capture_output=True, text=True, timeout=120)
    root = tmp_path / "www"
    write_media(root / "media", {"a.mp4": 30_000})
    manifest = root / "manifest.json"

    def sign(*extra, env_password=None):
        env = {k: v for k, v in os.environ.items() if k != "KIOSK_MINISIGN_PASSWORD"}
        if env_password is not None:
            env["KIOSK_MINISIGN_PASSWORD"] = env_password
        return subprocess.run([str(KIOSK), "manifest", str(root / "media"), "--base-url", "http://127.0.0.1:1/media/",
                               "-o", str(manifest), "--sign", str(secret), *extra],
                              capture_output=True, text=True, env=env, timeout=120)

    (tmp_path / "right").write_text("kiosk pass\n")   # one line, as an editor saves it
    (tmp_path / "wrong").write_text("kiosk pas\n")
    refused = {"none": sign(), "wrong file": sign("--password-file", str(tmp_path / "wrong")),
               "wrong env": sign(env_password="Kiosk pass")}
    for case, result in refused.items():
        line = result.stderr.strip().removeprefix("kiosk: ")
        assert result.returncode != 0 and "\n" not in line and line.startswith(f"{secret}: "), (case, line)
        assert not (root / "manifest.json.minisig").exists(), case
    assert "encrypted with a password; give --password-file FILE or set KIOSK_MINISIGN_PASSWORD" in refused["none"].stderr
    assert f"wrong password (from --password-file {tmp_path / 'wrong'})" in refused["wrong file"].stderr
    assert "wrong password (from $KIOSK_MINISIGN_PASSWORD)" in refused["wrong env"].stderr
    for how in ({"extra": ["--password-file", str(tmp_path / "right")]}, {"env_password": "kiosk pass"}):
        result = sign(*how.get("extra", []), env_password=how.get("env_password"))
        assert result.returncode == 0, (how, result.stderr)
        subprocess.run(["minisign", "-V", "-p", str(public), "-m", str(manifest)], check=True, capture_output=True)
        (root / "manifest.json.minisig").unlink()


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


def test_a_clock_at_2001_is_named_when_tls_refuses_and_the_sync_finishes_once_it_is_set(tmp_path, pki):
    """faketime's LD_PRELOAD sets kiosk's clock to 2001 (a box without RTC or NTP yet): the
    certificate is not valid yet by that clock, and the line says it is the clock; with the
    clock right, the same store syncs."""
    server, box = https_box(tmp_path, pki, pki, pki / "ca.pem")
    with server:
        early = subprocess.run(["faketime", "2001-01-01 00:00:00", str(KIOSK), "sync", "--once", "--config", str(box.config)],
                               capture_output=True, text=True, timeout=60)
        later = box.sync()
    assert early.returncode == 1
    line = early.stderr.strip()
    print(line)
    assert "\n" not in line, line
    # The test CA's server certificate starts 2024-01-01 (make_server_cert).
    assert line.startswith(f"https://127.0.0.1:{server.port}/manifest.json: certificate valid from 2024-01-01, "), line
    assert line.endswith("clock says 2001-01-01; retrying when the clock is set; the current set plays on"), line
    assert later.returncode == 0 and later.report["outcome"] == "switched", later.stderr
