"""A USB stick sorted into folders (issue 34), in the VM bed: FAT images made at test time and
hot-plugged through QMP while `kiosk run` plays on the bochs KMS driver.

1. A stick with media at its top and in three levels of folders, and the junk above them
   (`System Volume Information`, `.Trashes`, `.fseventsd`, `$RECYCLE.BIN`, a hidden folder, a
   macOS `._` fork): its files play depth first in
   natural order of the path (`a.mp4`, `B.MP4`, `Folder/d e.mp4`, `Folder/Sub/f.mkv`,
   `Folder/Sub/More/g.mp4`, `z.mp4`), nothing of the junk;
2. pulled, a stick holding only `Menus/lunch.mp4` plays it (it once logged "no media files at
   its top" and the screen stayed on the playlist);
2b. a stick with a playlist file at its top plays that list, in its order (not the stick's
   natural order), and nothing else of the stick;
3. a kiosk in copy mode copies the first stick with its folders mirrored, and plays the copy in
   the same order.
Every wait is for an event, never for a speed (TCG is ~100x slower than a box)."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "vm"))
from bed import Bed  # noqa: E402
from test_media_arrival import GUEST_HELPERS, STEP_TIMEOUT, make_clip, started_titles, wait_for_line  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)

CONFIG = """display: {output: drm}
input: {enabled: false}
playback: {loop: playlist}
usb: {mode: play}
items:
  - /tmp/local/
