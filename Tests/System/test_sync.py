"""Frame sync (issue: walls and fleets): several kiosk processes on one host share its real-time
clock, as boxes on a LAN share one through chrony or linuxptp. Each has a headless display on a
simulated vblank grid at a slightly different refresh rate (59.94, 60, 60.05 Hz) and starts at a
different moment; all play the same 3-item looping playlist with `sync: epoch:`. For 10 minutes
(KIOSK_SYNC_SECONDS shortens it when working on the test), every flip's stats line (`rt`: the
flip's CLOCK_REALTIME, `item`, `pts`) is compared with where the timeline is at that instant. Half
way, the 60 Hz process is killed (SIGKILL) and started again: it must be back on the timeline
within 1 s. The offsets measured are printed (BENCHMARKS.md, "Sync").

A flip that comes late because the process was not scheduled in time (a flip a frame and two
refreshes of its display or more after the one before it, a quarter refresh allowed for the
grid's timing: this 2-core host runs builds and guests beside the test) may show the frame
chosen before the stall, and the flips right after it the frames the stalled decoder has ready (the freshest is shown, none is skipped ahead of decoding), however well
the player follows the timeline. The flips within 250 ms of a stall are counted and reported
apart. A stall is the machine's where a CPU was stolen from the whole machine for half its
lateness or more (steal time, sampled beside the wall: run_delay.py), or where another of the
processes, which share nothing but the machine, stalled at the same moment away from a seam (the
items change at the same instant in all three, so a stall of kiosk's own at a seam would be
seen in all: those count as kiosk's unless stolen). A CI host stole ~100 ms from the whole
machine a few times a minute, stalling all three processes at once 22-26 times in ten minutes.
kiosk's own stalls must be few (at most 1 in 1,000 flips, 3 in a short run); the machine's are
printed. A flip that missed the vblank its frame was chosen for (the stats line's `aim`: it
came a refresh or more after it) shows a frame a refresh old; at 30 fps on 60 Hz that leaves no
longer gap than a frame held a third refresh by the cadence, so only `aim` tells it. Such a
flip is excused from the bound itself (ci62's one flip 38.4 ms off at 60.05 Hz may have been
one; ci66's 37.1 ms at 60 Hz was on its aim: a two-refresh slip, then just under the stall
line, a stall since ci111's same slip, BENCHMARKS.md "Sync"), and misses away from a stall must be few (at most 1 in 200 flips, 3 in a short run).
Every other flip is held to the one-frame bound, so a player that does not catch up within
250 ms fails.

The wall mostly waits, so it does not hold the suite for ten minutes: conftest starts it with the
session's first test and it plays beside the others (its processes real-time where allowed);
the tests below collect what it recorded. Run alone, the module plays it then."""
import atexit
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import seam_clips
from run_delay import RunDelaySampler

# The release build when it is as new as the debug one (built_kiosk.py): ten minutes of three kiosks are the suite's
# longest CPU-bound host run, the debug build (-Onone) costs ~2x the CPU for the same behaviour, and
# the boxes run the release build (#34).
from built_kiosk import KIOSK  # noqa: E402
SECONDS = float(os.environ.get("KIOSK_SYNC_SECONDS", "600"))
EPOCH_TEXT = "2026-01-01T00:00:00Z"
EPOCH = 1767225600.0
RATES = ["59.94", "60", "60.05"]
STARTS = [0.0, 1.7, 4.3]
RESTARTED = "60"
# The wall plays beside the other tests (conftest's `beside_the_others`), which keep both cores
# busy. On a box kiosk is the one process that matters; here its three light processes (320x180,
# a few percent of a core each) run under the round-robin real-time policy where the test may set
# it (root, as in CI), so that no other test's process delays a frame past its refresh. Two runs
# of stop 40 with the wall beside the suite at nice -10 each had one flip of ~15,800 a millisecond
# past the one-frame bound. Elsewhere nice -10 (nice(1) says so and runs kiosk as it is where it
# may not). A stall that still happens is counted apart (see the module's text).
def scheduling_prefix():
    if subprocess.run(["chrt", "--rr", "10", "true"], capture_output=True).returncode == 0:
        return ["chrt", "--rr", "10"]
    return ["nice", "-n", "-10"]


