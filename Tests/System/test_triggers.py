"""System tests of kiosk.conf's triggers (issue 15) with synthetic devices in the VM bed.

One bochs guest at 640x480 boots once. input_driver.py (see test_input.py) makes a touchscreen
and a keyboard with uinput; then `kiosk run` plays a kiosk.conf whose loop is red.mp4 (60 s)
and green.mp4 (6 s), both 320x240 at 10 fps with a moving square, made here with ffmpeg, with
three triggers:

    - {name: button, key: KEY_F1, item: 1}                       # green, from the default playlist
    - {name: corner, zone: ["75%", "0%", "25%", "25%"], items: [green.mp4], during_trigger: ignore}
    - {name: again, item: 1, then: restart}                      # fired by `kiosk ctl trigger again`

KEY_F1 is the key the README's Raspberry Pi line gives a GPIO button (`dtoverlay=gpio-key`): to
kiosk the button is an evdev device with that one key, as the driver's keyboard is here.

Each step starts red from its beginning (`kiosk ctl goto 0`), waits until red has played past 3 s
(so a resume and a restart differ), notes the position P red had reached when the input was
written (the last stats line before the driver began the command), fires, and follows kiosk's control
events (`kiosk ctl watch` in the guest): green starts, then red comes back. Where red resumes
is the `time` of its `item_started` event; it must lie between P and the last red frame shown
before green (plus a keyframe interval either way: the clips have one a second):

- KEY_F1: green plays, then red resumes where it was;
- KEY_F1 again while green plays (during_trigger: replace): green begins again, and red still
  resumes where the first press cut it;
- a tap in the top-right zone: green plays, red resumes; a second tap in the zone while green
  plays (during_trigger: ignore) is ignored: kiosk logs it and no second green starts;
- a tap outside the zone still pauses (and a second resumes): gestures work as before;
- `kiosk ctl trigger again` (then: restart): green plays, then red begins at 0;
- SIGTERM: exit status 0, no error in the log.

Every wait is for an event (a control event, a stats line, a log line, the driver's answer)
with a deadline meant for a hang, never for a speed: under TCG a frame takes a tenth of a
second or more, and the clock runs on regardless (frames are dropped, not slowed).

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed, read_png  # noqa: E402
from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
from input_guest import DRIVER, DRIVER_EPILOGUE, DRIVER_PREAMBLE, GUEST_PYTHON, Session, make_clip  # noqa: E402

SIZE = (640, 480)
RED_SECONDS, GREEN_SECONDS = 60, 6
# Red has played this far before each input, so that resuming (at P) and restarting (at 0) differ.
LEAD = 3.0
# The clips have a keyframe every second; where a resumed item lands is allowed that much either way.
KEYFRAME = 1.05

CONFIG = """\
display: {output: drm}
audio: {device: none}
input: {grab: true}
control: {socket: /tmp/kiosk.sock}
overlay: {enabled: false}
items: [red.mp4, green.mp4]
triggers:
  - {name: button, key: KEY_F1, item: 1}
  - {name: corner, zone: ["75%", "0%", "25%", "25%"], items: [green.mp4], during_trigger: ignore}
  - {name: again, item: 1, then: restart}
