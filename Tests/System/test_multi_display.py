"""Several screens on one box in the VM bed (issue 16): a virtio-gpu with two outputs
(Bed(heads=2): QEMU's max_outputs=2, connectors Virtual-1 and Virtual-2 on one card, each with
a CRTC of its own), one `kiosk run` per layout, in one boot:

1. separate: the two screens play their own playlists (a red clip on the left, a blue one on
   the right), one engine each, sharing the card's DRM master; each screen's stats lines;
2. mirror: one engine, the same picture on both heads (SMPTE bars, compared pixel by pixel);
3. span 2x1 with a 40 px bezel: a horizontal ramp cut across the heads, whose halves line up:
   the ramp measured near head 0's right edge, carried on over the bezel, predicts head 1's
   left edge (without the bezel's 40 px it would be 60 levels off).

QMP screendump names the GPU and the head. Every wait is for an event (a file the guest
writes, stats lines) or a picture, with deadlines meant for a hang. Needs a kiosk build.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402
from pngread import read_png  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
SIZE = (640, 360)
BEZEL = 40
BOOT_TIMEOUT = 300
PLAY_TIMEOUT = 240
LAYOUTS = ("separate", "mirror", "span")

OUTPUTS = """  outputs:
    - {name: left, card: /dev/dri/card0, connector: Virtual-1, mode: 640x360@ITEMS_LEFT}
    - {name: right, card: /dev/dri/card0, connector: Virtual-2, mode: 640x360@ITEMS_RIGHT}
"""

CONFIGS = {
    "separate": "displays:\n  layout: separate\n  audio_from: left\n"
                + OUTPUTS.replace("@ITEMS_LEFT", ", items: [red.mp4]").replace("@ITEMS_RIGHT", ", items: [blue.mp4]"),
    "mirror": "displays:\n  layout: mirror\n" + OUTPUTS.replace("@ITEMS_LEFT", "").replace("@ITEMS_RIGHT", "")
              + "items: [bars.mp4]\n",
    "span": f"displays:\n  layout: span\n  grid: 2x1\n  bezel: {BEZEL}\n"
            + OUTPUTS.replace("@ITEMS_LEFT", "").replace("@ITEMS_RIGHT", "") + "items: [ramp.mp4]\n",
}

GUEST_COMMAND = r'''
K=@KIOSK@
for layout in separate mirror span; do
    "$K" run --config "$layout.conf" --audio none --stats-file "stats-$layout.jsonl" > "kiosk-$layout.log" 2>&1 &
    pid=$!
    echo started > "started-$layout"
    i=0; while [ ! -e "finish-$layout" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done
    kill -TERM $pid; wait $pid; echo $? > "rc-$layout"
done
'''


def lavfi_clip(path: Path, source: str, size: str = "320x180", rate: int = 10,
               extra: tuple[str, ...] = ()) -> Path:
    """An H.264 clip of an FFmpeg test source ("color=c=red:duration=4"); also the host test's."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"{source}:size={size}:rate={rate}", *extra,
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


def make_clips(directory: Path) -> None:
    lavfi_clip(directory / "red.mp4", "color=c=red:duration=4")
    lavfi_clip(directory / "blue.mp4", "color=c=blue:duration=4")
    lavfi_clip(directory / "bars.mp4", "smptehdbars=duration=4")
    # The span's canvas is 2 x 640 + 40 = 1320 x 360: a 660x180 clip fills it at twice its size.
    # Red climbs 3 levels a clip pixel (1.5 a canvas pixel) across the middle, where the seam is.
    lavfi_clip(directory / "ramp.mp4", "color=c=black:duration=4", size="660x180",
               extra=("-vf", "geq=r='clip((X-W/2)*3+128,0,255)':g='64':b='64'"))


def stats(workdir: Path, layout: str) -> list[dict]:
    path = workdir / f"stats-{layout}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def video_frames(workdir: Path, layout: str, display: str) -> list[dict]:
    return [s for s in stats(workdir, layout) if s.get("display") == display and s["video"] and s["item"] >= 0]


def mean_colour(image, x0: int, y0: int, x1: int, y1: int) -> tuple[float, float, float]:
    pixels = [image.pixel(x, y) for x in range(x0, x1, 4) for y in range(y0, y1, 4)]
    return tuple(sum(p[c] for p in pixels) / len(pixels) for c in range(3))


