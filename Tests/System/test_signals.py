"""Signals on the host, headless (issue 7, "Signals"): a stop at any moment of a `kiosk run`
is clean. SIGTERM or SIGINT right after start (while the config is read and the display
opened), at random early moments, and while playing: exit code 0, nothing on stderr that
looks like a crash. SIGHUP before the session exists is ignored, not fatal.

"After start" means once kiosk's main has run its first statement, which blocks the three
signals (SignalHub.swift); the test waits for that in /proc/PID/status (SigBlk). Before it
only the dynamic loader runs (~0.3 s for the debug build on a busy machine): no program can
handle a signal then, and nothing has been opened that would need restoring.

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from seam_clips import make_clip

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
CRASH_WORDS = ("Fatal error", "Segmentation", "Illegal instruction", "Trace/breakpoint", "Abort", "SIGSEGV")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("signals")
    clip = make_clip(directory, "clip.mp4", "160x120", 25, 1, sound=False)
    path = directory / "kiosk.conf"
    path.write_text(f"""display:
  output: headless
  headless_size: 320x240
audio:
  device: none
input:
  enabled: false
items:
  - {clip}
""")
    return path


def blocked_signals(pid):
    """The SigBlk mask of the process's main thread, or 0 while it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigBlk:"):
                return int(line.split()[1], 16)
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def start(config, *extra):
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    term_bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + 30
    while not blocked_signals(process.pid) & term_bit:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "kiosk never reached main"
        time.sleep(0.001)
    return process


def stop(process, number, delay):
    time.sleep(delay)
    process.send_signal(number)
    try:
        _, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"kiosk did not end within 20 s of signal {number} sent {delay:.3f} s after start")
    return process.returncode, stderr


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_stop_right_after_start(config, number):
    returncode, stderr = stop(start(config), number, 0)
    assert returncode == 0, stderr
    assert not any(word in stderr for word in CRASH_WORDS), stderr


def test_stop_at_random_early_moments(config):
    # Seeded: a failure names its delay and can be run again.
    generator = random.Random(7)
    delays = [0.0, 0.002, 0.01] + [round(generator.uniform(0, 1.5), 3) for _ in range(9)]
    failures = []
    for delay in delays:
        returncode, stderr = stop(start(config), signal.SIGTERM, delay)
        if returncode != 0 or any(word in stderr for word in CRASH_WORDS):
            failures.append((delay, returncode, stderr[-500:]))
    assert not failures, failures


def test_hangup_before_playing_is_not_fatal(config):
    process = start(config)
    process.send_signal(signal.SIGHUP)
    returncode, stderr = stop(process, signal.SIGTERM, 1.0)
    assert returncode == 0, stderr


def test_stop_while_playing_within_a_second(config, tmp_path):
    stats = tmp_path / "stats.jsonl"
    process = start(config, "--stats-file", str(stats))
    deadline = time.monotonic() + 30
    while not (stats.exists() and stats.stat().st_size > 0):
        assert time.monotonic() < deadline and process.poll() is None, "no frame presented"
        time.sleep(0.02)
    sent = time.monotonic()
    returncode, stderr = stop(process, signal.SIGTERM, 0)
    took = time.monotonic() - sent
    print(f"exit {took * 1000:.0f} ms after SIGTERM")
    # Issue 3's bound, timed here on the host: the VM bed's emulated guest can be starved for
    # seconds by a busy host, so test_play.py checks only the exit status and the restored
    # console there. On this machine the exit takes tens of milliseconds.
    assert took < 1.0, f"exit took {took:.2f} s after SIGTERM"
    assert returncode == 0, stderr


def test_other_commands_still_end_on_sigterm(tmp_path):
    """Commands that do not play keep the usual meaning of a stop: the process ends, 128 + n."""
    clip = tmp_path / "long.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=320x240:rate=25:duration=180",
                    "-c:v", "libx264", "-preset", "ultrafast", str(clip)], check=True)
    process = subprocess.Popen([str(KIOSK), "bench", str(clip)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not blocked_signals(process.pid) & (1 << (signal.SIGTERM - 1)):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.001)
    time.sleep(0.3)
    # Still running: a bench that ran through its clip (a fast machine, an optimised build)
    # would say nothing of the signal. 4,500 frames: seconds even for the release build.
    assert process.poll() is None, "the bench ended before the signal came: the clip is too short for this machine"
    returncode, _ = stop(process, signal.SIGTERM, 0)
    assert returncode == 128 + signal.SIGTERM
