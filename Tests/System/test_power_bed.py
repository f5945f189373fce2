"""Display power in the VM bed (bochs, 640x480, real KMS): the screen goes dark and comes back,
asked on the control socket and on schedule.

The guest runs `kiosk run` on a config playing a red clip (a white square moving, so frames
differ), and carries out the host's requests one by one: a `kiosk ctl` command line, `dpms`
(the connector's state as the kernel reports it in sysfs) or `hup` (reload kiosk.conf; the
host's writes to the shared directory raise no inotify event in the guest). The host checks:

1. `display_power off`: kiosk says so (a display_power event), the kernel says the connector
   is off, a screendump is dark, no frame is presented for two seconds (nothing is decoded),
   `get display_power` says off. `display_power auto`: the red picture and the frames are back.
2. kiosk.conf gains `display.power` whose only window opens at the next minute boundary at
   least a minute away (in a zone where it is around noon, so no day boundary interferes):
   after the reload the screen is off at once, `get schedule` says why and when it comes back;
   `display_power on` holds it on against the schedule, `auto` gives it back (off again); at
   the boundary the schedule switches it on, and the picture is back.
3. Paused, `kiosk ctl screenshot` saves the picture QEMU's screendump shows (kiosk's own front
   buffer, never read back from the CRTC), compared only where dumps before and after it agree
   (the screen stood still); an unwritable path is one error line.

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed, read_png  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
SIZE = (640, 480)

CONFIG = """items: [clip.mp4]
display: {output: drm}
audio: {device: none}
input: {enabled: false}
"""

GUEST_COMMAND = r'''K=@KIOSK@
SOCKET=/tmp/kiosk.sock
"$K" run --config kiosk.conf --control-socket $SOCKET --stats-file stats.jsonl > kiosk.log 2>&1 &
pid=$!
while [ ! -e $SOCKET ]; do sleep 0.1; done
"$K" ctl --socket $SOCKET watch > events.jsonl 2> watch.log &
watcher=$!
touch started
n=1
while [ ! -e finish ]; do
    if [ ! -e req-$n ]; then sleep 0.1; continue; fi
    words=$(cat req-$n)
    case "$words" in
        dpms) cat /sys/class/drm/card0-*/dpms > ans-$n.tmp 2>&1 ;;
        hup) kill -HUP $pid; echo sent > ans-$n.tmp ;;
        *) "$K" ctl --socket $SOCKET $words > ans-$n.tmp 2>&1 ;;
    esac
    mv ans-$n.tmp ans-$n
    n=$((n+1))
done
kill -TERM $pid
wait $pid; echo $? > kiosk.rc
kill $watcher
'''


def make_clip(path: Path) -> None:
    graph = ("color=c=red:s=320x240:r=10:d=30[bg];color=c=white:s=24x24:r=10[sq];"
             "[bg][sq]overlay=x='mod(t*100,296)':y=108:shortest=1")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_complex", graph, "-c:v", "libx264",
                    "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p", str(path)], check=True)


def noon_zone(now: dt.datetime) -> tuple[str, int]:
    """A fixed-offset tz database zone where `now` is around noon, and its offset in hours
    (Etc/GMT-N is UTC+N: POSIX's sign)."""
    k = 12 - now.hour
    name = "Etc/UTC" if k == 0 else (f"Etc/GMT-{k}" if k > 0 else f"Etc/GMT+{-k}")
    return name, k


class Guest:
    def __init__(self, bed: Bed, workdir: Path):
        self.bed, self.workdir, self.n = bed, workdir, 0

    def ask(self, words: str, timeout: float = 120) -> str:
        self.n += 1
        tmp = self.workdir / f"req-{self.n}.tmp"
        tmp.write_text(words)
        tmp.rename(self.workdir / f"req-{self.n}")
        return self.bed.wait_for_file(f"ans-{self.n}", timeout=timeout).read_text().strip()

    def events(self) -> list[dict]:
        return self._lines("events.jsonl")

    def frames(self) -> int:
        return len([line for line in self._lines("stats.jsonl") if line.get("event") is None])

    def _lines(self, name: str) -> list[dict]:
        path = self.workdir / name
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line) for line in lines if line.endswith("}")]

    def power_event(self, on: bool, after: int, timeout: float) -> int:
        """Waits for a display_power event saying `on` among the events after the first
        `after`; returns the count of events up to and including it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            events = self.events()
            for index in range(after, len(events)):
                if events[index].get("event") == "display_power" and events[index].get("on") is on:
                    return index + 1
            time.sleep(0.2)
        pytest.fail(f"no display_power {on} event within {timeout} s; events: {self.events()[after:]}")

    def wait_for_frames(self, more_than: int, timeout: float = 120) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (count := self.frames()) > more_than:
                return count
            time.sleep(0.2)
        pytest.fail(f"no frame presented within {timeout} s (still {more_than})")

    def shot_until(self, name: str, good, tries: int = 25) -> Path:
        """Screendumps until `good` holds (QEMU shows a change on its own display refresh)."""
        for _ in range(tries):
            path = self.bed.screendump(self.workdir / f"{name}.png")
            if good(path):
                break
            time.sleep(0.2)
        return path


def share(path: Path, test) -> float:
    image = read_png(path)
    pixels = [image.pixel(x, y) for y in range(0, image.height, 4) for x in range(0, image.width, 4)]
    return sum(1 for p in pixels if test(p)) / len(pixels)


def dark(path: Path) -> bool:
    return share(path, lambda p: max(p) < 16) >= 0.98


def red(path: Path) -> bool:
    return share(path, lambda p: p[0] > 200 and p[1] < 60 and p[2] < 60) >= 0.5


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build` first")
    workdir = tmp_path_factory.mktemp("power")
    make_clip(workdir / "clip.mp4")
    (workdir / "kiosk.conf").write_text(CONFIG)
    with Bed(driver="bochs", size=SIZE, workdir=workdir) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)))
        bed.wait_for_file("started", timeout=BOOT_TIMEOUT)
        guest = Guest(bed, workdir)
        guest.wait_for_frames(0, timeout=BOOT_TIMEOUT)
        yield guest
        (workdir / "finish").touch()
        bed.wait(timeout=120)
        assert (workdir / "kiosk.rc").read_text().strip() == "0", (workdir / "kiosk.log").read_text()


def test_the_control_socket_switches_the_screen_off_and_back(session: Guest):
    assert red(session.shot_until("playing", red)), "the clip is not on screen"
    assert session.ask("dpms") == "On"
    before = len(session.events())
    assert session.ask("display_power off") == ""
    seen = session.power_event(False, before, timeout=60)
    assert session.ask("dpms") == "Off"
    assert dark(session.shot_until("off", dark)), "the screen is not dark while off"
    assert session.ask("get display_power") == "off"
    frames = session.frames()
    time.sleep(2)
    assert session.frames() == frames, "frames were presented while the screen was off"

    assert session.ask("display_power auto") == ""
    session.power_event(True, seen, timeout=60)
    assert session.ask("dpms") == "On"
    assert red(session.shot_until("on-again", red)), "the picture did not come back"
    session.wait_for_frames(frames)


def test_the_schedule_switches_the_screen_off_and_on_and_the_socket_can_hold_it(session: Guest):
    now = dt.datetime.now(dt.timezone.utc)
    zone, hours = noon_zone(now)
    local = now + dt.timedelta(hours=hours)
    # The window opens 3-4 minutes from now: the checks of the scheduled dark below must come
    # before it. One to two minutes was not enough for CI's starved guest (2026-11-28: 97 s from
    # the reload to the status read, by which time the window had opened). The wait is in the
    # dark, where kiosk presents nothing.
    opens = (local + dt.timedelta(seconds=60)).replace(second=0, microsecond=0) + dt.timedelta(minutes=3)
    assert opens.day == local.day
    opening = opens.strftime("%H:%M")
    (session.workdir / "kiosk.conf").write_text(
        CONFIG.replace("display: {output: drm}",
                       f'display:\n  output: drm\n  power: [{{from: "{opening}", to: "24:00"}}]')
        + f"schedule: {{timezone: {zone}}}\n")
    before = len(session.events())
    assert session.ask("hup") == "sent"
    seen = session.power_event(False, before, timeout=60)
    assert session.ask("dpms") == "Off"
    assert dark(session.shot_until("scheduled-off", dark))
    status = json.loads(session.ask("get schedule"))
    assert status["timezone"] == zone
    assert status["state"]["display_power"] == "off" and status["display_power"] == "off"
    assert status["display_power_mode"] == "auto"
    assert status["next_change"]["at"].startswith(opens.strftime("%Y-%m-%dT%H:%M:00")), status
    assert status["next_change"]["display_power"] == "on"

    # Held on against the schedule, then handed back to it.
    assert session.ask("display_power on") == ""
    seen = session.power_event(True, seen, timeout=60)
    assert red(session.shot_until("held-on", red))
    assert json.loads(session.ask("get schedule"))["display_power_mode"] == "on"
    assert session.ask("display_power auto") == ""
    if json.loads(session.ask("get schedule"))["state"]["display_power"] == "on":
        # A host slow enough that the window opened while the socket held the screen on: auto
        # keeps it on, and the switch on schedule was not seen (the hold covered it).
        assert session.ask("get display_power") == "on"
        return
    seen = session.power_event(False, seen, timeout=60)

    # The window opens: on, on schedule.
    wait = (opens - (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=hours))).total_seconds()
    session.power_event(True, seen, timeout=max(wait, 0) + 90)
    assert session.ask("dpms") == "On"
    assert red(session.shot_until("scheduled-on", red)), "the picture did not come back on schedule"
    frames = session.frames()
    session.wait_for_frames(frames)


def square_x(path: Path) -> float | None:
    """The white square's centre across the picture (the clip's frame: it moves 10 px a
    frame), or None where none shows."""
    image = read_png(path)
    xs = [x for y in range(0, image.height, 2) for x in range(0, image.width, 2) if min(image.pixel(x, y)) > 200]
    return sum(xs) / len(xs) if xs else None


def differing_pixels(a: Path, b: Path) -> int:
    one, other = read_png(a), read_png(b)
    assert (one.width, one.height) == SIZE == (other.width, other.height)
    return sum(1 for y in range(SIZE[1]) for x in range(SIZE[0])
               if max(abs(p - q) for p, q in zip(one.pixel(x, y), other.pixel(x, y))) > 8)


def test_a_screenshot_is_what_the_screen_shows(session: Guest):
    """`kiosk ctl screenshot` from kiosk's own buffers against QEMU's screendump of the same
    paused frame (the white square's place differs from frame to frame, so a stale buffer or
    another frame would show). The screen is dumped before and after the screenshot: in a
    starved guest a second without a new frame does not prove the screen stands still (CI's
    loaded bed once told two frames apart here with nothing to say which moved), so the
    comparison counts only when both dumps agree, and is tried again (three times) when not."""
    assert session.ask("display_power on") == ""
    assert red(session.shot_until("before-shot", red))
    assert session.ask("pause") == ""
    allowed = SIZE[0] * SIZE[1] // 1000
    for attempt in range(3):
        # Paused once no frame comes for a second (an overlay-free config: nothing is redrawn).
        frames = session.frames()
        deadline = time.monotonic() + 60
        while True:
            time.sleep(1)
            if (count := session.frames()) == frames:
                break
            frames = count
            assert time.monotonic() < deadline, "frames kept coming after pause"
        before = session.bed.screendump(session.workdir / f"paused-dump-{attempt}.png")
        shot = session.workdir / f"paused-shot-{attempt}.png"
        assert session.ask(f"screenshot {shot.name}").endswith(f"/{shot.name}")
        after = session.bed.screendump(session.workdir / f"paused-dump-{attempt}-after.png")
        if differing_pixels(before, after) <= allowed:
            break
    else:
        pytest.fail("the paused screen kept changing across the screenshot, three times: "
                    f"square at x={square_x(before)} then x={square_x(after)}; "
                    f"last frames {session._lines('stats.jsonl')[-3:]}")
    assert red(shot)
    differing = differing_pixels(shot, before)
    assert differing <= allowed, (
        f"{differing} pixels differ from the screendump: the square at x={square_x(shot)} in the "
        f"screenshot, x={square_x(before)} on the screen; last frames {session._lines('stats.jsonl')[-3:]}; "
        f"get time {session.ask('get time')}")
    # A path that cannot be written is one error line, and kiosk plays on.
    answer = session.ask("screenshot /nonexistent/shot.png")
    assert "/nonexistent/shot.png" in answer and len(answer.splitlines()) == 1, answer
    assert session.ask("play") == ""
    session.wait_for_frames(frames)
