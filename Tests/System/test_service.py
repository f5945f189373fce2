"""deploy/kiosk.service (issue 7, "Boot service"), checked on the host without booting systemd:

- `systemd-analyze security --offline=true`: overall exposure <= 2.0;
- `systemd-analyze verify` (ExecStart pointed at the built kiosk, since nothing is installed);
- the unit's sandbox fits what kiosk really does: every system call of a headless `kiosk run`
  with sound (ALSA's null device) and sd_notify, traced with strace, is in the unit's
  SystemCallFilter, and every socket family it opens is in RestrictAddressFamilies;
- MemoryDenyWriteExecute: kiosk plays under the kernel's equivalent (prctl PR_SET_MDWE,
  inherited across exec) - the Swift runtime, FFmpeg and ALSA map nothing writable+executable;
- Type=notify against a stand-in for systemd's $NOTIFY_SOCKET: READY=1 once a frame is on
  screen, STATUS= lines, WATCHDOG=1 pings, STOPPING=1 and exit 0 on SIGTERM.

Needs a kiosk build (`swift build`; built_kiosk.py), strace and systemd-analyze (deploy/packages.txt).
"""
import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import time
from functools import lru_cache
from pathlib import Path

import pytest
from seam_clips import make_clip

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
UNIT = REPO / "deploy" / "kiosk.service"


def unit_settings(name):
    return [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith(name + "=")]


@lru_cache(maxsize=None)
def syscall_group(name):
    """The system calls of a systemd syscall group (`systemd-analyze syscall-filter @name`)."""
    out = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True,
                         check=True).stdout
    calls = set()
    for line in out.splitlines()[1:]:
        word = line.strip().split(" ")[0] if line.strip() else ""
        if word.startswith("@"):
            calls |= syscall_group(word)
        elif re.fullmatch(r"[a-z0-9_]+", word):
            calls.add(word)
    return frozenset(calls)


def allowed_syscalls():
    """SystemCallFilter= lines in order: an allow list, then `~` lines taking calls away."""
    allowed = set()
    for value in unit_settings("SystemCallFilter"):
        deny = value.startswith("~")
        names = set()
        for word in value.lstrip("~").split():
            names |= syscall_group(word) if word.startswith("@") else {word}
        allowed = allowed - names if deny else allowed | names
    return allowed


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("service")
    clip = make_clip(directory, "av.mp4", "160x120", 25, 1, sound=True)
    config = directory / "kiosk.conf"
    config.write_text(f"""display:
  output: headless
  headless_size: 320x240
audio:
  device: "null"
input:
  enabled: false
items:
  - {clip}
""")
    return directory, config


def test_exposure_is_at_most_two():
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", str(UNIT)],
                            capture_output=True, text=True)
    match = re.search(r"Overall exposure level for kiosk\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout[-2000:] + result.stderr
    assert float(match.group(1)) <= 2.0, result.stdout


def test_unit_verifies(tmp_path):
    unit = tmp_path / "kiosk.service"
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/kiosk", str(KIOSK)))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "kiosk.service" not in result.stderr, result.stderr


def test_the_sandbox_allows_what_kiosk_does(media, tmp_path):
    directory, config = media
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify.sock"))
    trace = tmp_path / "trace"
    environment = dict(os.environ, NOTIFY_SOCKET=str(tmp_path / "notify.sock"))
    result = subprocess.run(["strace", "-f", "-qq", "-o", str(trace), str(KIOSK), "run", "--config", str(config),
                             "--duration", "2"], env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    text = trace.read_text()
    used = set(re.findall(r"^\d+\s+([a-z0-9_]+)\(", text, re.M))
    # execve is strace starting kiosk (systemd execs it before the filter applies).
    assert used - allowed_syscalls() == set(), "system calls the unit's SystemCallFilter refuses"
    families = set(re.findall(r"socket\((AF_[A-Z0-9]+)", text))
    assert "AF_UNIX" in families, "sd_notify was not traced"
    allowed_families = set(" ".join(unit_settings("RestrictAddressFamilies")).split())
    assert families <= allowed_families


def test_kiosk_plays_without_writable_executable_memory(media, tmp_path):
    directory, config = media
    stats = tmp_path / "stats.jsonl"
    pr_set_mdwe, pr_mdwe_refuse_exec_gain = 65, 1

    def refuse_write_execute():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(pr_set_mdwe, pr_mdwe_refuse_exec_gain, 0, 0, 0) != 0:
            os._exit(99)   # this kernel has no PR_SET_MDWE (Linux < 6.3)

    result = subprocess.run([str(KIOSK), "run", "--config", str(config), "--duration", "2",
                             "--stats-file", str(stats)], preexec_fn=refuse_write_execute,
                            capture_output=True, text=True, timeout=120)
    if result.returncode == 99:
        pytest.skip("the kernel has no PR_SET_MDWE")
    assert result.returncode == 0, result.stderr
    assert len(stats.read_text().splitlines()) >= 10, "frames were presented"


def test_notify_protocol(media, tmp_path):
    directory, config = media
    path = tmp_path / "notify.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.settimeout(30)
    stats = tmp_path / "stats.jsonl"
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--stats-file", str(stats)],
                               env=dict(os.environ, NOTIFY_SOCKET=str(path), WATCHDOG_USEC="4000000"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # $WATCHDOG_PID is unset: libsystemd then takes the watchdog as meant for kiosk.
    messages, ready_at = [], None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sum("WATCHDOG=1" in m for m in messages) < 4:
            message = listener.recv(4096).decode()
            if "READY=1" in message and ready_at is None:
                ready_at = time.monotonic()   # CLOCK_MONOTONIC, the clock of the stats' flip times
            messages.append(message)
        process.send_signal(signal.SIGTERM)
        while not any("STOPPING=1" in m for m in messages):
            messages.append(listener.recv(4096).decode())
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr
    text = "\n".join(messages)
    assert text.count("READY=1") == 1
    first_flip = json.loads(stats.read_text().splitlines()[0])["t"]
    assert ready_at is not None and first_flip <= ready_at, "READY=1 before the first frame"
    assert "STATUS=playing item 0: av.mp4" in text
    assert "STATUS=stopping" in text
    assert text.index("READY=1") < text.index("STOPPING=1")