"""

# The stick's files in the order they must play, and the junk that must not.
TREE = ["a.mp4", "B.MP4", "Folder/d e.mp4", "Folder/Sub/f.mkv", "Folder/Sub/More/g.mp4", "z.mp4"]
JUNK = ["System Volume Information/IndexerVolumeGuid.mp4", ".Trashes/501/old.mp4", "._a.mp4",
        ".fseventsd/fsevents.mp4", "$RECYCLE.BIN/S-1-5-21/recycled.mp4", ".hidden/Sub/hidden.mp4"]
JUNK_TITLES = [path.split("/")[-1] for path in JUNK]
# A stick whose show.m3u lists Menus/lunch.mp4, then Menus\dinner.mp4: not its order by name (a.mp4 first).
LISTED_STICK = ["a.mp4", "Menus/dinner.mp4", "Menus/lunch.mp4"]

GUEST_COMMAND = GUEST_HELPERS + r'''
mkdir -p /tmp/local && cp local.mp4 /tmp/local/
: > events.log
start_kiosk kiosk.conf /tmp/ctl.sock kiosk.log
wait_until started local.mp4 || exit 4
# 1. The stick with folders: every file of it once, the last one being z.mp4.
mark usb-plug
wait_until started_after z.mp4 usb-plug || exit 5
mark usb-played
wait_until test -e unplugged || exit 6
mark usb-pulled
wait_until started_after local.mp4 usb-pulled || exit 7
# 2. A stick with only folders.
mark folders-plug
wait_until started_after lunch.mp4 folders-plug || exit 8
mark folders-played
wait_until test -e unplugged-folders || exit 9
# 2b. A stick with a playlist file at its top: its entries, in its order.
mark list-plug
wait_until started_after dinner.mp4 list-plug || exit 11
mark list-played
wait_until test -e unplugged-list || exit 12
stop_kiosk kiosk.rc
# 3. Copy mode, the first stick again.
mark copy-start
start_kiosk kiosk-copy.conf /tmp/ctl2.sock kiosk-copy.log
# Its event watcher is connected once it has seen the local clip start: only then is the stick
# plugged (a watcher that connected late under a loaded host missed the copy's first files).
wait_until started_after local.mp4 copy-start || exit 10
mark copy-plug
wait_until started_after z.mp4 copy-plug || exit 10
(cd /tmp/copy && find . -type f | sort) > copy-listing.txt
mark copy-played
stop_kiosk kiosk-copy.rc
'''


def make_tree_stick(image: Path, clip: Path, files, label: str):
    """An 8 MiB FAT disk with `clip` under each of `files`' paths (folders made as needed)."""
    subprocess.run(["mkfs.vfat", "-C", "-n", label, str(image), "8192"], check=True, capture_output=True)
    env = {"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}
    made = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in made:
                subprocess.run(["mmd", "-i", str(image), f"::{folder}"], check=True, env=env, capture_output=True)
                made.add(folder)
        subprocess.run(["mcopy", "-i", str(image), str(clip), f"::{path}"], check=True, env=env, capture_output=True)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    for tool in ("mkfs.vfat", "mcopy", "mmd"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            pytest.fail(f"{tool} is missing: deploy/setup installs dosfstools and mtools")
    workdir = tmp_path_factory.mktemp("usb-folders-bed")
    make_clip(workdir / "local.mp4", 1.5)
    make_clip(workdir / "short.mp4", 0.6, size="160x120")
    make_tree_stick(workdir / "tree.img", workdir / "short.mp4", TREE + JUNK, "TREESTICK")
    make_tree_stick(workdir / "menus.img", workdir / "short.mp4", ["Menus/lunch.mp4"], "MENUS")
    make_tree_stick(workdir / "list.img", workdir / "short.mp4", LISTED_STICK, "LISTSTICK")
    (workdir / "show.m3u").write_bytes(b"#EXTM3U\r\nMenus/lunch.mp4\r\nMenus\\dinner.mp4\r\n")
    subprocess.run(["mcopy", "-i", str(workdir / "list.img"), str(workdir / "show.m3u"), "::show.m3u"], check=True,
                   env={"MTOOLS_SKIP_CHECK": "1", "PATH": "/usr/bin:/bin"}, capture_output=True)
    (workdir / "kiosk.conf").write_text(CONFIG)
    (workdir / "kiosk-copy.conf").write_text(CONFIG.replace("usb: {mode: play}", "usb: {mode: copy, copy_to: /tmp/copy, min_free: 1M}"))
    events = workdir / "events.log"
    with Bed(driver="bochs", size=(640, 480), workdir=workdir, usb=True) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)))
        wait_for_line(events, "MARK usb-plug", 300 + STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "tree.img")
        wait_for_line(events, "MARK usb-played", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        (workdir / "unplugged").touch()
        wait_for_line(events, "MARK folders-plug", STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "menus.img")
        wait_for_line(events, "MARK folders-played", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        (workdir / "unplugged-folders").touch()
        wait_for_line(events, "MARK list-plug", STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "list.img")
        wait_for_line(events, "MARK list-played", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        (workdir / "unplugged-list").touch()
        wait_for_line(events, "MARK copy-plug", STEP_TIMEOUT, bed)
        bed.plug_usb_stick(workdir / "tree.img")
        wait_for_line(events, "MARK copy-played", STEP_TIMEOUT, bed)
        bed.unplug_usb_stick()
        code = bed.wait(timeout=STEP_TIMEOUT)
    logs = {name: (workdir / name).read_text(errors="replace") if (workdir / name).exists() else ""
            for name in ("kiosk.log", "kiosk-copy.log")}
    return {"code": code, "logs": logs, "lines": events.read_text(errors="replace").splitlines(), "workdir": workdir}


def from_first(titles, name):
    """`titles` from the first `name` on (the playlist's clip may start once more before the
    stick's files take over)."""
    return titles[titles.index(name):] if name in titles else titles


def test_the_guest_ran_through(folders):
    assert folders["code"] == 0, f"guest script failed ({folders['code']}): {folders['logs']['kiosk.log'][-3000:]}"
    assert (folders["workdir"] / "kiosk.rc").read_text().strip() == "0"
    assert (folders["workdir"] / "kiosk-copy.rc").read_text().strip() == "0", folders["logs"]["kiosk-copy.log"][-3000:]


def test_a_stick_with_folders_plays_depth_first_in_natural_order_without_junk(folders):
    played = from_first(started_titles(folders["lines"], after="usb-plug", before="usb-played"), "a.mp4")
    names = [name.split("/")[-1] for name in TREE]
    # The titles are file names; the stick's pass is them in this order, once each.
    assert played[:len(names)] == names, played
    assert not any(title in JUNK_TITLES for title in started_titles(folders["lines"]))
    assert f"playing {len(TREE)} media files from the USB stick instead of the playlist" in folders["logs"]["kiosk.log"]


def test_a_stick_with_only_folders_plays(folders):
    assert "lunch.mp4" in started_titles(folders["lines"], after="folders-plug", before="folders-played")
    # The stick's own line (the local folder's clip, copied just before kiosk's start, may be
    # reported as no media file while it settles: not the stick's doing).
    assert "no media files on it" not in folders["logs"]["kiosk.log"]


def test_a_stick_with_a_playlist_file_plays_that_list(folders):
    # The menus stick's lunch.mp4 may start once more before its removal is seen: the list's
    # order is lunch.mp4 then dinner.mp4, never a.mp4 (by name: a, dinner, lunch).
    played = started_titles(folders["lines"], after="list-plug", before="list-played")
    assert ("lunch.mp4", "dinner.mp4") in zip(played, played[1:]), played
    assert "a.mp4" not in played, played
    assert "playing 2 media files from the USB stick instead of the playlist" in folders["logs"]["kiosk.log"]


def test_copy_mode_mirrors_the_sticks_folders(folders):
    listing = (folders["workdir"] / "copy-listing.txt").read_text().split("\n")
    assert sorted(line for line in listing if line) == sorted("./" + name for name in TREE), listing
    played = from_first(started_titles(folders["lines"], after="copy-plug", before="copy-played"), "a.mp4")
    assert played[:len(TREE)] == [name.split("/")[-1] for name in TREE], played
