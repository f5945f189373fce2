"""System tests of kiosk's input (KioskInput) with synthetic devices in the VM bed.

One bochs guest at 640x480 boots once. In it, a small Python driver (input_driver.py, run
with Debian's python3) makes uinput devices and moves their fingers and keys on the host's
command: it polls the work directory for cmd-NNNN files and answers done-NNNN (JSON). It
first makes a multi-touch touchscreen (protocol B, INPUT_PROP_DIRECT, 0..4095) and a keyboard;
then the guest runs `kiosk probe --json` (as root, and as nobody to see the permission message)
and, once the host has read a key itself (the control for the grab check), starts
`kiosk play red.mp4 blue.mp4 --loop --display drm --seek-step 5 --grab-input --stats-file
stats.jsonl`. The clips are 30 s of solid red / blue, 320x240 at 10 fps, with a
white square moving so that consecutive frames differ.

The host then checks, in sequence, from the stats file (one line per presented frame: item,
pts, gen) and QMP screendumps:

- playing: two screenshots with frames presented between them differ (the square moves);
- tap: kiosk says it paused (a `time_control_status` event on its control socket, which
  `kiosk ctl watch` in the guest writes to events.jsonl), then no frame past the paused position
  is presented (a starved guest may still present the one at it) and two screenshots 1 s apart
  are equal; a second tap and frames come again;
- KEY_RIGHT: the seek's frames (a new generation of the item) start seek_step (5 s) after the
  last frame before them, plus at most the media time between those two flips (the step counts
  from the clock, which can lead the last flip on a starved guest);
- grab: a second reader of the grabbed keyboard gets no events (before kiosk started, it did);
- swipe left: the next item (blue on screen), swipe right: back to the previous (red);
- scrub along the bottom band from 10% to 60% of the width: playback resumes from 18 s;
- hotplug: a keyboard made after kiosk started works (KEY_N: a frame of another item than
  the one playing when it was pressed); the first keyboard
  unplugged is dropped with a notice, and playback goes on;
- SYN_DROPPED: with kiosk stopped (SIGSTOP) a finger floods the touchscreen; once it runs
  again kiosk reports the drop and cancels the stroke, the item stays, and a tap still pauses;
- SIGTERM ends kiosk with status 0 and its log has no error.

It also reports the latency from input to screen, in the guest's CLOCK_MONOTONIC (the driver
answers with its time, the stats carry the flip times); it checks only that each effect comes
after its cause. How fast a command reaches the screen is timed on the host, where a guest's
speed cannot decide it: test_control.py::test_commands_reach_the_screen_promptly.

Every wait is for an event (a stats line, a control event, a log line, the driver's answer)
with a generous deadline; a tap and a swipe are each written in one go (input_driver.py), so a
starved guest cannot stretch them past the gesture time limits.

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed, read_png  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
from input_guest import DRIVER, DRIVER_EPILOGUE, DRIVER_PREAMBLE, GUEST_PYTHON, Session, make_clip  # noqa: E402
SIZE = (640, 480)
SEEK_STEP = 5
GUEST_COMMAND = DRIVER_PREAMBLE + r'''"$K" probe --json > probe.json 2> probe.err
setpriv --reuid=nobody --regid=nogroup --clear-groups "$K" probe > probe-nobody.txt 2>&1
touch probed; await kiosk-go
"$K" play red.mp4 blue.mp4 --loop --display drm --seek-step @SEEK_STEP@ --grab-input \
    --control-socket $SOCKET --stats-file stats.jsonl > kiosk.log 2>&1 &
''' + DRIVER_EPILOGUE


def same_picture(a: Path, b: Path) -> bool:
    ia, ib = read_png(a), read_png(b)
    return (ia.width, ia.height) == (ib.width, ib.height) and ia.rows == ib.rows


def dominant(path: Path) -> str:
    """red or blue: the corner of the picture, away from the moving square."""
    r, g, b = read_png(path).pixel(20, 20)
    return "red" if r > 150 and b < 100 else "blue" if b > 150 and r < 100 else f"other{(r, g, b)}"


@dataclass
class Results:
    """What the host saw, kept for the individual tests."""
    checks: dict
    probe: dict
    probe_nobody: str
    log: str
    rc: int
    boot_seconds: float


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Results:
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build` first")
    workdir = tmp_path_factory.mktemp("input")
    make_clip(workdir / "red.mp4", "red")
    make_clip(workdir / "blue.mp4", "blue")
    command = (GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@PYTHON@", GUEST_PYTHON)
               .replace("@DRIVER@", str(DRIVER))
               .replace("@SEEK_STEP@", str(SEEK_STEP)))
    checks: dict = {}
    with Bed(driver="bochs", size=SIZE, workdir=workdir) as bed:
        bed.start(command)
        s = Session(bed, workdir)
        bed.wait_for_file("probed", timeout=BOOT_TIMEOUT)
        # The control for the grab check below: before kiosk runs, a reader sees the keys.
        checks["ungrabbed_seen_bytes"] = s.command("grabbed keys KEY_M")["seen_bytes"]
        (workdir / "kiosk-go").touch()
        s.wait_until("kiosk to play item 0", lambda st: len(st) > 10 and st[-1]["item"] == 0, timeout=180)
        s.wait_for_watcher()
        first = s.shot("playing-a")
        count = len(s.stats())
        s.wait_until("two more frames", lambda st: len(st) >= count + 2)
        second = s.shot_until("playing-b", lambda p: not same_picture(first, p))
        checks["playing_moves"] = not same_picture(first, second)
        checks["playing_colour"] = dominant(first)

        # Tap: kiosk says it paused; from then on no frame past the paused position may come.
        events = len(s.events())
        tapped = s.command("tap 0.5 0.4")["t"]
        paused = s.wait_for_status("paused", events)["time"]
        # A tap that lands while a starved guest's decoder had run dry still shows the frame at
        # the paused position when it comes (test_overlay saw it 0.6 s after the tap): waited
        # for (it is usually on screen already). The frame after it, up to the paused position,
        # may still come too (CI saw two shots differ across it): the picture is judged on two
        # shots a second apart with no flip between them, which must agree. A kiosk that keeps
        # flipping while paused gets 30 tries, then is judged on its last two shots.
        s.wait_until("the frame at the paused position",
                     lambda _: any(l["pts"] >= paused - 0.101 for l in s.videos()))
        for _ in range(30):
            flips = len(s.stats())
            a = s.shot("paused-a")
            time.sleep(1.0)
            b = s.shot("paused-b")
            if len(s.stats()) == flips:
                break
        # Frames after the tap past the paused position (0.1 s apart at 10 fps): none.
        checks["paused_frames_after"] = [l for l in s.videos() if l["t"] > tapped and l["pts"] > paused + 0.101]
        checks["paused_same_picture"] = same_picture(a, b)
        # Reported: how long frames kept coming after the finger lifted.
        tap_to_last_frame = max(l["t"] for l in s.stats()) - tapped
        events = len(s.events())
        s.command("tap 0.5 0.4")
        s.wait_for_status("playing", events)
        count = len(s.stats())
        s.wait_until("frames after the second tap", lambda st: len(st) >= count + 5)
        checks["resumed"] = True

        # KEY_RIGHT: seek_step forward. The seek's frames are a new generation of item 0: the
        # jump is between the last frame of the old one and the first of the new (consecutive).
        before = s.stats()
        pressed = s.command("key keys KEY_RIGHT")["t"]
        def jump(st):
            new = st[len(before) - 1:]
            return next(({"from_pts": a["pts"], "to_pts": b["pts"], "flips_apart": b["t"] - a["t"], "t": b["t"]}
                         for a, b in zip(new, new[1:]) if b["item"] == a["item"] and b["gen"] != a["gen"]), None)
        checks["key_jump"] = s.wait_until("the seek's new generation after KEY_RIGHT", jump)
        shown = checks["key_jump"]["t"]
        checks["latency"] = {"tap_to_last_frame": tap_to_last_frame, "key_to_frame": shown - pressed}

        # The grab: a second reader of the keyboard sees nothing. KEY_M only mutes.
        checks["grab_seen_bytes"] = s.command("grabbed keys KEY_M")["seen_bytes"]

        # Swipes: left -> next item (blue), right -> previous (red).
        count = len(s.stats())
        lifted = s.command("stroke 0.8 0.4 0.2 0.4 0 8")["t"]
        shown = s.wait_until("item 1 after a left swipe", lambda st: next((l["t"] for l in st[count:] if l["item"] == 1), None))
        checks["latency"]["swipe_to_next_item"] = shown - lifted
        checks["after_swipe_left"] = dominant(s.shot_until("swipe-left", lambda p: dominant(p) == "blue"))
        s.command("stroke 0.2 0.4 0.8 0.4 0 8")
        s.wait_until("item 0 after a right swipe", lambda st: st[-1]["item"] == 0)
        checks["after_swipe_right"] = dominant(s.shot_until("swipe-right", lambda p: dominant(p) == "red"))

        # Scrub along the bottom band to 60%: the last seek goes to 0.6 * 30 s = 18 s (a
        # keyframe), and playback resumes from there. Seeks during the scrub show frames too,
        # each a new generation; the last generation is the one that plays on.
        # Settled: ten frames of the newest generation flipped after the finger lifted. Every
        # seek is made by the lift, and a newer generation's frames replace the older ones
        # for good; frames of an older one may still be flipped just after the lift (a run
        # under deploy/test --stress waited in vain for all frames after it to be of one).
        count = len(s.stats())
        lifted = s.command("stroke 0.1 0.95 0.6 0.95 0.6 12")["t"]
        def settled(st):
            new = [l for l in st[count:] if l["item"] == 0]
            after = [l for l in new if l["t"] > lifted]
            if not after:
                return None
            newest = max(l["gen"] for l in after)
            if sum(1 for l in after if l["gen"] == newest) < 10:
                return None
            last_gen = [l for l in new if l["gen"] == newest]
            return {"first_pts": last_gen[0]["pts"], "last_pts": last_gen[-1]["pts"],
                    "generations": len({l["gen"] for l in new})}
        checks["scrub"] = s.wait_until("playback to settle after the scrub", settled)

        # Hotplug: a keyboard made now is used; KEY_N goes to the next item.
        s.command("create late-keys keys")
        s.wait_until("kiosk to open the late keyboard", lambda _: "'late-keys' as keyboard" in s.log())
        # The next item: a frame of another item than the one playing when the key was pressed
        # (item 0 may have ended on its own meanwhile, so not necessarily item 1).
        st = s.stats()
        item, count = st[-1]["item"], len(st)
        s.command("key late-keys KEY_N")
        s.wait_until("the next item after KEY_N on the late keyboard",
                     lambda st: any(l["item"] != item for l in st[count:]))
        checks["hotplug_next"] = True
        # Unplug the first keyboard: dropped, playback goes on.
        s.command("destroy keys")
        s.wait_until("kiosk to notice the unplug", lambda _: "'keys' unplugged" in s.log() or "'keys' removed" in s.log())
        count = len(s.stats())
        s.wait_until("frames after the unplug", lambda st: len(st) >= count + 5)
        checks["unplug_survived"] = True

        # SYN_DROPPED: the stroke under way is cancelled (no gesture: playback goes on, same
        # item) and kiosk says so; then a tap still works.
        item, count = s.stats()[-1]["item"], len(s.stats())
        s.command("flood 2000", timeout=120)
        s.wait_until("kiosk to report the dropped events", lambda _: "dropped events (SYN_DROPPED" in s.log())
        s.wait_until("frames after the flood", lambda st: len(st) >= count + 8)
        checks["flood_item_kept"] = s.stats()[-1]["item"] == item
        events = len(s.events())
        s.command("tap 0.5 0.4")
        checks["tap_after_flood_pauses"] = s.wait_for_status("paused", events) is not None

        (workdir / "finish").touch()
        assert bed.wait(timeout=60) == 0, bed.console_log()
        boot = bed.boot_seconds or 0.0
    return Results(checks=checks, probe=json.loads((workdir / "probe.json").read_text()),
                   probe_nobody=(workdir / "probe-nobody.txt").read_text(errors="replace"),
                   log=(workdir / "kiosk.log").read_text(errors="replace"),
                   rc=int((workdir / "kiosk.rc").read_text()), boot_seconds=boot)


def test_playing_picture_moves(results: Results):
    assert results.checks["playing_moves"]
    assert results.checks["playing_colour"] == "red"


def test_tap_pauses_and_second_tap_resumes(results: Results):
    assert results.checks["paused_frames_after"] == [], results.checks
    assert results.checks["paused_same_picture"]
    assert results.checks["resumed"]


def test_key_right_skips_by_seek_step(results: Results):
    jump = results.checks["key_jump"]
    # The skip counts from the clock's position when the key is handled, which is the last
    # frame's pts plus the media time that has passed since its flip: on a starved guest the
    # clock can lead that flip by a lot, at most until the seek's frame is flipped.
    step = jump["to_pts"] - jump["from_pts"]
    assert SEEK_STEP - 0.5 <= step <= SEEK_STEP + 0.6 + jump["flips_apart"], jump


def test_grab_keeps_keys_from_other_readers(results: Results):
    assert results.checks["ungrabbed_seen_bytes"] > 0, "the control: without kiosk, a reader sees the key"
    assert results.checks["grab_seen_bytes"] == 0


def test_effects_follow_their_input_and_latency_is_reported(results: Results):
    latency = results.checks["latency"]
    # Measured from the driver's time after its last event (the key's release, the finger's
    # lift), so a frame may come a hair before; an effect long before its cause would be a
    # frame mistaken for it. How long they take is timed on the host (see the module doc):
    # under TCG a frame takes ~0.1-0.3 s to decode and scale, far more on a busy host.
    assert all(latency[name] >= -0.05 for name in ("key_to_frame", "swipe_to_next_item")), latency
    print("input to screen, in the guest's CLOCK_MONOTONIC: "
          + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in latency.items()))


def test_swipes_change_item(results: Results):
    assert results.checks["after_swipe_left"] == "blue"
    assert results.checks["after_swipe_right"] == "red"


def test_scrub_seeks_along_the_bottom(results: Results):
    scrub = results.checks["scrub"]
    assert 17.5 <= scrub["first_pts"] <= 18.6, scrub
    assert scrub["last_pts"] > scrub["first_pts"], f"playback did not resume: {scrub}"


def test_hotplugged_keyboard_works_and_unplug_is_harmless(results: Results):
    assert results.checks["hotplug_next"] and results.checks["unplug_survived"]


def test_dropped_events_cancel_the_stroke_and_input_goes_on(results: Results):
    assert results.checks["flood_item_kept"], results.log
    assert results.checks["tap_after_flood_pauses"]


def test_kiosk_exits_cleanly(results: Results):
    assert results.rc == 0, results.log
    # No warning and no error: the scrub's burst of seeks once logged a false "untrusted video
    # timestamp: jump ... taken out" (a packet of the old position decoded after the seek's
    # flush; fixed in ItemPipeline.seek, and ItemPipelineSeekTests reproduces it on the host).
    # A guest starved for seconds has its video moved to the clock with one line (its speed,
    # not a fault: test_play, test_triggers).
    assert not [line for line in results.log.splitlines() if (" error " in line or "warning" in line)
                and "the video follows the clock" not in line], results.log
    print(f"guest command started {results.boot_seconds:.1f} s after boot; kiosk log:\n{results.log}")


def test_probe_lists_the_synthetic_devices(results: Results):
    devices = {d["name"]: d for d in results.probe["input"]["devices"]}
    touch, keys = devices["touch"], devices["keys"]
    assert touch["kind"] == "touchscreen" and touch["touchProtocol"] == "multitouch", touch
    assert [(a["axis"], a["minimum"], a["maximum"]) for a in touch["axes"]] == \
        [("ABS_MT_POSITION_X", 0, 4095), ("ABS_MT_POSITION_Y", 0, 4095)]
    assert keys["kind"] == "keyboard" and "KEY_RIGHT" in keys["boundKeys"], keys
    # The emulated PC's own keyboard is there too.
    assert any(d["name"] == "AT Translated Set 2 keyboard" and d["kind"] == "keyboard" for d in devices.values())


def test_user_without_access_is_told_which_group(results: Results):
    assert "permission denied; the user must be in group 'input'" in results.probe_nobody, results.probe_nobody
