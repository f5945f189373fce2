"""Media that arrives by itself (issue 15), in the VM bed, on the guest kernel's own paths: one
`kiosk run` on the bochs KMS driver whose playlist is a watched folder (inotify on the guest's
tmpfs), then a USB stick hot-plugged through QMP on QEMU's xHCI controller.

The guest script drives the folder and writes `MARK` lines into the event log (the same file
`kiosk ctl watch` appends to, so marks and events are in one order):
1. b.mp4 is written with the file held open for a second, half of it missing meanwhile: it may
   not start before its writer closed it (`MARK b-closed`), and it plays after;
2. a.mp4 is deleted while it plays (or is prepared): once the next item began it never starts
   again, one log line says it left;
3. b.mp4 is deleted too: the folder is empty (one line), then c.mp4 is renamed in: it plays;
4. the host plugs a FAT stick made at test time (its clip, plus the junk operators' sticks
   carry: a macOS `._` fork, an empty clip, `System Volume Information`): kiosk mounts it
   read-only under /run/kiosk/usb and plays the stick's clip instead of the playlist;
5. the host pulls the stick out while its clip plays: one line, the folder's clip plays again,
   and kiosk stops with exit 0 on SIGTERM;
6. a second kiosk in copy mode, whose copy folder holds an old clip, a temporary a power cut
   left and a text file: the old clip plays instead of the playlist from the start; the same
   stick plugged again is copied (only its clip, byte for byte), the old clip and the
   temporary are removed, the text file stays, and the copy plays; pulled out, it plays on;
7. a third kiosk in copy mode with `min_free` beyond the disk: the stick's clip is not copied
   (one line), nothing in the folder is removed, and its clip plays on.
Every wait is for an event, never for a speed (TCG is ~100x slower than a box).
"""
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "vm"))
from bed import Bed  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
STEP_TIMEOUT = 240

CONFIG = """display: {output: drm}
input: {enabled: false}
playback: {loop: playlist, settle: 5}
usb: {mode: play}
items:
  - /tmp/watched/
"""

# The guest script's shell helpers (test_usb_folders.py uses them too): marks and kiosk's events
# in one log, waits for an event, a kiosk started and stopped.
GUEST_HELPERS = r'''
K=@KIOSK@
mark() { echo "MARK $1" >> events.log; }
started() { grep -q "\"item_started\".*\"path\":\"$1\"" events.log; }
# Whether $1 started after the mark $2.
started_after() { sed -n "/MARK $2/,\$p" events.log | grep -q "\"item_started\".*\"path\":\"$1\""; }
wait_until() { n=0; until "$@"; do sleep 0.2; n=$((n + 1)); [ $n -lt 1200 ] || { echo "timed out: $*"; return 1; }; done; }
# kiosk run with config $1, control socket $2, log $3, in the background; its events appended.
start_kiosk() {
    $K run --config "$1" --audio none --control-socket "$2" > "$3" 2>&1 &
    KIOSK_PID=$!
    wait_until test -S "$2" || exit 3
    $K ctl --socket "$2" watch >> events.log 2>&1 &
}
# SIGTERM, and its exit status into $1.
stop_kiosk() { kill -TERM $KIOSK_PID; wait $KIOSK_PID; echo $? > "$1"; }
'''

