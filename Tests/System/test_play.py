"""System tests of `kiosk play` on real KMS drivers (bochs, virtio-gpu) in the VM bed.

One guest boots per driver (module-scoped) at 1280x800, the preferred mode, with the console
showing a few lines of text. In that one guest command, one kiosk after the other:

1. "Paused" cases: `kiosk play --start-paused` on a 360x240 pattern clip (the MediaFixtures
   pattern: gray, magenta border, coloured corner squares) with a gravity, a mode chosen with
   `--display drm::Virtual-1:WxH` and a `--rotation`. When the first frame's stats line is
   written the guest touches CASE/ready; the host takes a screendump and touches CASE/go; the
   guest sends SIGTERM and times the exit (CASE/exit.json: its status, and the time, reported;
   the 1 s bound is test_signals.py's on the host, where a busy machine cannot starve kiosk ten-
   fold as it does an emulated guest); the host takes another screendump (the console must be
   back) and touches CASE/done. Cases at the preferred mode come first:
   bochs (QEMU's VBE) clears video memory on a mode change, the console's text with it.
2. The "cadence" case: a 320x180 25 fps moving clip plays at 640x480 (a small mode: TCG
   scales ~100x slower than a native CPU). While it plays a second kiosk must be refused
   (another process is DRM master). Then it plays on for CADENCE_PLAY_SECONDS, and on until
   the host has taken two screendumps at least a second apart that differ (retried until they
   do: a starved guest's display can lag) and written cadence/shots-done; then SIGTERM. The
   bed checks that the picture moves and that media time follows the clock, not a frame
   counter; the cadence itself (25 fps at 40 ms +-10 %, drops) is test_vblank_pacing.py's, on
   the host, where the guest's speed cannot decide it.

The guest script (play-guest.sh) is bash and waits with `read -t` on a FIFO: under TCG every
exec of a host binary over 9p costs 0.1-0.2 s of CPU, and a polling `sleep` loop would take
that from kiosk while its start, exit and cadence are timed. kiosk writes its stats file into
the guest's /tmp (copied to the work dir after it exits): the work dir is a 9p share, and a
round trip to QEMU per frame would be measured too.

The host checks every screendump against `kiosk snapshot` of the same case (pixel-wise) and
against the gravity rules computed in Python (screen_geometry.py): bars, crop edges and
corner markers within 2 px.

Needs a kiosk build (built_kiosk.py): `swift build` in this worktree first.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import BOOT_TIMEOUT, Bed  # noqa: E402
from screen_geometry import (Screen, colours_where_different, differing_fraction,  # noqa: E402
                             gravity_layout, layout_mismatches, mean_abs_difference,
                             pattern_features, pattern_filter)

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
DRIVERS = ("bochs", "virtio-gpu")
PREFERRED = (1280, 800)
PATTERN_SIZE = (360, 240)   # 3:2, between 4:3 and 16:10: letterbox on one mode, pillarbox on the other
CADENCE_MODE, CADENCE_SIZE, CADENCE_FPS = (640, 480), (320, 180), 25
CADENCE_PLAY_SECONDS = 6     # the least measured stretch of playback (longer until the host's shots are done)


@dataclass(frozen=True)
class Case:
    gravity: str
    mode: tuple[int, int]
    rotation: int = 0

    @property
    def name(self) -> str:
        turn = f"-rot{self.rotation}" if self.rotation else ""
        return f"{self.gravity}-{self.mode[0]}x{self.mode[1]}{turn}"

    @property
    def kiosk_args(self) -> str:
        return (f"--display drm::Virtual-1:{self.mode[0]}x{self.mode[1]} "
                f"--gravity {self.gravity} --rotation {self.rotation}")

    @property
    def layout(self):
        return gravity_layout(PATTERN_SIZE, self.rotation, self.mode, self.gravity)


# Preferred-mode cases first (see the module doc); the modes are ones both drivers offer.
CASES = [Case(g, PREFERRED) for g in ("fit", "fill", "stretch")] \
    + [Case("fit", PREFERRED, 90), Case("fit", PREFERRED, 270)] \
    + [Case(g, (1024, 768)) for g in ("fit", "fill", "stretch")]
ROTATED = [c for c in CASES if c.rotation]

# The guest's side, a bash template the test fills in.
GUEST_SCRIPT = (Path(__file__).resolve().parent / "play_guest.sh").read_text()


@dataclass
class Shown:
    """One kiosk run as the host saw it."""
    shot: Path
    after: Path
    exit: dict
    stats: list[dict]
    log: str


@dataclass
class PlayGuest:
    driver: str
    workdir: Path
    exit_code: int
    bed_seconds: float
    boot_seconds: float
    console: Path
    shown: dict[str, Shown] = field(default_factory=dict)
    moving: tuple[Path, Path] | None = None
    second_rc: int = -1
    second_log: str = ""
    window_start: float = 0   # guest CLOCK_MONOTONIC (= /proc/uptime: a guest never suspends)


def make_pattern_clip(path: Path) -> None:
    # 4:4:4: no chroma subsampling, so colour edges are as sharp as luma ones after scaling.
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", pattern_filter(*PATTERN_SIZE),
                    "-pix_fmt", "yuv444p", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10", str(path)],
                   check=True)


def make_moving_clip(path: Path) -> None:
    """Long enough to outlast the slowest guest: the second kiosk must meet the first still
    playing (in a loaded CI bed a debug kiosk took 35 s to start over 9p, past a 30 s clip's
    end), and the host's shots must see it move. The cadence kiosk is stopped by the guest."""
    w, h = CADENCE_SIZE
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=s={w}x{h}:r={CADENCE_FPS}:d=120", "-pix_fmt", "yuv420p",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", str(CADENCE_FPS), str(path)], check=True)


