"""Text cards (#35): an override written `text:` is a card kiosk draws at the screen's size with
the layers' font (no file), `override_text` changes its words or makes a new one, and a playlist
item written `text:` is the same card between two stills. A real `kiosk run` (headless
320x240, no sound) through the control socket, read off the snapshot of every flip. The
overrides themselves: test_overrides.py."""
import subprocess
import sys
from pathlib import Path

import pytest

from control_client import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screen_geometry import pixel  # noqa: E402
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from override_run import Run, newest_rows  # noqa: E402


def card_setup(tmp_path: Path, body: str):
    """A gray still (gray.png) and a headless 320x240 kiosk.conf of `body` (its items and
    overrides) in tmp_path; the snapshots' and the state's folders beside it."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x808080:s=160x120",
                    "-frames:v", "1", str(tmp_path / "gray.png")], check=True)
    conf = tmp_path / "kiosk.conf"
    conf.write_text("display: {output: headless, headless_size: 320x240}\naudio: {device: none}\n"
                    "input: {enabled: false}\ncontrol: {socket: ctl.sock}\n" + body)
    state = tmp_path / "state"
    state.mkdir()
    return conf, tmp_path / "shots", state


def test_a_text_override_is_a_card_kiosk_draws(tmp_path):
    """`text:` (#35): no file, a card drawn at the screen's size with the layers' font. Over a
    gray still loop, `evacuate` shows its red background edge to edge and its white words
    centred within the card's margins, its name as the title; `override_text` shows other
    words in its style, or a new card; override_cancel brings the loop back. Read off the
    snapshot of every flip."""
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    conf, shots, state = card_setup(tmp_path, "items: [{path: gray.png, duration: 60}]\n"
                                    "overrides:\n"
                                    '  evacuate: {text: "USE THE EAST EXIT", color: "#ffffff", background: "#c00000", priority: 100}\n')

    def newest():
        return newest_rows(shots)

    def near(a, b, tolerance=12):
        return all(abs(x - y) <= tolerance for x, y in zip(a, b))

    red, white, gray = (0xC0, 0, 0), (255, 255, 255), (0x80, 0x80, 0x80)
    run = Run(conf, state, extra=["--snapshots", str(shots), "--snapshot-every", "0.001"])
    try:
        assert wait_until(lambda: (rows := newest()) is not None and near(pixel(rows, 2, 2), gray), timeout=60)
        run.client.ok("override", "evacuate")
        assert wait_until(lambda: (rows := newest()) is not None and near(pixel(rows, 2, 2), red)
                          and near(pixel(rows, 317, 237), red), timeout=60), "the card's background, edge to edge"
        assert run.title() == "text:USE THE EAST EXIT"
        rows = newest()
        words = [(x, y) for y in range(240) for x in range(320) if near(pixel(rows, x, y), white, 40)]
        assert len(words) > 300, f"the words drawn: {len(words)} white pixels"
        xs, ys = [x for x, _ in words], [y for _, y in words]
        assert min(xs) >= 16 and max(xs) <= 304, f"within 90 % of the width: {min(xs)}..{max(xs)}"
        assert abs((min(xs) + max(xs)) / 2 - 160) <= 12 and abs((min(ys) + max(ys)) / 2 - 120) <= 20, \
            f"centred: x {min(xs)}..{max(xs)}, y {min(ys)}..{max(ys)}"
        # Large: a font of 12 % of the height (28 px: capitals about 20 px tall) when the
        # words fit, as these do on one line.
        assert 17 <= max(ys) - min(ys) <= 40, f"large letters on one line: y {min(ys)}..{max(ys)}"
        assert max(xs) - min(xs) >= 200, f"a line across the card: x {min(xs)}..{max(xs)}"
        # Other words in evacuate's style (override_text: a CMS's or MQTT's message), then a
        # card of a new name, white on black, above it (priority 200).
        run.client.ok("override_text", "evacuate", "LEAVE NOW")
        assert wait_until(lambda: run.title() == "text:LEAVE NOW", timeout=60)
        assert wait_until(lambda: (rows := newest()) is not None and near(pixel(rows, 2, 2), red), timeout=60)
        run.client.ok("override_text", "notice", "CLOSED", 200)
        assert wait_until(lambda: run.title() == "text:CLOSED", timeout=60)
        assert wait_until(lambda: (rows := newest()) is not None and near(pixel(rows, 2, 2), (0, 0, 0)), timeout=60)
        run.client.ok("override_cancel")
        assert wait_until(lambda: (rows := newest()) is not None and near(pixel(rows, 2, 2), gray), timeout=60), \
            "the loop back"
    finally:
        log = run.stop()
    assert "no picture could be decoded" not in log and "nothing in the playlist can play" not in log, \
        f"the still the card cut came back where it was: {log}"


def test_a_text_item_plays_in_the_playlist_as_a_still(tmp_path):
    """A playlist item written `text:` (#35) is the same card in a playlist: between two
    stills its blue background fills the screen for its duration, titled `text:` and its first
    line, and the loop goes on past it both ways."""
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    conf, shots, state = card_setup(tmp_path, "items:\n  - {path: gray.png, duration: 1.5}\n"
                                    '  - {text: "TODAY\\nSOUP", background: "#0000c0", size: 20%, duration: 1.5}\n')

    def showing(colour):
        rows = newest_rows(shots)
        return rows is not None and all(abs(a - b) <= 12 for a, b in zip(pixel(rows, 2, 2), colour))

    run = Run(conf, state, extra=["--snapshots", str(shots), "--snapshot-every", "0.001"])
    try:
        for _ in range(2):   # the card, the still after it, the card again: the loop goes through it
            assert wait_until(lambda: showing((0, 0, 0xC0)), timeout=60), "the card's background"
            assert wait_until(lambda: run.title() == "text:TODAY", timeout=60), "the card's name as its title"
            assert wait_until(lambda: showing((0x80, 0x80, 0x80)), timeout=60), "the still after the card"
    finally:
        log = run.stop()
    assert "nothing in the playlist can play" not in log, log