# name, fps, seconds, sound: different lengths and rates, one with sound (played to a null
# device that keeps real time, so the sound's steering runs too).
CLIPS = [("a.mp4", 25, 4.0, True), ("b.mp4", 30, 3.0, False), ("c.mp4", 25, 2.6, False)]


def make_clip(directory, name, fps, seconds, sound):
    """A seam clip at 320x180 with a keyframe a second; its length as the container says."""
    path = seam_clips.make_clip(directory, name, "320x180", fps, seconds, sound, gop=fps)
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
                           check=True, capture_output=True, text=True)
    return float(probe.stdout)


def start(directory, rate, run_for):
    stats = directory / f"stats-{rate}-{time.monotonic_ns()}.jsonl"
    log = open(directory / f"log-{rate}.txt", "a")
    process = subprocess.Popen(scheduling_prefix() + [str(KIOSK), "run", "--config", str(directory / "kiosk.conf"),
                                "--display", f"headless:320x180@{rate}:vblank", "--audio", "null",
                                "--stats-file", str(stats), "--control-socket", "none", "--state-dir", str(directory),
                                "--duration", str(run_for)], stdout=log, stderr=subprocess.STDOUT)
    return process, stats, time.time()


class Wall:
    """The three processes on their schedule (staggered starts, the kill and restart half way),
    kept by a thread of its own so that the wall's ten minutes pass while other tests run."""

    def __init__(self, directory):
        self.directory = directory
        self.runs = {}
        self.slots = None
        self.failure = None
        self.steal = RunDelaySampler(None)
        self.thread = threading.Thread(target=self._play, name="sync-wall", daemon=True)
        self.thread.start()
        # A session that ends before the wall's tests (pytest -x after an early failure) leaves
        # no kiosk playing on for the rest of its ten minutes.
        atexit.register(self._stop)

    def _stop(self):
        for processes in list(self.runs.values()):
            for process, _, _ in processes:
                if process.poll() is None:
                    process.kill()

    def _play(self):
        try:
            if not KIOSK.exists():
                raise RuntimeError(f"{KIOSK} is missing: run swift build first")
            directory = self.directory
            self.slots = [make_clip(directory, *clip) for clip in CLIPS]
            (directory / "kiosk.conf").write_text(
                f"display: {{output: headless}}\nsync: {{epoch: {EPOCH_TEXT}}}\nitems:\n"
                + "".join(f"  - {clip[0]}\n" for clip in CLIPS))
            began = time.monotonic()
            for rate, delay in zip(RATES, STARTS):
                time.sleep(max(0.0, began + delay - time.monotonic()))
                self.runs[rate] = [start(directory, rate, SECONDS - delay)]
            time.sleep(max(0.0, began + SECONDS / 2 - time.monotonic()))
            first, _, _ = self.runs[RESTARTED][0]
            first.send_signal(signal.SIGKILL)
            first.wait()
            self.runs[RESTARTED].append(start(directory, RESTARTED, SECONDS / 2 - 2))
        except Exception as error:  # said by the tests, not by whichever test was running
            self.failure = error
            for processes in self.runs.values():
                for process, _, _ in processes:
                    process.kill()

    def result(self):
        self.thread.join(timeout=SECONDS + 600)
        self.steal.stop()
        if self.failure is not None:
            pytest.fail(f"the sync wall could not run: {self.failure}")
        assert not self.thread.is_alive(), "the sync wall's schedule did not end"
        for processes in self.runs.values():
            for process, _, _ in processes:
                assert process.wait(timeout=SECONDS + 60) in (0, -signal.SIGKILL)
        return self.slots, self.runs, self.directory, self.steal


# Set by start_beside_the_others when the session begins with this module's tests selected.
_beside = None


def start_beside_the_others(tmp_path_factory):
    """Called by conftest's `beside_the_others` at the session's first test."""
    global _beside
    _beside = Wall(tmp_path_factory.mktemp("sync"))


@pytest.fixture(scope="module")
def wall(tmp_path_factory):
    run = _beside or Wall(tmp_path_factory.mktemp("sync"))
    return run.result()