"""

GUEST_COMMAND = DRIVER_PREAMBLE + r'''"$K" run --config kiosk.conf --stats-file stats.jsonl > kiosk.log 2>&1 &
''' + DRIVER_EPILOGUE


def colour_of(path: Path) -> str:
    """red or green: a corner of the picture, away from the moving square."""
    r, g, b = read_png(path).pixel(20, 20)
    return "red" if r > 150 and g < 100 else "green" if g > 100 and r < 100 else f"other{(r, g, b)}"


class Steps:
    """The host's side of the guest: the driver's commands, kiosk's events and stats."""

    def __init__(self, session: Session):
        self.s = session

    def started(self, after: int) -> list[tuple[int, str, float]]:
        """`item_started` events after the first `after` ones: (position, clip name, time)."""
        return [(n, Path(e.get("path", "")).stem, e["time"]) for n, e in enumerate(self.s.events())
                if n >= after and e.get("event") == "item_started"]

    def wait_started(self, name: str, after: int, timeout: float = 120) -> tuple[int, str, float]:
        return self.s.wait_until(f"{name} to start (events after {after})",
                                 lambda _: next((e for e in self.started(after) if e[1] == name), None), timeout)

    def ctl(self, *words: str) -> dict:
        result = self.s.command(" ".join(["run", str(KIOSK), "ctl", "--socket", "/tmp/kiosk.sock", *words]), timeout=120)
        assert result["rc"] == 0, result
        return result

    def red_from_the_start(self) -> None:
        """red plays again from 0 and has passed LEAD seconds (goto 0, then stats lines of the
        new run of red: pts counting up from near 0 after the goto was sent)."""
        events = len(self.s.events())
        sent = self.ctl("goto", "0")["t0"]
        self.wait_started("red", events)

        def past_lead(_):
            # The new start: the last frame near 0 shown after the command began that steps back
            # from the one before it (or the first such frame). From when it began, not from its
            # answer: CI's guest took 15 s to start the debug `kiosk ctl`, and red had passed 1 s
            # by the answer. Then a frame past LEAD.
            after = [l for l in self.s.videos() if l["t"] > sent]
            starts = [n for n, l in enumerate(after) if l["pts"] < 1.0 and (n == 0 or after[n - 1]["pts"] > l["pts"])]
            return bool(starts) and any(l["pts"] >= LEAD for l in after[starts[-1]:])
        self.s.wait_until(f"red past {LEAD} s", past_lead)

    def position_at(self, t: float) -> float:
        """The pts of the last frame presented at or before the guest time `t`."""
        return max((l for l in self.s.videos() if l["t"] <= t), key=lambda l: l["t"])["pts"]

    def wait_green_under_way(self, t: float, position: float) -> None:
        """Until green (begun after `t`: a frame whose pts fell below red's `position`) has shown
        a frame past 0.5 s, so a second input lands while the trigger's item plays."""
        def under_way(_):
            after = [l for l in self.s.videos() if l["t"] > t]
            start = next((n for n, l in enumerate(after) if l["pts"] < position - KEYFRAME), None)
            return start is not None and any(0.5 <= l["pts"] < GREEN_SECONDS for l in after[start:])
        self.s.wait_until("green under way", under_way)

    def last_red_before_green(self, t: float, position: float) -> float:
        """The last red frame shown after `t` before green's first (green's pts start near 0,
        red's are past `position`)."""
        last = position
        for line in (l for l in self.s.videos() if l["t"] > t):
            if line["pts"] < position - KEYFRAME:
                break
            last = line["pts"]
        return last


