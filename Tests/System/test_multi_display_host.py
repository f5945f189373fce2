"""Several screens on one box, on the host (issue 16): `kiosk run` with two headless screens.
Separate playlists: each screen's engine plays its own items (stats lines name the screen);
a mirror and a span: one engine draws for both (its lines name both). What the screens show
is the bed's test (test_multi_display.py, screendumps of two virtio-gpu heads) and
MultiScreenOutputTests' (pixels of headless screens).

Every wait is for an event (a line in the stats file or the log) with a deadline meant for a
hang."""
import json
import signal
import subprocess
from pathlib import Path

import pytest

from control_client import wait_until
from test_multi_display import lavfi_clip
from test_resume import KIOSK

EVENT_TIMEOUT = 30


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("multi-display-clips")
    # Distinct frame rates: a screen's pts steps say whose items it plays.
    return {colour: lavfi_clip(directory / f"{colour}.mp4", f"color=c={colour}:duration=3", rate=rate)
            for colour, rate in (("red", 25), ("green", 25), ("blue", 10))}


class Kiosk:
    def __init__(self, directory: Path, config_text: str):
        self.config = directory / "kiosk.conf"
        self.config.write_text(config_text)
        self.stats = directory / "stats.jsonl"
        self.log = directory / "log.txt"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen([str(KIOSK), "run", "--config", str(self.config), "--audio", "none",
                                             "--state-dir", str(directory), "--stats-file", str(self.stats),
                                             "--duration", "120"], stderr=log)

    def lines(self):
        if not self.stats.exists():
            return []
        return [json.loads(line) for line in self.stats.read_text().splitlines() if line.endswith("}")]

    def frames(self, display):
        return [line for line in self.lines() if line.get("display") == display and line["video"] and line["item"] >= 0]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=EVENT_TIMEOUT)


HEADER = "audio: {device: none}\ninput: {enabled: false}\n"


def test_separate_screens_play_their_own_playlists(tmp_path, clips):
    kiosk = Kiosk(tmp_path, HEADER + f"""displays:
  layout: separate
  audio_from: left
  outputs:
    - {{name: left, output: headless, headless_size: 320x180, items: [{clips['red']}, {clips['green']}]}}
    - {{name: right, output: headless, headless_size: 320x180, items: [{clips['blue']}]}}
""")
    try:
        # The left screen reaches its second item; the right one loops its only one.
        assert wait_until(lambda: any(f["item"] == 1 for f in kiosk.frames("left"))
                          and any(f["pts"] >= 1.0 for f in kiosk.frames("right")), timeout=EVENT_TIMEOUT), \
            kiosk.log.read_text()
    finally:
        assert kiosk.stop() == 0, kiosk.log.read_text()
    left, right = kiosk.frames("left"), kiosk.frames("right")
    assert {f["item"] for f in right} == {0}
    assert {0, 1} <= {f["item"] for f in left}
    # 25 fps on the left, 10 fps on the right: each engine its own clips.
    def steps(frames):
        return {round(b["pts"] - a["pts"], 2) for a, b in zip(frames, frames[1:])
                if b["item"] == a["item"] and b["pts"] > a["pts"] and b["dropped"] == a["dropped"]}
    assert 0.04 in steps(left) and 0.1 not in steps(left), steps(left)
    assert steps(right) == {0.1}, steps(right)
    log = kiosk.log.read_text()
    assert log.count("display: headless 320x180") == 2, log
    # Only the named lines: no engine wrote one without its screen.
    assert all("display" in line for line in kiosk.lines())


