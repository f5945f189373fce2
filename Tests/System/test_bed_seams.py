"""Seams on a real KMS driver (issue 5: "10 times in the bed"): in one bochs guest at 640x480,
`kiosk play` loops a playlist of three different ~1 s clips (320x240 30 fps with sound,
256x144 25 fps with sound, 160x120 25 fps silent) ten times with the sound going to the null
sink (real time, no device). From the --stats-file trace: every flip is a decoded video frame
(`"video": true`, no black filler at a seam), the items come in playlist order, and at each
seam nothing is lost uncounted: the outgoing item's frames after its last flip and the incoming
item's frames before its first flip are exactly the frames counted as dropped there.

The playlist is the three clips listed ten times (no --loop, no --duration): it ends after
thirty items however fast the guest is. TCG emulates the CPU ~10-100x slower than the host and
other jobs share it, so the intervals at the seams are reported (the notes quote them), not
judged: the timing bound (one incoming frame + 2 ms) is test_seams.py's, headless on the host.

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402
from seam_clips import make_clip  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
LOOPS = 10
CLIPS = [
    # name, size, fps, seconds, has sound
    ("a-320x240-30fps-sound.mp4", "320x240", 30, 1.0, True),
    ("b-256x144-25fps-sound.mkv", "256x144", 25, 1.0, True),
    ("c-160x120-25fps-silent.mp4", "160x120", 25, 1.0, False),
]

GUEST_COMMAND = r'''
# The stats go to the guest's tmpfs (a 9p write per frame would be measured too), then out.
"@KIOSK@" play @CLIPS@ --display drm --audio null --stats-file /tmp/stats.jsonl > kiosk.log 2>&1
echo $? > kiosk.rc
cp /tmp/stats.jsonl stats.jsonl
'''


@pytest.fixture(scope="module")
def looped(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("bed-seams")
    names = [make_clip(workdir, *clip).name for clip in CLIPS]
    command = GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@CLIPS@", " ".join(names * LOOPS))
    with Bed(driver="bochs", size=(640, 480), workdir=workdir) as bed:
        # A deadline for a hang, not a speed: 30 s of clips take ~35 s in an idle guest.
        code = bed.run(command, timeout=900)
        print(f"bed: boot {bed.boot_seconds or 0:.1f} s")
    log = (workdir / "kiosk.log").read_text(errors="replace") if (workdir / "kiosk.log").exists() else ""
    assert code == 0, (workdir / "console.log").read_text(errors="replace")[-3000:]
    assert (workdir / "kiosk.rc").read_text().strip() == "0", log
    records = [json.loads(line) for line in (workdir / "stats.jsonl").read_text().splitlines() if line.endswith("}")]
    return records, log, workdir


def seams(records):
    return [(a, b) for a, b in zip(records, records[1:]) if a["item"] != b["item"]]


def test_the_playlist_played_ten_times_in_order(looped):
    records, log, _ = looped
    order = [a["item"] for a, _ in seams(records)] + [records[-1]["item"]] if records else []
    assert order == list(range(3 * LOOPS)), log


def test_no_black_frame_at_any_seam(looped):
    records, _, _ = looped
    assert records and all(record["video"] for record in records)


def video_pts(path: Path) -> list[float]:
    """Every video frame's pts in the clip (mkv with AAC starts its video at 21 ms, not 0)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time",
                          "-of", "csv=p=0", str(path)], check=True, capture_output=True, text=True).stdout
    return sorted(float(line) for line in out.split())


def test_every_frame_shown_or_counted_at_each_seam(looped):
    records, _, workdir = looped
    frames = [video_pts(workdir / clip[0]) for clip in CLIPS]
    for a, b in seams(records):
        outgoing, incoming = frames[a["item"] % 3], frames[b["item"] % 3]
        after_last = sum(1 for pts in outgoing if pts > a["pts"] + 0.001)
        before_first = sum(1 for pts in incoming if pts < b["pts"] - 0.001)
        assert after_last + before_first == b["dropped"] - a["dropped"], (a, b)
    # The intervals are reported for the notes, not judged (see the module doc).
    ratios = sorted((b["t"] - a["t"]) * CLIPS[b["item"] % 3][2] for a, b in seams(records))
    inside = sorted((b["t"] - a["t"]) * CLIPS[a["item"] % 3][2]
                    for a, b in zip(records, records[1:]) if a["item"] == b["item"])
    print(f"{len(ratios)} seams, interval in incoming frame periods: median {ratios[len(ratios) // 2]:.2f}, "
          f"p90 {ratios[int(len(ratios) * 0.9)]:.2f}, max {ratios[-1]:.2f}; within items: median "
          f"{inside[len(inside) // 2]:.2f}, p90 {inside[int(len(inside) * 0.9)]:.2f}, max {inside[-1]:.2f}")