@dataclass
class Results:
    checks: dict
    log: str
    rc: int


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Results:
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build` first")
    workdir = tmp_path_factory.mktemp("triggers")
    make_clip(workdir / "red.mp4", "red", RED_SECONDS)
    make_clip(workdir / "green.mp4", "green", GREEN_SECONDS)
    (workdir / "kiosk.conf").write_text(CONFIG)
    command = (GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@PYTHON@", GUEST_PYTHON)
               .replace("@DRIVER@", str(DRIVER)))
    checks: dict = {}
    with Bed(driver="bochs", size=SIZE, workdir=workdir) as bed:
        bed.start(command)
        s = Session(bed, workdir)
        steps = Steps(s)
        bed.wait_for_file("devices-ready", timeout=BOOT_TIMEOUT)
        s.wait_until("kiosk to play", lambda st: len(st) > 10, timeout=180)
        s.wait_for_watcher()

        def fire_and_follow(name: str, fire: str, again: str | None = None) -> dict:
            """Red from its start, then `fire` (a driver command); green must start, then red.
            `again`: a second command once green plays."""
            steps.red_from_the_start()
            events = len(s.events())
            # From when the command began: `kiosk ctl trigger` may have fired (and green begun)
            # before the command ends.
            t = s.command(fire)["t0"]
            position = steps.position_at(t)
            green = steps.wait_started("green", events)
            seen: dict = {"position": position}
            if again:
                steps.wait_green_under_way(t, position)
                seen["again_log_lines"] = s.log().count("ignored")
                s.command(again)
            red = steps.wait_started("red", green[0] + 1)
            seen["last_red"] = steps.last_red_before_green(t, position)
            seen["resumed_at"] = red[2]
            seen["greens"] = sum(1 for e in steps.started(events) if e[1] == "green" and e[0] < red[0])
            seen["between"] = [e[1] for e in steps.started(events) if e[0] < red[0]]
            if again:
                seen["again_log_lines"] = s.log().count("ignored") - seen["again_log_lines"]
            checks[name] = seen
            return seen

        # KEY_F1, and on screen: green while it plays (a screendump once its frames come).
        steps.red_from_the_start()
        events = len(s.events())
        t = s.command("key keys KEY_F1")["t0"]
        position = steps.position_at(t)
        green = steps.wait_started("green", events)
        checks["key_screen"] = colour_of(s.shot_until("key-green", lambda p: colour_of(p) == "green"))
        red = steps.wait_started("red", green[0] + 1)
        checks["key"] = {"position": position, "last_red": steps.last_red_before_green(t, position),
                         "resumed_at": red[2], "between": [e[1] for e in steps.started(events) if e[0] < red[0]]}
        checks["key_then_screen"] = colour_of(s.shot_until("key-red", lambda p: colour_of(p) == "red"))

        fire_and_follow("key_replace", "key keys KEY_F1", again="key keys KEY_F1")
        fire_and_follow("zone", "tap 0.9 0.1")
        fire_and_follow("zone_ignore", "tap 0.9 0.1", again="tap 0.9 0.1")

        # Outside the zone a tap still pauses, and a second plays again.
        events = len(s.events())
        s.command("tap 0.5 0.5")
        checks["tap_outside_pauses"] = s.wait_for_status("paused", events) is not None
        events = len(s.events())
        s.command("tap 0.5 0.5")
        checks["second_tap_plays"] = s.wait_for_status("playing", events) is not None

        fire_and_follow("ctl_restart", f"run {KIOSK} ctl --socket /tmp/kiosk.sock trigger again")

        (workdir / "finish").touch()
        assert bed.wait(timeout=60) == 0, bed.console_log()
    return Results(checks=checks, log=(workdir / "kiosk.log").read_text(errors="replace"),
                   rc=int((workdir / "kiosk.rc").read_text()))


def resumed_where_it_was(seen: dict) -> bool:
    return seen["position"] - KEYFRAME <= seen["resumed_at"] <= seen["last_red"] + KEYFRAME


def test_a_key_plays_the_trigger_then_the_loop_resumes_at_its_position(results: Results):
    key = results.checks["key"]
    assert key["between"] == ["green"], key
    assert results.checks["key_screen"] == "green" and results.checks["key_then_screen"] == "red", results.checks
    assert key["position"] >= LEAD - 0.2, key
    assert resumed_where_it_was(key), key


def test_a_key_during_its_trigger_replaces_it_and_the_loop_still_resumes(results: Results):
    seen = results.checks["key_replace"]
    assert seen["greens"] == 2, seen
    assert resumed_where_it_was(seen), seen


def test_a_tap_in_the_zone_plays_the_trigger_then_the_loop_resumes(results: Results):
    seen = results.checks["zone"]
    assert seen["between"] == ["green"], seen
    assert resumed_where_it_was(seen), seen


def test_a_tap_in_the_zone_during_its_trigger_is_ignored(results: Results):
    seen = results.checks["zone_ignore"]
    assert seen["greens"] == 1, seen
    assert seen["again_log_lines"] == 1, results.log
    assert resumed_where_it_was(seen), seen


def test_a_tap_outside_the_zones_still_pauses(results: Results):
    assert results.checks["tap_outside_pauses"] and results.checks["second_tap_plays"]


def test_the_control_sockets_trigger_with_then_restart_begins_the_loop_again(results: Results):
    seen = results.checks["ctl_restart"]
    assert seen["between"] == ["green"], seen
    # From its start, not where it was (a resume lands at or past `position - KEYFRAME`): the
    # item's time when its first frame is presented, which a starved guest reaches late (CI,
    # 2026-12-02: 1.58 s, the clock begun at 0 at the seam and the first flip 1.6 s after it).
    assert seen["position"] >= LEAD - 0.2 and seen["resumed_at"] < seen["position"] - KEYFRAME, seen


def test_kiosk_exits_cleanly(results: Results):
    assert results.rc == 0, results.log
    # The ignored tap is the one warning the run should have, but for a guest's speed: one
    # starved for seconds (CI's loaded bed: red's frames 10 s behind its clock, 2026-12-02) has
    # its video moved to the clock with one line, as test_play's cadence test allows.
    bad = [line for line in results.log.splitlines()
           if (" error " in line or "warning" in line) and "during_trigger: ignore" not in line
           and "the video follows the clock" not in line]
    assert not bad, results.log
    print(f"kiosk log:\n{results.log}")
