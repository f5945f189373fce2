"""Playlist files as items, on the host, headless: an `.m3u` written as VLC or a CMS writes one
(a BOM, CRLF, `#EXTINF` titles and seconds, a Windows backslash, a %-escaped file:// URL, a
missing file) plays its lines in order under their titles; each bad line is one message naming
the file and the line; an edit of the file while kiosk runs changes the playlist without a
restart, as a watched folder's change does. Before playlist files were read, the item was one
entry FFmpeg refused ('not a media file').
"""
import os
import subprocess
from pathlib import Path

import pytest

from built_kiosk import KIOSK  # the release kiosk deploy/test built, else the newest build
from control_client import ControlClient, wait_until
from generated_media import ffmpeg
from live_outage import stop_cleanly


def make_clip(path: Path, seconds: float, pattern: str = "testsrc2"):
    ffmpeg("-f", "lavfi", "-i", f"{pattern}=size=160x120:rate=25:duration={seconds}",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path))


def make_still(path: Path):
    ffmpeg("-f", "lavfi", "-i", "smptehdbars=size=160x120", "-frames:v", "1", str(path))


def start_kiosk(root: Path, items: list[str]):
    """`kiosk run` headless on `items` in `root`, its control socket up: (process, client, log)."""
    conf, control, log = root / "kiosk.conf", root / "ctl.sock", root / "kiosk.log"
    conf.write_text("input: {enabled: false}\nplayback: {loop: playlist, settle: 0.5}\nitems:\n"
                    + "".join(f"  - {item}\n" for item in items))
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:320x240",
                                "--audio", "none", "--control-socket", str(control)],
                               stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: control.exists() or process.poll() is not None, 30, "the control socket")
        assert process.poll() is None, log.read_text()
        return process, ControlClient(control, timeout=30), log
    except BaseException:
        stop_cleanly(process)
        raise


def wait_for(predicate, timeout, what):
    value = wait_until(predicate, timeout, 0.1)
    if not value:
        pytest.fail(f"{what} did not happen within {timeout} s")
    return value


