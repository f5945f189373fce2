"""Items' trims and still images (issue 5), on the host, headless. One `kiosk run`, `loop: none`:

1. a 4 s clip whose colour changes every second (yellow, lime, cyan, white), trimmed to
   start: 1, end: 2.5 -> its stats pts run from 0 to 1.5 s (pts count from the trim's start),
   and the screen shows lime then cyan, never the trimmed-off yellow or white;
2. a red 2:1 PNG, duration 1.5 s, gravity fill (the playlist's default is fit) -> on the 4:3
   screen for 1.5 s, filling it edge to edge;
3. a blue 2:1 JPEG with no gravity of its own -> the default fit: letterboxed, black bars of
   40 px above and below.

What the screen showed comes from `--snapshots` taken at every flip.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated_media import ffmpeg  # noqa: E402
from screen_geometry import nearest as nearest_colour, pixel, rgb_rows  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
SCREEN = (320, 240)
SEGMENTS = ["yellow", "lime", "cyan", "white"]   # one second each (FFmpeg's green is 0x008000)
COLOURS = {"yellow": (255, 255, 0), "lime": (0, 255, 0), "cyan": (0, 255, 255), "white": (255, 255, 255),
           "red": (255, 0, 0), "blue": (0, 0, 255), "black": (0, 0, 0)}
CONFIG = """input: {enabled: false}
playback: {loop: none, gravity: fit}
items:
  - {path: segments.mp4, start: 1, end: 2.5}
  - {path: red.png, duration: 1.5, gravity: fill}
  - {path: blue.jpg, duration: 1.5}
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("items")
    inputs = []
    for colour in SEGMENTS:
        inputs += ["-f", "lavfi", "-i", f"color=c={colour}:s=160x120:r=25:d=1"]
    ffmpeg(*inputs, "-filter_complex", "".join(f"[{i}:v]" for i in range(4)) + "concat=n=4:v=1:a=0",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(directory / "segments.mp4"))
    ffmpeg("-f", "lavfi", "-i", "color=c=red:s=160x80", "-frames:v", "1", str(directory / "red.png"))
    ffmpeg("-f", "lavfi", "-i", "color=c=blue:s=160x80", "-frames:v", "1", "-q:v", "2", str(directory / "blue.jpg"))
    conf, stats, shots = directory / "kiosk.conf", directory / "stats.jsonl", directory / "shots"
    conf.write_text(CONFIG)
    result = subprocess.run([str(KIOSK), "run", "--config", str(conf), "--display", f"headless:{SCREEN[0]}x{SCREEN[1]}",
                             "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                             "--snapshot-every", "0.001", "--duration", "6"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in stats.read_text().splitlines()]
    return records, sorted(shots.glob("shot-*.png"))


def test_trim_plays_from_start_to_end(played):
    records, _ = played
    trimmed = [r for r in records if r["item"] == 0]
    pts = [r["pts"] for r in trimmed]
    print(f"trimmed item: {len(pts)} frames, pts {pts[0]:.3f} .. {pts[-1]:.3f}")
    assert 0 <= pts[0] < 0.05, "the first frame is not the one at the trim's start"
    assert 1.4 <= pts[-1] < 1.5, "the last frame is not the one before the trim's end"
    assert 30 <= len(pts) <= 38   # 1.5 s at 25 fps, a few may be dropped on a busy machine


def test_trim_shows_only_the_kept_seconds(played):
    _, shots = played
    seen = []
    for shot in shots:
        _, _, rows = rgb_rows(shot)
        colour = nearest_colour(COLOURS, pixel(rows, SCREEN[0] // 2, SCREEN[1] // 2))
        if not seen or seen[-1] != colour:
            seen.append(colour)
    assert seen == ["lime", "cyan", "red", "blue"], f"colours on screen in order: {seen}"


def test_still_image_lasts_its_duration(played):
    records, _ = played
    first_flip = {}
    for r in records:
        first_flip.setdefault(r["item"], r["t"])
    shown = first_flip[2] - first_flip[1]
    print(f"the PNG was on screen {shown:.3f} s (duration: 1.5)")
    assert 1.4 <= shown <= 2.0
    assert all(r["video"] for r in records)


def test_stills_use_the_items_gravity(played):
    _, shots = played
    by_centre = {}
    for shot in shots:
        _, _, rows = rgb_rows(shot)
        by_centre.setdefault(nearest_colour(COLOURS, pixel(rows, SCREEN[0] // 2, SCREEN[1] // 2)), rows)
    w, h = SCREEN
    red = by_centre["red"]   # fill: edge to edge, the sides cropped
    assert {nearest_colour(COLOURS, pixel(red, x, y)) for x in (0, w - 1) for y in (0, h - 1)} == {"red"}
    blue = by_centre["blue"]   # fit: 320x160 in the middle, bars of 40 px
    for y, expected in [(0, "black"), (37, "black"), (43, "blue"), (120, "blue"), (196, "blue"), (202, "black"), (239, "black")]:
        for x in (2, w // 2, w - 3):
            assert nearest_colour(COLOURS, pixel(blue, x, y)) == expected, f"({x}, {y}) of the fit image is not {expected}"


def test_goto_past_a_trims_end_shows_its_last_kept_frame(tmp_path):
    """`goto 0 5` into an entry cut to [1, 2.5]: it opens at the cut's end and shows the last frame
    before it, as a seek to the duration does, then the playlist goes on. Past the cut, the reader
    stopped before any frame and the entry failed as "no picture could be decoded"."""
    from control_client import ControlClient, wait_until
    inputs = []
    for colour in SEGMENTS:
        inputs += ["-f", "lavfi", "-i", f"color=c={colour}:s=160x120:r=25:d=1"]
    ffmpeg(*inputs, "-filter_complex", "".join(f"[{i}:v]" for i in range(4)) + "concat=n=4:v=1:a=0",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(tmp_path / "segments.mp4"))
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(tmp_path / "other.mp4"))
    socket, stats = tmp_path / "ctl.sock", tmp_path / "stats.jsonl"
    (tmp_path / "kiosk.conf").write_text(f"input: {{enabled: false}}\ncontrol: {{socket: {socket}}}\nplayback: {{loop: playlist}}\n"
                                         "items:\n  - {path: segments.mp4, start: 1, end: 2.5}\n  - other.mp4\n")
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(tmp_path / "kiosk.conf"), "--display", "headless:320x240",
                                "--audio", "none", "--stats-file", str(stats), "--state-dir", str(tmp_path), "--duration", "60"],
                               stderr=subprocess.PIPE, text=True)
    try:
        def records():
            return [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")] if stats.exists() else []
        assert wait_until(lambda: socket.exists() and any(r["item"] == 1 for r in records()), timeout=30)
        client = ControlClient(socket)
        start = len(records())
        client.ok("goto", 0, 5)
        assert wait_until(lambda: any(r["item"] == 0 for r in records()[start:]), timeout=20), "the entry never showed"
        shown = [r["pts"] for r in records()[start:] if r["item"] == 0]
        # The last frame before the cut, stamped with the time asked for within it (the end), as a
        # seek past a file's last frame shows that frame.
        assert 1.3 <= shown[0] <= 1.5, f"goto 0 5 showed {shown[:3]}, not the last frame before the cut at 1.5 s"
        assert len(shown) <= 3, f"goto 0 5 played on from somewhere before the cut: {shown}"
        assert wait_until(lambda: any(r["item"] == 1 for r in records()[start:]), timeout=20), "the playlist did not go on"
        client.close()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "no picture could be decoded" not in err, err
    assert "skipping item 0" not in err, err
