"""Runs `kiosk run` until what a test waits for has happened, then stops it with SIGTERM: no
fixed `--duration`, so a slow machine (CI, TCG) only takes longer, never cuts a run short."""
import json
import signal
import subprocess
import time
from pathlib import Path


def read_stats(path: Path):
    """The stats file's whole lines (the last may be half written while kiosk runs)."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return records


def run_until(argv, stats: Path, done, log: Path, timeout=180, started=None):
    """Starts `argv` (a `kiosk run` writing `stats`, its stderr to `log`) and stops it once
    `done(records, log_text)` holds; fails with the log's tail if kiosk exits first or the
    timeout passes. `started(process)`, if given, is called as soon as it runs (a sampler
    beside it). Returns (exit code, all records, log text)."""
    process = subprocess.Popen(argv, stderr=log.open("w"))
    if started:
        started(process)
    deadline = time.monotonic() + timeout
    try:
        while True:
            records, text = read_stats(stats), log.read_text()
            if done(records, text):
                break
            if process.poll() is not None:
                raise AssertionError(f"kiosk exited ({process.returncode}) before the test's event; {len(records)} flips; "
                                     f"{text[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no event in {timeout} s; {len(records)} flips; {text[-2000:]}")
            time.sleep(0.1)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    return process.returncode, read_stats(stats), log.read_text()


def since_first(records, item, seconds):
    """Whether `item` first flipped at least `seconds` ago (stats times are CLOCK_MONOTONIC,
    Python's time.monotonic)."""
    first = next((r["t"] for r in records if r["item"] == item), None)
    return first is not None and time.monotonic() - first >= seconds