@pytest.fixture(scope="module")
def show(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    root = tmp_path_factory.mktemp("m3u")
    (root / "clips").mkdir()
    (root / "My Media").mkdir()
    make_clip(root / "clips" / "a.mp4", 1.0)
    make_clip(root / "clips" / "b.mp4", 1.0, "smptebars")
    make_clip(root / "My Media" / "c d.mp4", 1.0, "rgbtestsrc")
    make_clip(root / "late.mp4", 1.0)
    make_still(root / "menu.png")
    for path in root.rglob("*"):
        os.utime(path, (1_600_000_000, 1_600_000_000))   # there long before kiosk: nothing waits to settle
    playlist = root / "show.m3u"
    lines = ["#EXTM3U", "#EXTINF:1.5,Lunch menu", "menu.png", "#EXTINF:1,Opening", "clips/a.mp4", "missing.mp4",
             "clips\\b.mp4", f"file://{(root / 'My Media' / 'c d.mp4').as_posix().replace(' ', '%20')}"]
    playlist.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    process, client, log = start_kiosk(root, ["show.m3u"])
    try:
        client.ok("observe", "item")
        first = wait_for(lambda: client.ok("get", "playlist"), 30, "the playlist")
        # The edit: a line added at the end (a CMS rewrites the file whole, by rename).
        edited = root / ".show.m3u.tmp"
        edited.write_bytes(playlist.read_bytes() + b"late.mp4\r\n")
        edited.rename(playlist)
        second = wait_for(lambda: (lambda p: p if len(p) == 5 else None)(client.ok("get", "playlist")), 30,
                          "the edited playlist file's new entry joining")
        # Every entry, the new one included, starts in turn (events arrive as replies are read).
        titles = lambda: {event.get("path") for event in client.events if event.get("event") == "item_started"}
        wait_for(lambda: (client.ok("get", "time"), {"Lunch menu", "Opening", "b.mp4", "c d.mp4", "late.mp4"} <= titles())[1],
                 90, "every entry starting")
        client.close()
    finally:
        stop_cleanly(process)
    return {"root": root, "first": first, "second": second, "log": log.read_text(), "rc": process.returncode}


def test_the_lines_play_in_order_under_their_titles(show):
    root = show["root"]
    assert [(entry["title"], entry["path"]) for entry in show["first"]] == [
        ("Lunch menu", str(root / "menu.png")),
        ("Opening", str(root / "clips" / "a.mp4")),
        ("b.mp4", str(root / "clips" / "b.mp4")),
        ("c d.mp4", str(root / "My Media" / "c d.mp4")),
    ], show["log"]
    assert [entry["index"] for entry in show["first"]] == [0, 1, 2, 3]


def test_a_missing_line_is_one_message_naming_the_file_and_line(show):
    lines = [line for line in show["log"].splitlines() if "missing.mp4" in line]
    assert lines, show["log"]
    assert f"playlist file '{show['root'] / 'show.m3u'}' line 6: file '{show['root'] / 'missing.mp4'}' does not exist" in lines[0]
    assert len(lines) == 1, lines
    assert "not a media file" not in show["log"], show["log"]


def test_an_edit_of_the_file_changes_the_playlist_without_a_restart(show):
    assert [entry["title"] for entry in show["second"]][-1] == "late.mp4"
    assert f"watched folders: +{show['root'] / 'late.mp4'}" in show["log"], show["log"]


def test_kiosk_stops_cleanly(show):
    assert show["rc"] == 0, show["log"]


def test_kiosk_check_names_the_bad_line(show, tmp_path):
    playlist = tmp_path / "list.m3u8"
    playlist.write_text("C:\\Media\\a.mp4\n")
    conf = tmp_path / "kiosk.conf"
    conf.write_text("items:\n  - list.m3u8\n")
    result = subprocess.run([str(KIOSK), "check", str(conf)], capture_output=True, text=True, timeout=60)
    assert f"playlist file '{playlist}' line 1: 'C:\\Media\\a.mp4' is a Windows path" in result.stderr + result.stdout, result
    # Legal, so exit 0, but said plainly: nothing of it plays now.
    assert result.returncode == 0, result
    assert "OK, 0 playlist entries now (nothing plays until a file it names appears" in result.stdout, result


def test_vlc_xspf_and_pls_files_play_as_their_entries(tmp_path):
    """What VLC's "Save Playlist" writes by default (XSPF: file:/// URIs, %-escapes, titles,
    milliseconds) and a PLS: read as their entries, in order, under their titles; a track with
    no location is one message with its place."""
    (tmp_path / "My Clips").mkdir()
    make_clip(tmp_path / "My Clips" / "a é.mp4", 1.0)
    make_clip(tmp_path / "b.mp4", 1.0, "smptebars")
    make_still(tmp_path / "menu.png")
    for path in tmp_path.rglob("*"):
        os.utime(path, (1_600_000_000, 1_600_000_000))
    uri = (tmp_path / "My Clips" / "a é.mp4").as_uri()   # file:///.../My%20Clips/a%20%C3%A9.mp4
    (tmp_path / "lobby.xspf").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<playlist xmlns="http://xspf.org/ns/0/" version="1">\n<trackList>\n'
        f"<track><location>{uri}</location><title>Opening &amp; welcome</title><duration>1000</duration></track>\n"
        "<track><identifier>isrc:none</identifier></track>\n"
        "<track><location>menu.png</location><duration>1500</duration></track>\n</trackList>\n</playlist>\n")
    (tmp_path / "more.pls").write_text("[playlist]\nFile1=b.mp4\nTitle1=Bars\nNumberOfEntries=1\nVersion=2\n")
    process, client, log = start_kiosk(tmp_path, ["lobby.xspf", "more.pls"])
    try:
        playlist = wait_for(lambda: client.ok("get", "playlist"), 30, "the playlist")
        client.close()
    finally:
        stop_cleanly(process)
    assert [(entry["title"], entry["path"]) for entry in playlist] == [
        ("Opening & welcome", str(tmp_path / "My Clips" / "a é.mp4")),
        ("menu.png", str(tmp_path / "menu.png")),
        ("Bars", str(tmp_path / "b.mp4")),
    ], log.read_text()
    said = [line for line in log.read_text().splitlines() if "track 2" in line]
    assert len(said) == 1 and f"playlist file '{tmp_path / 'lobby.xspf'}' track 2: a <track> without a <location>" in said[0], \
        log.read_text()
    assert process.returncode == 0, log.read_text()