GUEST_COMMAND = GUEST_HELPERS + r'''
# An old file, as one that was there before kiosk started (a new one would wait for settle).
mkdir -p /tmp/watched && cp a.mp4 /tmp/watched/ && touch -d 2020-01-01 /tmp/watched/a.mp4
: > events.log
start_kiosk kiosk.conf /tmp/ctl.sock kiosk.log
wait_until started a.mp4 || exit 4
# 1. A writer that keeps the file open: part of it, a pause (well below settle, so the pause
# plus starting `tail` over 9p under TCG stays below it), the rest.
mark b-opened
{ head -c 20000 b.mp4; sleep 0.5; tail -c +20001 b.mp4; } > /tmp/watched/b.mp4
mark b-closed
wait_until started_after b.mp4 b-closed || exit 5
# 2. Deleted while it plays.
wait_until started_after a.mp4 b-closed || exit 6
rm /tmp/watched/a.mp4
mark a-removed
wait_until started_after b.mp4 a-removed || exit 7
# 3. The folder empties, then a clip is renamed in (rsync's way: a hidden temporary first).
rm /tmp/watched/b.mp4
mark emptied
sleep 3
cp c.mp4 /tmp/watched/.c.mp4.tmp && mv /tmp/watched/.c.mp4.tmp /tmp/watched/c.mp4
mark c-renamed
wait_until started_after c.mp4 c-renamed || exit 8
# 4. and 5. The host plugs and pulls the stick.
mark usb-plug
wait_until started_after STICKCLIP.MP4 usb-plug || exit 9
mark usb-playing
wait_until test -e unplugged || exit 10
mark usb-pulled
wait_until started_after c.mp4 usb-pulled || exit 11
stop_kiosk kiosk.rc
# 6. Copy mode.
mkdir -p /tmp/copy && cp a.mp4 /tmp/copy/old.mp4 && echo half > /tmp/copy/.kiosk-copy.X.MP4.tmp && echo keep > /tmp/copy/notes.txt
mark copy-start
start_kiosk kiosk-copy.conf /tmp/ctl2.sock kiosk-copy.log
wait_until started_after old.mp4 copy-start || exit 13
mark usb-plug-copy
wait_until started_after STICKCLIP.MP4 usb-plug-copy || exit 14
ls -A /tmp/copy > copy-listing.txt
cmp /tmp/copy/STICKCLIP.MP4 stick.mp4 && mark copy-identical
mark usb-copied
wait_until test -e unplugged-copy || exit 15
mark usb-pulled-copy
wait_until started_after STICKCLIP.MP4 usb-pulled-copy || exit 16
stop_kiosk kiosk-copy.rc
# 7. Not enough room: min_free beyond the disk.
rm /tmp/copy/STICKCLIP.MP4 && cp c.mp4 /tmp/copy/local.mp4
mark full-start
start_kiosk kiosk-full.conf /tmp/ctl3.sock kiosk-full.log
wait_until started_after local.mp4 full-start || exit 18
mark usb-plug-full
wait_until grep -q "not copied" kiosk-full.log || exit 19
mark usb-refused
wait_until started_after local.mp4 usb-refused || exit 20
ls -A /tmp/copy > full-listing.txt
stop_kiosk kiosk-full.rc
'''


def make_clip(path: Path, seconds: float, size: str = "320x240", rate: int = 25):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size={size}:rate={rate}:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)


