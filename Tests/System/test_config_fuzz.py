"""Config fuzzing through the binary (issue 7): a few hundred mutated kiosk.conf files through
`kiosk check` (exit 0 or 2 only, never a crash, every error as file:line:column), then invalid
ones written over the config of a running `kiosk run` and SIGHUP'd: it logs the errors and keeps
playing the old playlist; a valid file afterwards is taken. The parser itself gets thousands of
cases in-process (Tests/KioskCoreTests/ConfigFuzzTests.swift); this is the end-to-end part."""
import json
import os
import random
import re
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import hostile_corpus as corpus

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
CHECK_CASES = 300
RELOAD_CASES = 20

SMALL_VALID = [
    "items: [a.mp4, b.mkv]\n",
    "display:\n  output: headless\naudio:\n  volume: 80\nplayback:\n  loop: playlist\n  gravity: fill\n"
    "items:\n  - path: a.mp4\n    start: 0.2\n  - b.png\n",
]
ODD = ["\t", ":", "- ", "[", "]", "{", "}", "\"", "'", "&a ", "*a", "#", "? ", "|", "!!int ", "<<: ", "%", "@", "`",
       "\x00", "\x07", "\x1b", "\u00e9", "\u2028", "\U0001F3AC", "1e400", "-99999999999999999999999", ".nan"]
LAUGHS = "\n".join(["l0: &l0 [x.mp4]"] + [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10)])


def mutate(text: str, rng: random.Random) -> bytes:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines)) if lines else 0
        if not lines:
            lines = [""]
        op = rng.randrange(11)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            p = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:p] + rng.choice(ODD) + lines[i][p + 1:]
        elif op == 4:
            lines[i] = " " * rng.randint(1, 3) + lines[i] if rng.random() < 0.5 else lines[i].lstrip(" ")
        elif op == 5:
            lines[i] = "\t" + lines[i]
        elif op == 6:
            lines.insert(i, "items: " + "[" * 1200 + "]" * 1200)
        elif op == 7:
            lines.insert(i, LAUGHS + "\nitems: *l9")
        elif op == 8:
            lines.insert(i, "  - " + "y" * rng.choice([5000, 200_000]) + ".mp4")
        elif op == 9:
            p = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:p] + "".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(1, 8))) + lines[i][p:]
        else:
            del lines[i:]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:   # bytes that are not UTF-8
        p = rng.randint(0, len(data))
        data = data[:p] + rng.choice([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80"]) + data[p:]
    return data


def check(path: Path):
    result = subprocess.run([str(KIOSK), "check", str(path)], capture_output=True, timeout=60)
    return result.returncode, result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")


def test_mutated_configs_through_kiosk_check(tmp_path):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    rng = random.Random(20261122)
    seeds = [(REPO / "kiosk.conf").read_text()] + SMALL_VALID
    paths = []
    for number in range(CHECK_CASES):
        path = tmp_path / f"case-{number}.conf"
        path.write_bytes(mutate(seeds[number % len(seeds)], rng))
        paths.append(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(check, paths))
    problems, rejected = [], 0
    for path, (code, out, err) in zip(paths, results):
        if code not in (0, 2):
            problems.append(f"{path.name}: exit {code}\n{err[-500:]}")
            continue
        if code == 0:
            assert f"{path}: OK" in out, f"{path.name}: {out} {err[-300:]}"
            continue
        rejected += 1
        lines = [line for line in err.splitlines() if line.strip()]
        positioned = re.compile(rf"^{re.escape(str(path))}:\d+:\d+: \S")
        strays = [line for line in lines if not positioned.match(line)]
        if not lines or strays:
            problems.append(f"{path.name}: lines without file:line:column: {strays[:3] or 'no error printed'}")
    assert not problems, "\n".join(problems[:10])
    assert rejected > CHECK_CASES // 2, f"only {rejected} of {CHECK_CASES} mutated files were rejected"


def read_stats(stats: Path):
    if not stats.exists():
        return []
    return [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")]


def write_atomically(path: Path, data: bytes):
    temporary = path.with_name(path.name + ".new")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def test_invalid_reloads_keep_the_old_playlist(tmp_path):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    corpus.good_clip(tmp_path / "a.mp4", seconds=0.6, sound=False)
    corpus.good_clip(tmp_path / "b.mp4", seconds=0.6, sound=False, pattern="smptehdbars")
    valid = "playback:\n  loop: playlist\nitems:\n  - a.mp4\n  - b.mp4\n"
    config, stats = tmp_path / "kiosk.conf", tmp_path / "stats.jsonl"
    config.write_text(valid)
    # Invalid mutations of the running file (kiosk check says exit 2 for each).
    rng, invalid = random.Random(7), []
    while len(invalid) < RELOAD_CASES:
        candidate = tmp_path / "candidate.conf"
        candidate.write_bytes(mutate(valid, rng))
        if check(candidate)[0] == 2:
            invalid.append(candidate.read_bytes())
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(config), "--display", "headless:320x240",
                                "--audio", "none", "--stats-file", str(stats)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)
        before = len(read_stats(stats))
        assert before > 0, "nothing presented before the reloads"
        for data in invalid:
            write_atomically(config, data)
            process.send_signal(signal.SIGHUP)
            time.sleep(0.3)
            assert process.poll() is None, "kiosk ended during the invalid reloads"
        during = read_stats(stats)
        write_atomically(config, b"playback:\n  loop: playlist\nitems: [b.mp4, a.mp4, b.mp4]\n")
        process.send_signal(signal.SIGHUP)
        time.sleep(2.5)
        after = read_stats(stats)
    finally:
        _, err = corpus.stop(process)
    assert process.returncode == 0, err[-2000:]
    # While the bad files came in, the old two-item playlist played on without a pause.
    reload_window = during[before:]
    assert {r["item"] for r in reload_window} == {0, 1}, "the old playlist stopped during the invalid reloads"
    gaps = [b["t"] - a["t"] for a, b in zip(reload_window, reload_window[1:])]
    assert gaps and max(gaps) < 1.0, f"presentation stalled for {max(gaps):.2f} s during the reloads"
    rejected = err.count("not reloaded, the old configuration keeps playing")
    assert rejected >= RELOAD_CASES, f"{rejected} rejections logged for {RELOAD_CASES} invalid files:\n{err[-2000:]}"
    # Each rejection names the file with line:column.
    # (Each diagnostic is its own log line, after the logger's timestamp and label.)
    assert len(re.findall(rf"{re.escape(str(config))}:\d+:\d+: \S", err)) >= RELOAD_CASES
    # The valid file at the end is taken: its third item (there is no index 2 before) plays.
    assert f"{config}: reloaded" in err
    assert 2 in {r["item"] for r in after[len(during):]}, "the valid reload was not applied"