def offsets(stats, slots, refresh):
    """(rt, offset, item, late) per flip: where the timeline is minus what is shown, on the
    loop's own time (wrapped into half a turn each way), in seconds; `late`: the flip came after
    the process stalled, or missed its aim (see the module's text)."""
    starts = [sum(slots[:i]) for i in range(len(slots))]
    turn = sum(slots)
    result = []
    previous = None
    last_stall = None
    for record in flips_of(stats):
        timeline = (record["rt"] - EPOCH) % turn
        shown = starts[record["item"]] + record["pts"]
        if stalled(previous, record, refresh):
            last_stall = record["t"]
        late = missed_its_aim(record) or (last_stall is not None and record["t"] - last_stall <= 0.25)
        previous = record
        result.append((record["rt"], (timeline - shown + turn / 2) % turn - turn / 2, record["item"], late))
    return result


def flips_of(stats):
    """The stats file's flips of the playlist's video frames, in order."""
    records = (json.loads(line) for line in stats.read_text().splitlines())
    return [record for record in records if record["video"] and record["item"] >= 0]


def stalled(previous, record, refresh):
    """Whether the flip `record` came after a stall of the process: a frame and two refreshes
    (`refresh`: its display's, seconds) after the flip before it, less a quarter refresh for the
    grid's timing (see the module's text). Before ci111 the line was a frame and two refreshes
    of 59.9 Hz, strictly: a 30 fps frame up two refreshes late (four refreshes after the one
    before) was a stall at 59.94 Hz (66.73 > 66.72 ms) and none at 60 Hz (66.67 ms), so the
    same slip was excused on one display and failed the bound on the next (ci62, ci66, ci111)."""
    return (previous is not None
            and record["t"] - previous["t"] >= frame_period(record["item"]) + 1.75 * refresh)


def missed_its_aim(record):
    """Whether the flip came a refresh or more after the one its frame was chosen for."""
    return "aim" in record and record["t"] - record["aim"] > 0.5 / 59.9


def misses_of(records, refresh):
    """The flips of `records` that missed their aim away from a stall (within 250 ms after one,
    a miss is that stall's, counted and judged with it)."""
    result, previous, last_stall = [], None, None
    for record in records:
        if stalled(previous, record, refresh):
            last_stall = record["t"]
        if missed_its_aim(record) and (last_stall is None or record["t"] - last_stall > 0.25):
            result.append(record)
        previous = record
    return result


def refresh_of(rate):
    """One refresh of the display at `rate` (one of RATES), in seconds."""
    return 1 / float(rate)


def frame_period(item):
    return 1 / CLIPS[item][1]


def stalls_of(stats, slots, refresh):
    """(monotonic time of the flip before, of the flip after, the latter's rt and item, whether
    it is within half a second of a seam) per stall of one process (see the module's text)."""
    result, previous = [], None
    for record in flips_of(stats):
        if stalled(previous, record, refresh):
            near_seam = (record["item"] != previous["item"] or record["pts"] < 0.5
                         or previous["pts"] > slots[previous["item"]] - 0.5)
            result.append((previous["t"], record["t"], record["rt"], record["item"], near_seam))
        previous = record
    return result


def classified_stalls(runs, slots, steal):
    """Per (rate, which of its processes): (rt, ms between the flips, the machine's) per stall."""
    every = {(rate, i): stalls_of(stats, slots, refresh_of(rate)) for rate, processes in runs.items()
             for i, (_, stats, _) in enumerate(processes)}
    result = {key: [] for key in every}
    for key, stalls in every.items():
        others = [stall for other, theirs in every.items() if other != key for stall in theirs]
        for before, after, rt, item, near_seam in stalls:
            stolen = steal.held_back(before, after, (after - before - frame_period(item)) / 2)
            together = not near_seam and any(b > before and a < after for a, b, *_ in others)
            result[key].append((rt, round((after - before) * 1000), stolen or together))
    return result