def read_stats(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def in_cadence_mode(path: Path) -> bool:
    screen = Screen(path)
    return (screen.width, screen.height) == CADENCE_MODE


def shoot_until(bed: Bed, path: Path, good, tries: int = 15) -> Path:
    """Screendump until `good(path)` holds (virtio-gpu updates the host asynchronously)."""
    for _ in range(tries):
        bed.screendump(path)
        if good(path):
            break
        time.sleep(0.2)
    return path


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory) -> dict[str, Path]:
    """What each case should look like, from `kiosk snapshot` on the host."""
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build` first")
    directory = tmp_path_factory.mktemp("play-expected")
    clip = directory / "pattern.mp4"
    make_pattern_clip(clip)
    result = {}
    for case in CASES:
        out = directory / f"{case.name}.png"
        subprocess.run([str(KIOSK), "snapshot", str(clip), "--size", f"{case.mode[0]}x{case.mode[1]}",
                        "--gravity", case.gravity, "--rotation", str(case.rotation), "-o", str(out)], check=True)
        result[case.name] = out
    return result


def boot(driver: str, workdir: Path, snapshots: dict[str, Path]) -> PlayGuest:
    make_pattern_clip(workdir / "pattern.mp4")
    make_moving_clip(workdir / "moving.mp4")
    for name in [c.name for c in CASES] + ["cadence"]:
        (workdir / name).mkdir()
    script = (GUEST_SCRIPT.replace("@KIOSK@", str(KIOSK))
              .replace("@CASES@", "\n".join(f"show {c.name} {c.kiosk_args}" for c in CASES))
              .replace("@CADENCE_MODE@", "x".join(map(str, CADENCE_MODE)))
              .replace("@PLAY_SECONDS@", str(CADENCE_PLAY_SECONDS)))
    (workdir / "play-guest.sh").write_text(script)
    started = time.monotonic()
    with Bed(driver=driver, size=PREFERRED, workdir=workdir) as bed:
        bed.start("exec /bin/bash ./play-guest.sh")
        bed.wait_for_file("console-ready", timeout=BOOT_TIMEOUT)
        # virtio-gpu sends the console's text to the host when the guest's flush worker runs:
        # a starved guest (deploy/test --stress) showed a black screen for a while after the
        # echo had returned. Waited for (up to a minute), not timed.
        # Then until two shots agree, so a flush still under way is not taken for the console.
        console = shoot_until(bed, workdir / "console.png", shows_text, tries=300)
        for _ in range(50):
            again = bed.screendump(workdir / "console-again.png")
            if differing_fraction(console, again) == 0:
                break
            console.write_bytes(again.read_bytes())
            time.sleep(0.2)
        (workdir / "console-shot").touch()
        shown = {}
        for case in CASES:
            d = workdir / case.name
            bed.wait_for_file(f"{case.name}/ready", timeout=180)
            expected = snapshots[case.name]
            shot = shoot_until(bed, d / "shot.png", lambda p: mean_abs_difference(p, expected) < 1)
            (d / "go").touch()
            bed.wait_for_file(f"{case.name}/exit.json", timeout=60)
            after = shoot_until(bed, d / "after.png", lambda p: differing_fraction(console, p) < 0.02)
            (d / "done").touch()
            shown[case.name] = Shown(shot, after, {}, [], "")
        d = workdir / "cadence"
        bed.wait_for_file("cadence/playing", timeout=180)
        # The guest plays on until shots-done: a first shot in the cadence mode (a starved
        # virtio-gpu can still show the console), then, a second or more later, shots until one
        # differs from it (the picture moves; the display may lag behind the flips).
        first = shoot_until(bed, d / "moving-1.png", in_cadence_mode, tries=300)
        time.sleep(1.0)
        second = shoot_until(bed, d / "moving-2.png", lambda p: differing_fraction(first, p) > 0.005, tries=300)
        (d / "shots-done").touch()
        bed.wait_for_file("cadence/exit.json", timeout=60)
        after = shoot_until(bed, d / "after.png", lambda p: differing_fraction(console, p) < 0.02)
        (d / "done").touch()
        code = bed.wait(timeout=60)
        guest = PlayGuest(driver, workdir, code, time.monotonic() - started, bed.boot_seconds or 0.0,
                          console, shown, (first, second))
    guest.shown["cadence"] = Shown(first, after, {}, [], "")
    for name, item in guest.shown.items():
        d = workdir / name
        item.exit = json.loads((d / "exit.json").read_text())
        item.stats = read_stats(d / "stats.jsonl")
        item.log = (d / "kiosk.log").read_text(errors="replace")
    guest.second_rc = int((workdir / "cadence" / "second.rc").read_text())
    guest.second_log = (workdir / "cadence" / "second.log").read_text(errors="replace")
    guest.window_start = float((workdir / "cadence" / "window-start").read_text())
    print(f"{driver}: bed time {guest.bed_seconds:.1f} s (boot {guest.boot_seconds:.1f} s)")
    return guest


@pytest.fixture(scope="module")
def bochs_guest(tmp_path_factory, snapshots) -> PlayGuest:
    return boot("bochs", tmp_path_factory.mktemp("play-bochs"), snapshots)


@pytest.fixture(scope="module")
def virtio_gpu_guest(tmp_path_factory, snapshots) -> PlayGuest:
    return boot("virtio-gpu", tmp_path_factory.mktemp("play-virtio-gpu"), snapshots)


@pytest.fixture(params=DRIVERS)
def guest(request) -> PlayGuest:
    return request.getfixturevalue(request.param.replace("-", "_") + "_guest")


@pytest.fixture(params=CASES, ids=lambda c: c.name)
def case(request) -> Case:
    return request.param


def test_guest_command_completes(guest: PlayGuest):
    assert guest.exit_code == 0, (guest.workdir / "console.log").read_text(errors="replace")[-3000:]


def test_first_frame_matches_snapshot(guest: PlayGuest, case: Case, snapshots):
    shown = guest.shown[case.name]
    assert len(shown.stats) == 1, f"paused: one frame, not {len(shown.stats)}; {shown.log}"
    difference = mean_abs_difference(shown.shot, snapshots[case.name])
    assert difference < 1, f"{shown.shot} differs from {snapshots[case.name]} by {difference:.2f} on average"


def test_gravity_geometry(guest: PlayGuest, case: Case):
    shown = guest.shown[case.name]
    screen = Screen(shown.shot)
    assert (screen.width, screen.height) == case.mode, shown.log
    assert layout_mismatches(screen, case.layout, pattern_features(*PATTERN_SIZE)) == []


@pytest.mark.parametrize("rotated", ROTATED, ids=lambda c: c.name)
def test_rotation_puts_top_left_where_portrait_expects(guest: PlayGuest, rotated: Case):
    screen = Screen(guest.shown[rotated.name].shot)
    red = rotated.layout.to_screen(pattern_features(*PATTERN_SIZE)[0][2])
    x, y = int((red[0] + red[2]) / 2), int((red[1] + red[3]) / 2)
    # 90: the picture turned clockwise, the source's top-left is at the panel's top right;
    # 270: at the bottom left.
    right, bottom = x > screen.width / 2, y > screen.height / 2
    assert (right, bottom) == {90: (True, False), 270: (False, True)}[rotated.rotation]
    assert screen.colour(x, y) == "red"


@pytest.mark.parametrize("name", [c.name for c in CASES] + ["cadence"])
def test_sigterm_exits_zero(guest: PlayGuest, name: str):
    shown = guest.shown[name]
    print(f"{guest.driver}/{name}: exit {shown.exit['seconds']:.2f} s after SIGTERM")
    assert shown.exit["rc"] == 0, shown.log
    # What the bed proves is that the stop is taken and ends the process (a hang would be
    # SIGKILLed by the guest's 5-minute guard and fail here); how fast is test_signals.py's
    # test_stop_while_playing_within_a_second, on the host. Under TCG on a busy host an exit
    # that takes 0.1-0.2 s alone has been seen to take several.
    assert shown.exit["seconds"] < 60, f"exit took {shown.exit['seconds']} s after SIGTERM; {shown.log}"


def shows_text(path: Path) -> bool:
    """More than one colour on the console: the echoed lines are on screen."""
    console = Screen(path)
    return len({console.colour(x, y) for y in range(0, console.height, 4) for x in range(0, console.width, 4)}) >= 2


@pytest.mark.parametrize("name", [c.name for c in CASES] + ["cadence"])
def test_screen_is_restored_after_exit(guest: PlayGuest, name: str):
    shown = guest.shown[name]
    after = Screen(shown.after)
    assert (after.width, after.height) == PREFERRED, "the mode was not restored"
    assert shows_text(guest.console), "no text on the console before kiosk ran"
    mode_changed = name == "cadence" or next(c for c in CASES if c.name == name).mode != PREFERRED
    if guest.driver == "bochs" and mode_changed:
        # QEMU's VBE clears video memory on a mode change, the console's text with it: the
        # console's framebuffer is back (black), only the text is gone.
        assert colours_where_different(guest.console, shown.after) <= {(0, 0, 0)}
        assert differing_fraction(guest.console, shown.after) < 0.02
    else:
        # The console's framebuffer comes back, text and all.
        assert differing_fraction(guest.console, shown.after) == 0


def test_picture_changes_while_playing(guest: PlayGuest):
    first, second = guest.moving
    assert (Screen(first).width, Screen(first).height) == CADENCE_MODE
    assert differing_fraction(first, second) > 0.005


def test_frames_are_shown_in_order_never_early_and_accounted_for(guest: PlayGuest):
    # Behaviour that holds at any guest speed: frames go up in pts order, each step of the pts
    # is the frames dropped in between plus the one shown (nothing lost uncounted), and no
    # frame is shown before its time on the clock (the clock starts at the first flip and may
    # restart later after the decoder ran dry, which only delays frames). The cadence itself
    # (40 ms +-10 % at 25 fps, media time = wall time) is
    # test_vblank_pacing.py::test_frames_come_at_the_clip_rate_on_a_virtual_driver, on the host.
    stats = [s for s in guest.shown["cadence"].stats if s["video"]]
    assert len(stats) >= 3, f"only {len(stats)} frames; {guest.shown['cadence'].log}"
    period = 1 / CADENCE_FPS
    steps = [(round((b["pts"] - a["pts"]) / period), b["dropped"] - a["dropped"]) for a, b in zip(stats, stats[1:])]
    assert all(frames >= 1 for frames, _ in steps), f"pts not increasing: {steps}"
    # A guest starved for seconds (CI's loaded bed: 10 s) has its video moved to the clock, one
    # line each ("video and clock 10.0 s apart ... the video follows the clock"): a forward step
    # of that many frames, not counted as drops. Any other uncounted step is a lost frame.
    followed = guest.shown["cadence"].log.count("the video follows the clock")
    uncounted = [(frames, dropped) for frames, dropped in steps if frames != dropped + 1]
    assert all(frames > dropped + 1 for frames, dropped in uncounted) and len(uncounted) <= followed, \
        f"(frames stepped, dropped) {steps}; {followed} alignments logged"
    t0, p0 = stats[0]["t"], stats[0]["pts"]
    early = [(s["t"] - t0, s["pts"] - p0) for s in stats if (s["pts"] - p0) - (s["t"] - t0) > period]
    assert not early, f"frames shown more than a frame early (flip s, media s): {early[:5]}"
    times = [s["t"] for s in stats]
    intervals = sorted(b - a for a, b in zip(times, times[1:]))
    print(f"{guest.driver}: {len(stats)} frames in {times[-1] - times[0]:.2f} s, interval median "
          f"{statistics.median(intervals) * 1000:.1f} ms (p90 {intervals[len(intervals) * 9 // 10] * 1000:.1f}), "
          f"{stats[-1]['dropped'] - stats[0]['dropped']} dropped, media/wall "
          f"{(stats[-1]['pts'] - p0) / (times[-1] - t0):.3f} (reported; timed on the host)")


def test_second_kiosk_is_told_another_is_master(guest: PlayGuest):
    assert guest.second_rc == 1, guest.second_log
    assert "another process is DRM master on /dev/dri/card0" in guest.second_log, guest.second_log
    # ...while the first went on playing.
    stats = guest.shown["cadence"].stats
    assert stats and stats[0]["t"] < guest.window_start < stats[-1]["t"]


def test_video_plane_is_not_chosen_and_the_log_says_why(guest: PlayGuest):
    # bochs and virtio-gpu have no plane taking YUV: every frame goes through the CPU path, and
    # each kiosk run says so once.
    item = guest.shown["cadence"]
    lines = [line for line in item.log.splitlines() if "video plane" in line]
    assert len(lines) == 1, item.log
    assert all("video plane: not used, converting on the CPU: no plane on CRTC" in line and "takes YU12" in line
               for line in lines), lines
    assert item.stats and all(s.get("scanout") == "cpu" for s in item.stats), item.stats[:3]
