"""HEIC stills through libheif (issue 22), on the host, headless. One `kiosk run`, `loop: none`:

1. a 1 s lime clip;
2. bad.heic, random bytes -> one error line naming it with libheif's reason, and the playlist
   goes on (the same skip as any item FFmpeg cannot open);
3. photo.heic, made at test time by heif-enc from a PNG of four quadrants (red, lime, blue,
   yellow), duration 1.5 s -> on screen for that long, each quadrant where the PNG has it;
4. a 0.5 s blue clip, whose first flip ends the photo's time.

What the screen showed comes from `--snapshots` taken at every flip.
"""
import json
import os
import shutil
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
COLOURS = {"red": (255, 0, 0), "lime": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0), "black": (0, 0, 0)}
CONFIG = """input: {enabled: false}
playback: {loop: none, gravity: fit}
items:
  - {path: lime.mp4}
  - {path: bad.heic, duration: 1}
  - {path: photo.heic, duration: 1.5}
  - {path: blue.mp4}
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    if shutil.which("heif-enc") is None:
        pytest.fail("heif-enc is missing: deploy/setup installs libheif-examples")
    directory = tmp_path_factory.mktemp("items")
    ffmpeg("-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=25:d=1", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(directory / "lime.mp4"))
    ffmpeg("-f", "lavfi", "-i", "color=c=0x0000FF:s=160x120:r=25:d=0.5", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(directory / "blue.mp4"))
    quadrants = ("color=c=0xFF0000:s=320x240:d=1,drawbox=x=128:y=0:w=192:h=96:color=0x00FF00:t=fill,"
                 "drawbox=x=0:y=96:w=128:h=144:color=0x0000FF:t=fill,drawbox=x=128:y=96:w=192:h=144:color=0xFFFF00:t=fill")
    ffmpeg("-f", "lavfi", "-i", quadrants, "-frames:v", "1", "-pix_fmt", "rgb24", str(directory / "photo.png"))
    subprocess.run(["heif-enc", "-q", "90", str(directory / "photo.png"), "-o", str(directory / "photo.heic")],
                   check=True, capture_output=True)
    (directory / "bad.heic").write_bytes(os.urandom(4096))
    conf, stats, shots = directory / "kiosk.conf", directory / "stats.jsonl", directory / "shots"
    conf.write_text(CONFIG)
    result = subprocess.run([str(KIOSK), "run", "--config", str(conf), "--display", f"headless:{SCREEN[0]}x{SCREEN[1]}",
                             "--audio", "none", "--stats-file", str(stats), "--snapshots", str(shots),
                             "--snapshot-every", "0.001", "--duration", "5"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in stats.read_text().splitlines()]
    return records, sorted(shots.glob("shot-*.png")), result.stderr


def test_clip_then_photo_are_shown(played):
    _, shots, _ = played
    seen = []
    for shot in shots:
        _, _, rows = rgb_rows(shot)
        colour = nearest_colour(COLOURS, pixel(rows, 40, 40))
        if not seen or seen[-1] != colour:
            seen.append(colour)
    assert seen == ["lime", "red", "blue"], f"colours at (40, 40) in order: {seen}"


def test_photo_quadrants_are_where_the_png_has_them(played):
    _, shots, _ = played
    photo = [rows for _, _, rows in map(rgb_rows, shots) if nearest_colour(COLOURS, pixel(rows, 40, 40)) == "red"]
    assert photo, "the HEIC never reached the screen"
    rows = photo[-1]
    for (x, y), expected in {(40, 40): "red", (250, 40): "lime", (40, 180): "blue", (250, 180): "yellow"}.items():
        assert nearest_colour(COLOURS, pixel(rows, x, y)) == expected, f"({x}, {y}) of the HEIC on screen is not {expected}"
        assert max(abs(a - b) for a, b in zip(pixel(rows, x, y), COLOURS[expected])) <= 12


def test_photo_lasts_its_duration(played):
    records, _, _ = played
    first_flip = {}
    for r in records:
        first_flip.setdefault(r["item"], r["t"])
    assert sorted(first_flip) == [0, 2, 3], f"items that reached the screen: {sorted(first_flip)} (not the bad HEIC, item 1)"
    shown = first_flip[3] - first_flip[2]
    print(f"the HEIC was on screen {shown:.3f} s (duration: 1.5)")
    assert 1.4 <= shown <= 2.0


def test_bad_heic_is_one_line_naming_it(played):
    _, _, stderr = played
    lines = [line for line in stderr.splitlines() if "bad.heic" in line]
    print("\n".join(lines))
    assert len(lines) == 1, f"lines naming bad.heic: {lines}"
    assert "libheif cannot read it" in lines[0]