def column_red(image, x: int) -> float:
    """The red channel of column x, averaged down the middle half (compression noise)."""
    rows = range(image.height // 4, 3 * image.height // 4, 2)
    return sum(image.pixel(x, y)[0] for y in rows) / len(rows)


def heads(bed: Bed, workdir: Path, layout: str):
    return [read_png(bed.screendump(workdir / f"{layout}-head{n}.png", head=n)) for n in (0, 1)]


def separate_shown(images) -> bool:
    left, right = (mean_colour(image, 200, 100, 440, 260) for image in images)
    return left[0] > 150 and left[2] < 80 and right[2] > 150 and right[0] < 80


def mirror_shown(images) -> bool:
    a, b = images
    if (a.width, a.height) != (b.width, b.height):
        return False
    points = [(x, y) for x in range(8, a.width, 16) for y in range(8, a.height, 16)]
    differing = sum(1 for x, y in points if max(abs(p - q) for p, q in zip(a.pixel(x, y), b.pixel(x, y))) > 24)
    colourful = len({tuple(c // 64 for c in a.pixel(x, a.height // 3)) for x in range(0, a.width, 8)})
    return differing <= len(points) // 100 and colourful >= 5


def span_seam(images) -> dict:
    """Head 0's ramp near its right edge, fitted as a line in canvas pixels and carried across
    the bezel to head 1's left edge (canvas x = 640 + BEZEL)."""
    left, right = images
    xs = list(range(600, 640))
    ys = [column_red(left, x) for x in xs]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    predicted = my + slope * (640 + BEZEL - mx)
    measured = sum(column_red(right, x) for x in range(0, 4)) / 4
    without_bezel = my + slope * (640 - mx)
    return {"slope": slope, "predicted": predicted, "measured": measured, "without_bezel": without_bezel}


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("multi-display")
    make_clips(workdir)
    for layout, text in CONFIGS.items():
        (workdir / f"{layout}.conf").write_text("audio: {device: none}\ninput: {enabled: false}\n" + text)
    seen: dict = {"workdir": workdir}
    checks = {"separate": separate_shown, "mirror": mirror_shown,
              "span": lambda images: abs(span_seam(images)["slope"]) > 0.8}
    with Bed(driver="virtio-gpu", size=SIZE, workdir=workdir, heads=2) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)))
        for layout in LAYOUTS:
            bed.wait_for_file(f"started-{layout}", timeout=BOOT_TIMEOUT)
            names = ("left", "right") if layout == "separate" else ("left+right",)
            deadline = time.monotonic() + PLAY_TIMEOUT
            while time.monotonic() < deadline and bed.running and \
                    not all(len(video_frames(workdir, layout, name)) >= 5 for name in names):
                time.sleep(0.5)
            # Screendumps until the picture is up on both heads (a frame may still be in flight).
            images = heads(bed, workdir, layout)
            while time.monotonic() < deadline and not checks[layout](images):
                time.sleep(0.5)
                images = heads(bed, workdir, layout)
            seen[layout] = images
            (workdir / f"finish-{layout}").touch()
        code = bed.wait(timeout=120)
    assert code == 0, bed.console_log()[-3000:]
    for layout in LAYOUTS:
        seen[f"log-{layout}"] = (workdir / f"kiosk-{layout}.log").read_text(errors="replace")
        seen[f"rc-{layout}"] = int((workdir / f"rc-{layout}").read_text())
    return seen


def test_separate_screens_play_their_own_playlists(guest):
    workdir = guest["workdir"]
    assert separate_shown(guest["separate"]), [mean_colour(i, 200, 100, 440, 260) for i in guest["separate"]]
    for name in ("left", "right"):
        frames = video_frames(workdir, "separate", name)
        assert len(frames) >= 5, guest["log-separate"]
        pts = [f["pts"] for f in frames]
        assert pts[-1] > pts[0], pts
    log = guest["log-separate"]
    assert "Virtual-1" in log and "Virtual-2" in log, log
    assert guest["rc-separate"] == 0, log


def test_a_mirror_shows_the_same_picture_on_both_heads(guest):
    assert mirror_shown(guest["mirror"]), guest["log-mirror"]
    assert len(video_frames(guest["workdir"], "mirror", "left+right")) >= 5
    assert "display: mirror of 640x360 on 2 screens" in guest["log-mirror"], guest["log-mirror"]
    assert guest["rc-mirror"] == 0, guest["log-mirror"]


def test_a_span_lines_up_across_the_bezel(guest):
    seam = span_seam(guest["span"])
    # 1.5 levels a canvas pixel: the bezel's 40 px are 60 levels; line-up within 10.
    assert 1.0 < seam["slope"] < 2.0, seam
    assert abs(seam["measured"] - seam["predicted"]) < 10, seam
    assert abs(seam["measured"] - seam["without_bezel"]) > 40, seam
    assert f"display: span 2x1, bezel {BEZEL} px of 1320x360 on 2 screens" in guest["log-span"], guest["log-span"]
    assert guest["rc-span"] == 0, guest["log-span"]
