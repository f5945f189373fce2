"""Seams on a real KMS driver (issue 5: "10 times in the bed"): in one bochs guest at 640x480,
`kiosk play` loops a playlist of three different ~1 s clips (320x240 30 fps with sound,
256x144 25 fps with sound, 160x120 25 fps silent) ten times with the sound going to the null
sink (real time, no device). From the --stats-file trace: every flip is a decoded video frame
(`"video": true`, no black filler at a seam) and the interval between the flips at a seam stays
under two frame periods of the incoming clip.

TCG emulates the CPU ~10-100x slower than the host and other jobs share it, so the intervals
are reported as a distribution (the notes quote it) and held loosely: most seams within two
incoming periods, none a stall of half a second. The strict bound (+2 ms) is test_seams.py's,
headless on the host.

Needs the debug kiosk: `swift build` in this worktree first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402
from seam_clips import make_clip  # noqa: E402

KIOSK = REPO / ".build" / "debug" / "kiosk"
LOOPS = 10
CLIPS = [
    # name, size, fps, seconds, has sound
    ("a-320x240-30fps-sound.mp4", "320x240", 30, 1.0, True),
    ("b-256x144-25fps-sound.mkv", "256x144", 25, 1.0, True),
    ("c-160x120-25fps-silent.mp4", "160x120", 25, 1.0, False),
]
PLAY_SECONDS = LOOPS * sum(clip[3] for clip in CLIPS) + 1.5

GUEST_COMMAND = r'''
# The stats go to the guest's tmpfs (a 9p write per frame would be measured too), then out.
"@KIOSK@" play @CLIPS@ --loop --display drm --audio null --stats-file /tmp/stats.jsonl \
    --duration @SECONDS@ > kiosk.log 2>&1
echo $? > kiosk.rc
cp /tmp/stats.jsonl stats.jsonl
'''


@pytest.fixture(scope="module")
def looped(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("bed-seams")
    names = [make_clip(workdir, *clip).name for clip in CLIPS]
    command = (GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@CLIPS@", " ".join(names))
               .replace("@SECONDS@", str(PLAY_SECONDS)))
    with Bed(driver="bochs", size=(640, 480), workdir=workdir) as bed:
        code = bed.run(command, timeout=PLAY_SECONDS + 150)
        print(f"bed: boot {bed.boot_seconds or 0:.1f} s")
    log = (workdir / "kiosk.log").read_text(errors="replace") if (workdir / "kiosk.log").exists() else ""
    assert code == 0, (workdir / "console.log").read_text(errors="replace")[-3000:]
    assert (workdir / "kiosk.rc").read_text().strip() == "0", log
    records = [json.loads(line) for line in (workdir / "stats.jsonl").read_text().splitlines() if line.endswith("}")]
    return records, log


def seams(records):
    return [(a, b) for a, b in zip(records, records[1:]) if a["item"] != b["item"]]


def test_the_playlist_looped_ten_times(looped):
    records, log = looped
    assert len(seams(records)) >= 3 * LOOPS - 1, log


def test_no_black_frame_at_any_seam(looped):
    records, _ = looped
    assert records and all(record["video"] for record in records)


def test_seams_within_two_incoming_frames(looped):
    records, _ = looped
    ratios = []   # seam interval / incoming frame period
    for a, b in seams(records):
        ratios.append((b["t"] - a["t"]) * CLIPS[b["item"]][2])
    inside = sorted((b["t"] - a["t"]) * CLIPS[a["item"]][2]
                    for a, b in zip(records, records[1:]) if a["item"] == b["item"])
    ratios.sort()
    over = [round(r, 2) for r in ratios if r > 2]
    print(f"{len(ratios)} seams, interval in incoming frame periods: median {ratios[len(ratios) // 2]:.2f}, "
          f"p90 {ratios[int(len(ratios) * 0.9)]:.2f}, max {ratios[-1]:.2f}, {len(over)} over 2; "
          f"within items: median {inside[len(inside) // 2]:.2f}, p90 {inside[int(len(inside) * 0.9)]:.2f}, "
          f"max {inside[-1]:.2f}")
    assert ratios[len(ratios) // 2] <= 2, f"the typical seam takes more than two frames: {ratios}"
    longest = max(b["t"] - a["t"] for a, b in seams(records))
    assert longest < 0.5, f"a seam stalled for {longest:.3f} s"
