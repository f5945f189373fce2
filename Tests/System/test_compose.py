"""`kiosk compose` end to end on the host, through the built binary (issue 17, "Merging clips").

Clips made with ffmpeg at test time (different sizes, a rotation tag, 25/30 fps, with and without
sound). Checked: the output's length is the clips' sum and it decodes; the progress line; a bad
input is one line, exit 1 and leaves nothing; SIGTERM or SIGINT in the middle of a long compose
(waited for by the progress line and the temporary file, not by time) leaves neither the output
nor its temporary file, with exit 128 + the signal. The pixel checks are in
Tests/kioskCLITests/ComposeCommandTests.swift. Needs a kiosk build: `swift build` first.
"""
from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
# For a hang, not a speed: the debug build on a busy 2-core machine.
TIMEOUT = 300


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def probe(path: Path) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type,width,height",
                          "-of", "json", str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    d = tmp_path_factory.mktemp("compose-clips")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
           "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", "2", str(d / "a.mp4"))
    ffmpeg("-f", "lavfi", "-i", "smptehdbars=size=640x360:rate=30:duration=1.5", "-pix_fmt", "yuv420p",
           "-c:v", "libx264", "-preset", "ultrafast", str(d / "b-plain.mp4"))
    # A phone's rotation tag: ffmpeg 5.1 makes it from `rotate` metadata, 6.0 on from -display_rotation.
    help_text = subprocess.run(["ffmpeg", "-hide_banner", "-h", "long"], capture_output=True, text=True).stdout
    if "-display_rotation" in help_text:
        ffmpeg("-display_rotation:v:0", "90", "-i", str(d / "b-plain.mp4"), "-c", "copy", str(d / "b.mp4"))
    else:
        ffmpeg("-i", str(d / "b-plain.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", str(d / "b.mp4"))
    # Long enough that a stop surely comes in the middle: 40 s to encode at 1280x720.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25:duration=40", "-pix_fmt", "yuv420p",
           "-c:v", "libx264", "-preset", "ultrafast", str(d / "long.mp4"))
    return d


def test_three_clips_make_one_file_of_their_length(clips, tmp_path):
    out = tmp_path / "out.mp4"
    result = subprocess.run([str(KIOSK), "compose", str(clips / "a.mp4"), str(clips / "b.mp4"), str(clips / "a.mp4"),
                             "--size", "640x480", "-o", str(out)], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    # Not a terminal: one progress line each time, the last at 100%.
    progress = [line for line in result.stderr.splitlines() if line.startswith("compose: ")]
    assert progress and progress[-1].endswith("(100%)"), result.stderr
    info = probe(out)
    assert abs(float(info["format"]["duration"]) - 5.5) < 0.1, info
    video = [s for s in info["streams"] if s["codec_type"] == "video"][0]
    assert (video["width"], video["height"]) == (640, 480)
    assert [s["codec_type"] for s in info["streams"]] == ["video", "audio"]
    decode = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(out), "-f", "null", "-"], capture_output=True, text=True)
    assert decode.returncode == 0 and decode.stderr == "", decode.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mp4"]


def test_a_bad_input_is_one_line_and_leaves_nothing(clips, tmp_path):
    (tmp_path / "empty.mp4").write_bytes(b"")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for bad, reason in [(tmp_path / "nowhere.mp4", "no such file"), (tmp_path / "empty.mp4", "empty file")]:
        result = subprocess.run([str(KIOSK), "compose", str(clips / "a.mp4"), str(bad), "-o", str(out_dir / "out.mp4")],
                                capture_output=True, text=True, timeout=TIMEOUT)
        assert result.returncode == 1, result.stderr
        assert result.stderr.count("\n") == 1 and str(bad) in result.stderr and reason in result.stderr, result.stderr
        assert list(out_dir.iterdir()) == []


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_in_the_middle_leaves_nothing(clips, tmp_path, stop):
    out = tmp_path / "out.mp4"
    partial = tmp_path / ".out.mp4.part"
    process = subprocess.Popen([str(KIOSK), "compose", str(clips / "long.mp4"), str(clips / "a.mp4"), "--size", "1280x720",
                                "-o", str(out)], stderr=subprocess.PIPE, text=True)
    try:
        # The event: a progress line past the start, while the temporary file is being written.
        deadline = time.monotonic() + TIMEOUT
        seen = []
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith("compose: ") and not line.startswith("compose: 0.0 s") and partial.exists():
                break
        assert partial.exists() and not out.exists(), "".join(seen)
        process.send_signal(stop)
        rest = process.stderr.read()
        code = process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 128 + stop, "".join(seen) + rest
    assert "not written" in rest, rest
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())
