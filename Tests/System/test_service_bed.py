"""kiosk as deploy/kiosk.service runs it, on a real KMS driver and a real sound card, in the VM
bed (one short guest; bochs, 640x480). There is no systemd in the bed, so the unit's sandbox is
rebuilt by hand around `kiosk play` to the extent it matters on a device:

- the device nodes belong to their groups, as udev leaves them (video, audio, input, 0660);
- kiosk runs as an unprivileged user (nobody) whose only groups are video, audio and input
  (User= + SupplementaryGroups=), with no capabilities at all (CapabilityBoundingSet=,
  AmbientCapabilities=), no new privileges, and write+execute mappings refused (PR_SET_MDWE,
  the kernel's MemoryDenyWriteExecute, where the guest's kernel has it: Linux 6.3 or later;
  the host test in test_service.py covers it otherwise).

It must become DRM master, modeset, present frames, play sound into snd-aloop and end with
exit code 0. (test_service.py checks the rest on the host: exposure, the system call filter and
socket families against a trace, the sd_notify protocol.)

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
CLIP_FRAMES = 25   # 1 s at 25 fps, played once

GUEST_COMMAND = r'''
# What udev does on a real box: the nodes belong to their groups.
chgrp -R video /dev/dri && chmod g+rw /dev/dri/*
chgrp -R audio /dev/snd && chmod g+rw /dev/snd/*
chgrp -R input /dev/input && chmod g+r /dev/input/*
# Copies the unprivileged user can reach whatever the checkout's folder modes are.
cp @KIOSK@ /tmp/kiosk && cp clip.mp4 /tmp/clip.mp4 && chmod 755 /tmp/kiosk && chmod 644 /tmp/clip.mp4
id nobody > who.txt
setpriv --reuid=65534 --regid=65534 --groups=video,audio,input --inh-caps=-all --bounding-set=-all --no-new-privs \
    python3 -c 'import ctypes, os, sys
applied = ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) == 0
print("write+execute mappings refused:", "yes" if applied else "no, not in this kernel", file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])' \
    /tmp/kiosk play /tmp/clip.mp4 --display drm --audio hw:Loopback,0,0 \
    --stats-file /tmp/stats.jsonl > kiosk.log 2>&1
echo $? > kiosk.rc
cp /tmp/stats.jsonl stats.jsonl 2>/dev/null
'''


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("service-bed")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=320x240:rate=25:duration=1", "-f", "lavfi",
                    "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:v", "libx264",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
                    str(workdir / "clip.mp4")], check=True)
    command = GUEST_COMMAND.replace("@KIOSK@", str(KIOSK))
    with Bed(driver="bochs", size=(640, 480), workdir=workdir) as bed:
        code = bed.run(command, timeout=300)
    return workdir, code


def test_plays_as_an_unprivileged_user_in_the_device_groups(guest):
    workdir, code = guest
    log = (workdir / "kiosk.log").read_text(errors="replace") if (workdir / "kiosk.log").exists() else ""
    assert code == 0, (workdir / "console.log").read_text(errors="replace")[-3000:]
    assert (workdir / "kiosk.rc").read_text().strip() == "0", log
    records = [json.loads(line) for line in (workdir / "stats.jsonl").read_text().splitlines()]
    # Real flips on the real driver, the clip played to its end: every one of its 25 frames
    # shown or counted as dropped (how many are dropped is the emulated CPU's speed; the frame
    # rate is timed on the host by test_vblank_pacing.py, the unit's sandbox by test_service.py).
    assert records and all(record["video"] for record in records), log
    assert len(records) + records[-1]["dropped"] == CLIP_FRAMES, log
    assert all(a["pts"] < b["pts"] for a, b in zip(records, records[1:])), log
    # What kiosk logs when the sound device fails ("...; playing without sound", "...; playing on
    # without sound"), not any "sound:" line: a slow guest's "sound: the writer did not stop
    # within 0.25 s" at exit is a notice, not a failure.
    assert "without sound" not in log, f"the sound device failed: {log}"
    print(log.splitlines()[0])   # whether PR_SET_MDWE was in force