def test_an_edit_of_another_screen_says_it_applies_on_restart(tmp_path, clips):
    """The right screen's items edited while kiosk runs: its engine was made at the start, so the
    edit waits for a restart. The log said "reloaded, nothing to change" and the operator
    believed it applied; it says so now, once per edit, while the main screen's edits apply."""
    def text(right_items):
        return HEADER + f"""displays:
  layout: separate
  audio_from: left
  outputs:
    - {{name: left, output: headless, headless_size: 320x180, items: [{clips['red']}]}}
    - {{name: right, output: headless, headless_size: 320x180, items: [{right_items}]}}
"""
    kiosk = Kiosk(tmp_path, text(clips["blue"]))
    try:
        assert wait_until(lambda: kiosk.frames("right") and kiosk.frames("left"), timeout=EVENT_TIMEOUT), kiosk.log.read_text()
        kiosk.config.write_text(text(f"{clips['green']}, {clips['blue']}"))
        assert wait_until(lambda: "changed: applies on restart" in kiosk.log.read_text(), timeout=EVENT_TIMEOUT), \
            kiosk.log.read_text()
    finally:
        assert kiosk.stop() == 0, kiosk.log.read_text()
    log = kiosk.log.read_text()
    lines = [line for line in log.splitlines() if "changed: applies on restart" in line]
    assert len(lines) == 1 and "displays' other screens (right)" in lines[0], log
    assert "nothing to change" not in lines[0]


@pytest.mark.parametrize("layout", ["mirror", "span"])
def test_one_engine_draws_for_both_screens(tmp_path, clips, layout):
    extra = "  grid: 2x1\n  bezel: 40\n" if layout == "span" else ""
    kiosk = Kiosk(tmp_path, HEADER + f"""displays:
  layout: {layout}
{extra}  outputs:
    - {{name: a, output: headless, headless_size: 320x180}}
    - {{name: b, output: headless, headless_size: 320x180}}
items: [{clips['red']}]
""")
    try:
        assert wait_until(lambda: any(f["pts"] >= 1.0 for f in kiosk.frames("a+b")), timeout=EVENT_TIMEOUT), \
            kiosk.log.read_text()
    finally:
        assert kiosk.stop() == 0, kiosk.log.read_text()
    assert kiosk.frames("a+b") and len(kiosk.frames("a+b")) == len(kiosk.lines()) - \
        len([line for line in kiosk.lines() if not (line["video"] and line["item"] >= 0)])
    canvas = "320x180" if layout == "mirror" else "680x180"
    assert f"display: {layout} of {canvas} on 2 screens" in kiosk.log.read_text() or \
        f"display: {layout} 2x1, bezel 40 px of {canvas} on 2 screens" in kiosk.log.read_text(), kiosk.log.read_text()


def test_check_counts_each_screens_playlist(tmp_path, clips):
    config = tmp_path / "kiosk.conf"
    config.write_text(HEADER + f"""displays:
  - {{name: left, output: headless, items: [{clips['red']}, {clips['green']}]}}
  - {{name: right, output: headless, items: [{clips['blue']}]}}
""")
    result = subprocess.run([str(KIOSK), "check", str(config)], capture_output=True, text=True, timeout=EVENT_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "; screen left: 2 entries; screen right: 1 entry" in result.stdout, result.stdout


def test_a_screen_written_as_display_text_plays_the_top_level_items(tmp_path, clips):
    # `headless:WxH@HZ` as a list entry: its own refresh rate, no playlist of its own.
    kiosk = Kiosk(tmp_path, HEADER + f"""displays:
  - headless:320x180@30
  - {{output: headless, headless_size: 320x180, items: [{clips['blue']}]}}
items: [{clips['red']}]
""")
    try:
        assert wait_until(lambda: any(f["pts"] >= 1.0 for f in kiosk.frames("display-1"))
                          and kiosk.frames("display-2"), timeout=EVENT_TIMEOUT), kiosk.log.read_text()
    finally:
        assert kiosk.stop() == 0, kiosk.log.read_text()
    assert "display: headless 320x180 at 30 Hz" in kiosk.log.read_text()
    # The red clip is 25 fps: the first screen plays the top-level items, the second its own (10 fps).
    assert {round(b["pts"] - a["pts"], 2) for a, b in zip(kiosk.frames("display-1"), kiosk.frames("display-1")[1:])
            if b["dropped"] == a["dropped"] and b["pts"] > a["pts"]} == {0.04}
    assert {round(f["pts"] * 10, 3) % 1 for f in kiosk.frames("display-2")} == {0.0}