def make_stick(image: Path, clip: Path):
    """An 8 MiB FAT disk without a partition table (as cameras and macOS format sticks) with
    the clip under an upper-case name and the junk operators' sticks carry."""
    subprocess.run(["mkfs.vfat", "-C", "-n", "KIOSKSTICK", str(image), "8192"], check=True, capture_output=True)
    empty = image.parent / "empty.mp4"
    empty.write_bytes(b"")
    fork = image.parent / "fork"
    fork.write_bytes(b"\x00\x05\x16\x07" + b"\x00" * 60)
    env = {"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}
    for args in (["mcopy", "-i", str(image), str(clip), "::STICKCLIP.MP4"],
                 ["mcopy", "-i", str(image), str(fork), "::._STICKCLIP.MP4"],
                 ["mcopy", "-i", str(image), str(empty), "::EMPTY.MP4"],
                 ["mmd", "-i", str(image), "::System Volume Information"]):
        subprocess.run(args, check=True, env=env, capture_output=True)


def wait_for_line(path: Path, text: str, timeout: float, bed: Bed):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        if not bed.running:
            pytest.fail(f"the guest stopped before {text!r}; {path.name}: {path.read_text(errors='replace')[-2000:] if path.exists() else ''}")
        time.sleep(0.2)
    pytest.fail(f"no {text!r} within {timeout:g} s in {path}")


@pytest.fixture(scope="module")
def arrival(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("arrival-bed")
    make_clip(workdir / "a.mp4", 1.5)
    make_clip(workdir / "b.mp4", 1.5, rate=30)
    make_clip(workdir / "c.mp4", 1.5)
    make_clip(workdir / "stick.mp4", 3, size="160x120")
    make_stick(workdir / "stick.img", workdir / "stick.mp4")
    (workdir / "kiosk.conf").write_text(CONFIG)
    (workdir / "kiosk-copy.conf").write_text(CONFIG.replace("usb: {mode: play}", "usb: {mode: copy, copy_to: /tmp/copy, min_free: 1M}"))
    (workdir / "kiosk-full.conf").write_text(CONFIG.replace("usb: {mode: play}", "usb: {mode: copy, copy_to: /tmp/copy, min_free: 1000G}"))
    events = workdir / "events.log"
    started = time.monotonic()
    with Bed(driver="bochs", size=(640, 480), workdir=workdir, usb=True) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)))
        wait_for_line(events, "MARK usb-plug", 300 + STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "stick.img")
        wait_for_line(events, "MARK usb-playing", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        (workdir / "unplugged").touch()
        wait_for_line(events, "MARK usb-plug-copy", STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "stick.img")
        wait_for_line(events, "MARK usb-copied", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        (workdir / "unplugged-copy").touch()
        wait_for_line(events, "MARK usb-plug-full", STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "stick.img")
        wait_for_line(events, "MARK usb-refused", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        code = bed.wait(timeout=STEP_TIMEOUT)
        dmesg = bed.dmesg()
    print(f"guest run: {time.monotonic() - started:.1f} s (boot {bed.boot_seconds or 0:.1f} s)")
    log = (workdir / "kiosk.log").read_text(errors="replace")
    copy_log, full_log = ((workdir / name).read_text(errors="replace") if (workdir / name).exists() else ""
                          for name in ("kiosk-copy.log", "kiosk-full.log"))
    lines = events.read_text(errors="replace").splitlines()
    return {"code": code, "log": log, "copy_log": copy_log, "full_log": full_log, "lines": lines, "workdir": workdir, "dmesg": dmesg}


def started_titles(lines, after=None, before=None):
    """Titles of item_started events between the marks `after` and `before`."""
    titles, inside = [], after is None
    for line in lines:
        if line.startswith("MARK "):
            name = line.split()[1]
            if name == after:
                inside = True
            if name == before:
                break
            continue
        if inside and '"item_started"' in line:
            titles.append(line.split('"path":"')[1].split('"')[0])
    return titles


def test_kiosk_ran_through_and_stopped_cleanly(arrival):
    assert arrival["code"] == 0, f"guest script failed ({arrival['code']}); kiosk.log:\n{arrival['log'][-3000:]}"
    assert (arrival["workdir"] / "kiosk.rc").read_text().strip() == "0", arrival["log"][-3000:]
    assert (arrival["workdir"] / "kiosk-copy.rc").read_text().strip() == "0", arrival["copy_log"][-3000:]
    assert (arrival["workdir"] / "kiosk-full.rc").read_text().strip() == "0", arrival["full_log"][-3000:]
    assert "Fatal error" not in arrival["log"] + arrival["copy_log"] + arrival["full_log"]


def test_a_file_still_written_is_not_played_until_closed(arrival):
    lines = arrival["lines"]
    assert "b.mp4" not in started_titles(lines, after="b-opened", before="b-closed"), lines
    assert "b.mp4" in started_titles(lines, after="b-closed", before="a-removed")
    assert "watched folders: +/tmp/watched/b.mp4" in arrival["log"]


def test_a_deleted_file_leaves_and_an_empty_folder_is_said_once(arrival):
    lines, log = arrival["lines"], arrival["log"]
    # An a.mp4 already opened for the seam may still start in the moment before the folder's
    # change lands (its open descriptor reads the deleted file); once the next item has begun,
    # a.mp4 is gone for good.
    after = started_titles(lines, after="a-removed")
    assert "b.mp4" in after, lines
    assert "a.mp4" not in after[after.index("b.mp4"):], lines
    assert after.count("a.mp4") <= 1, lines
    assert log.count("watched folders: -/tmp/watched/a.mp4") == 1, log
    assert log.count("directory '/tmp/watched' holds no media files") == 1, log
    # It came back: the renamed-in clip plays, its temporary never did.
    assert "c.mp4" in started_titles(lines, after="c-renamed", before="usb-plug")
    assert not any(".c.mp4.tmp" in title for title in started_titles(lines))


def test_a_usb_stick_plays_instead_of_the_playlist_and_its_removal_gives_it_back(arrival):
    lines, log = arrival["lines"], arrival["log"]
    assert "USB stick /dev/sda mounted at /run/kiosk/usb/sda (vfat, read-only)" in log, log
    assert "playing 1 media file from the USB stick instead of the playlist" in log, log
    on_stick = started_titles(lines, after="usb-plug", before="usb-pulled")
    assert "STICKCLIP.MP4" in on_stick
    # The junk was never tried: no fork, no empty clip, no folder.
    assert not any(title in ("._STICKCLIP.MP4", "EMPTY.MP4") for title in started_titles(lines)), lines
    assert "USB stick removed: back to the configured playlist" in log, log
    assert "c.mp4" in started_titles(lines, after="usb-pulled")
    assert "usb-storage" in arrival["dmesg"] or "USB Mass Storage" in arrival["dmesg"]


def test_copy_mode_copies_the_stick_whole_and_plays_on_without_it(arrival):
    lines, log, workdir = arrival["lines"], arrival["copy_log"], arrival["workdir"]
    assert "USB copy: STICKCLIP.MP4 copied to /tmp/copy" in log, log
    # The old clip played from the start, then the stick's.
    assert "playing 1 media file from the copy folder /tmp/copy instead of the playlist" in log, log
    assert "old.mp4" in started_titles(lines, after="copy-start", before="usb-plug-copy")
    assert "c.mp4" not in started_titles(lines, after="copy-start", before="usb-plug-copy")
    # Only the clip, byte for byte; no junk; the old clip and the temporary gone, the text kept.
    assert sorted((workdir / "copy-listing.txt").read_text().split()) == ["STICKCLIP.MP4", "notes.txt"]
    assert "USB copy: old.mp4 removed from /tmp/copy (not on the new stick)" in log, log
    assert "MARK copy-identical" in lines
    assert "STICKCLIP.MP4" in started_titles(lines, after="usb-plug-copy", before="usb-pulled-copy")
    # Pulled out: the copy plays on, the configured playlist does not come back.
    assert "STICKCLIP.MP4" in started_titles(lines, after="usb-pulled-copy")
    assert "c.mp4" not in started_titles(lines, after="usb-pulled-copy"), lines
    assert "back to the configured playlist" not in log, log


def test_copy_mode_refuses_what_would_fill_the_disk_and_removes_nothing(arrival):
    lines, log, workdir = arrival["lines"], arrival["full_log"], arrival["workdir"]
    assert "USB copy: STICKCLIP.MP4 (" in log and "not copied: it would leave less than" in log, log
    assert sorted((workdir / "full-listing.txt").read_text().split()) == ["local.mp4", "notes.txt"]
    assert "removed from" not in log, log
    assert "STICKCLIP.MP4" not in started_titles(lines, after="full-start"), lines
    assert "local.mp4" in started_titles(lines, after="usb-refused")