def test_every_flip_is_within_one_frame_of_the_timeline(wall):
    slots, runs, _, steal = wall
    summary = []
    every_stall = classified_stalls(runs, slots, steal)
    for rate, processes in runs.items():
        joined = []
        stalls = []
        misses = 0
        aimed = 0
        for n, (process, stats, launched) in enumerate(processes):
            flips = offsets(stats, slots, refresh_of(rate))
            assert flips, f"{rate} Hz: no frame shown"
            # From its first frame in sync on (the join: test_a_restarted_box_rejoins_within_a_second).
            first_in_sync = next(i for i, (_, offset, item, _) in enumerate(flips) if abs(offset) <= frame_period(item))
            joined += flips[first_in_sync:]
            records = flips_of(stats)[first_in_sync:]
            aimed += sum("aim" in record for record in records)
            misses += len(misses_of(records, refresh_of(rate)))
            stalls += [(ms, machine) for rt, ms, machine in every_stall[rate, n] if rt > flips[first_in_sync][0]]
        # Excused from the bound: after a stall, or a flip that missed its aim.
        recovering = [(round(offset * 1000, 1), item) for _, offset, item, late in joined if late]
        own = [ms for ms, machine in stalls if not machine]
        off = [(offset, item) for _, offset, item, late in joined if not late]
        outside = [(round(o * 1000, 1), item) for o, item in off if abs(o) > frame_period(item)]
        magnitudes = sorted(abs(o) for o, _ in off)
        p99 = magnitudes[int(len(magnitudes) * 0.99)]
        summary.append(f"{rate} Hz: {len(off)} flips, worst {magnitudes[-1] * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; "
                       f"{len(stalls)} stalls of the process ({len(stalls) - len(own)} the machine's), "
                       f"{misses} of {aimed} timed flips past their aim away from a stall, "
                       f"{len(recovering)} flips within 250 ms of a stall or past their aim, "
                       f"{sum(abs(o) > frame_period(i) * 1000 for o, i in recovering)} of them off")
        assert not outside, f"{rate} Hz: {len(outside)} of {len(off)} flips more than a frame from the timeline: {outside[:10]}"
        assert aimed > len(joined) / 2, f"{rate} Hz: only {aimed} of {len(joined)} flips say their aim"
        assert misses <= max(3, aimed / 200), f"{rate} Hz: {misses} of {aimed} timed flips missed their vblank"
        assert len(own) <= max(3, len(joined) / 1000), (f"{rate} Hz: {len(own)} stalls not the machine's "
                                                        f"(ms between flips): {own[:10]}; {len(stalls)} in all")
        # Enough flips: the whole run was played (25-30 fps for the run's length).
        assert len(off) > 20 * SECONDS * 0.9
    print("\nSync: " + "; ".join(summary))
    # For BENCHMARKS.md's "Sync" line from a whole run (deploy/test does not show prints).
    if os.environ.get("KIOSK_SYNC_REPORT"):
        with open(os.environ["KIOSK_SYNC_REPORT"], "a") as report:
            report.write(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {SECONDS:g} s: " + "; ".join(summary) + "\n")


def test_pictures_move_in_single_steps(wall):
    """Between two flips the shown position advances by the time between them, give or take
    a frame: the timeline is followed by repeating or dropping single frames, never jumps."""
    slots, runs, _, _ = wall
    for rate, processes in runs.items():
        for _, stats, _ in processes:
            flips = offsets(stats, slots, refresh_of(rate))
            joined = next(i for i, (_, offset, item, _) in enumerate(flips) if abs(offset) <= frame_period(item))
            # Steps within 250 ms of a stall of the process are the stall's, not the player's.
            steps = [(b[1] - a[1]) for a, b in zip(flips[joined:], flips[joined + 1:]) if not a[3] and not b[3]]
            assert max(abs(step) for step in steps) <= 2 / 25 + 0.002, rate


def test_a_restarted_box_rejoins_within_a_second(wall):
    slots, runs, directory, _ = wall
    _, stats, launched = runs[RESTARTED][1]
    flips = offsets(stats, slots, refresh_of(RESTARTED))
    first = flips[0][0]
    in_sync = next(rt for rt, offset, item, _ in flips if abs(offset) <= frame_period(item))
    print(f"\nrestarted: first frame {first - launched:.2f} s after the launch, in sync {in_sync - first:.3f} s after it")
    assert in_sync - first <= 1.0
    log = (directory / f"log-{RESTARTED}.txt").read_text()
    assert "sync: joining the timeline at item" in log


def test_every_process_played_every_item(wall):
    slots, runs, _, _ = wall
    for rate, processes in runs.items():
        shown = {item for _, stats, _ in processes for _, _, item, _ in offsets(stats, slots, refresh_of(rate))}
        assert shown == {0, 1, 2}, rate
