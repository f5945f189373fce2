"""Soak (issue 7): two 1 s clips of 64x64 at 25 fps, one with sound and one without, looped
untimed (the headless display flips at once, so it runs as fast as kiosk opens and decodes)
until 10,000 items have played, 5,000 each. /proc/PID/status VmRSS, the thread count and the
open descriptors are sampled all along.

kiosk runs with MALLOC_ARENA_MAX=2, as deploy/kiosk.service sets it: glibc's default of up to
8 arenas per core for kiosk's short-lived item threads keeps freed memory spread over arenas it
does not give back, which lifted RSS by 25 MiB and made it drift by megabytes from run to run.

Warm-up is the first 2,000 item plays: allocator arenas, FFmpeg's codec tables and the decoder
threads' stacks settle there. After it, RSS may grow by 3 MiB at the most, measured on the
floor of the memory: the 10th percentile of the samples over the last 2,000 plays against the
one over plays 2,000 to 4,000; past that, 10,000 plays more, over which the floor must not
rise by 1.5 MiB (a step once, as a loaded CI host showed, passes; a leak goes on). Single
samples swing by up to +-8 MiB with the decoder threads and frames in flight at that instant, and 2,000-play medians by +-1.5 MiB from run to run (a CI
run saw +3.8 MiB between two medians with no trend behind it); the floor is what is left when
nothing is in flight, it held within 0.3 MiB over 22,000 plays, and a leak lifts it as much as
any median. Descriptors come and go with the items being opened and closed; their floor must
not rise, and their peak stays within one of the warm-up's.

Threads are counted at rest: after the first 2,000 plays past warm-up and again after the last, kiosk is
paused through its control socket and the count is read once it has held still for a second
(the items closing meanwhile have ended their threads). A leak is what is left then; the
counts while playing swing with the items in flight, and a starved host (`deploy/test
--stress`) lifted their 10th percentile by three with no leak behind it."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

import hostile_corpus as corpus
from control_client import ControlClient

# The release build when it is as new as the debug one (built_kiosk.py): 10,000 item plays are the suite's
# longest CPU-bound host run, the debug build (-Onone) costs ~2x the CPU for the same behaviour, and
# the boxes run the release build (#34).
from built_kiosk import KIOSK  # noqa: E402
PLAYS = 10_000
WARM_UP = 2_000
# RSS floor growth allowed over the 10,000 plays; past it the soak plays CONFIRM more, and what
# decides is whether the floor went on rising over those (a leak does; a step does not).
GROWTH_LIMIT_KIB = 3 * 1024
CONFIRM = 10_000
FURTHER_LIMIT_KIB = 1536
TIME_LIMIT = 420


class StatsCounter:
    """Counts item plays in a growing stats trace, reading only what was added."""

    def __init__(self, path: Path):
        self.path, self.offset, self.partial, self.plays, self.last = path, 0, b"", 0, None

    def update(self):
        if not self.path.exists():
            return self.plays
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = self.partial + handle.read()
        self.offset += len(data) - len(self.partial)
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            record = json.loads(line)
            # A new play: another item, or the same item starting again (pts goes back).
            if self.last is None or record["item"] != self.last[0] or record["pts"] < self.last[1]:
                self.plays += 1
            self.last = (record["item"], record["pts"])
        return self.plays


def threads_at_rest(pid, socket_path: Path) -> int:
    """Pauses kiosk, reads its thread count once it has held for a second (at most 30 s), plays
    on; returns the count."""
    tell(socket_path, "pause")
    counts: list[int] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        counts.append(sample(pid)[1])
        if len(counts) >= 5 and len(set(counts[-5:])) == 1:
            break
        time.sleep(0.25)
    tell(socket_path, "play")
    return counts[-1]


def tell(socket_path: Path, word: str) -> None:
    """One command on a connection of its own: a connection kept open unread while the items
    race by would fill with their events, and the server drops a client that does not read."""
    client = ControlClient(socket_path, timeout=20)
    try:
        client.ok(word)
    finally:
        client.close()


def sample(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kib = int(fields["VmRSS"].split()[0])
    threads = int(fields["Threads"])
    descriptors = len(os.listdir(f"/proc/{pid}/fd"))
    return rss_kib, threads, descriptors


@pytest.fixture(scope="module")
def soak(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("soak")
    with_sound = corpus.good_clip(directory / "sound.mp4", seconds=1, size="64x64", sound=True)
    silent = corpus.good_clip(directory / "silent.mp4", seconds=1, size="64x64", sound=False, pattern="smptehdbars")
    stats, control = directory / "stats.jsonl", directory / "control.sock"
    process = subprocess.Popen([str(KIOSK), "play", str(with_sound), str(silent), "--loop", "--untimed",
                                "--display", "headless:64x64", "--audio", "null", "--no-input",
                                "--stats-file", str(stats), "--control-socket", str(control)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "MALLOC_ARENA_MAX": "2"})
    counter, samples, rest, target = StatsCounter(stats), [], {}, PLAYS
    started = time.monotonic()
    try:
        while time.monotonic() - started < TIME_LIMIT and process.poll() is None:
            time.sleep(0.25)
            plays = counter.update()
            samples.append((plays, *sample(process.pid)))
            # After the first window the RSS check compares: while paused, the stats lines kiosk
            # had not yet written arrive at once and the count jumps, leaving a window unsampled.
            if plays >= WARM_UP + 2_000 and "warm" not in rest:
                rest["warm"] = threads_at_rest(process.pid, control)
            if plays >= target:
                if target == PLAYS and (rss_growth(samples)[0] or 0) > GROWTH_LIMIT_KIB:
                    target = PLAYS + CONFIRM
                    continue
                rest["end"] = threads_at_rest(process.pid, control)
                break
        elapsed = time.monotonic() - started
        running = process.poll() is None
    finally:
        _, err = corpus.stop(process)
    return dict(samples=samples, plays=counter.update(), elapsed=elapsed, running=running, rest=rest, target=target,
                returncode=process.returncode, stderr=err.decode("utf-8", "replace"))


def window(samples, low, high):
    return [s for s in samples if low <= s[0] < high]


def test_ten_thousand_plays_without_a_crash(soak):
    print(f"{soak['plays']} plays in {soak['elapsed']:.0f} s ({soak['plays'] / soak['elapsed']:.0f} a second)")
    assert soak["running"], f"kiosk ended during the soak:\n{soak['stderr'][-2000:]}"
    assert soak["plays"] >= PLAYS, f"only {soak['plays']} plays in {TIME_LIMIT} s"
    assert soak["returncode"] == 0, soak["stderr"][-2000:]


def floor(values):
    """The 10th percentile: the memory held with (almost) nothing in flight."""
    values = sorted(values)
    return values[len(values) // 10]


def rss_growth(samples):
    """(growth, floor after warm-up, floor over the last 2,000 plays sampled), KiB; growth None
    while a window has too few samples. The last 2,000 plays that were sampled: the count read
    once kiosk stopped may be further on (run-21: the end's pause took its full 30 s with kiosk
    playing on, 5,000 more plays, none of them sampled, and this window came out empty)."""
    settled = window(samples, WARM_UP, WARM_UP + 2_000)
    last = samples[-1][0]
    late = window(samples, last - 2_000, last + 1)
    if len(settled) < 5 or len(late) < 5:
        return None, None, None
    settled_rss, late_rss = floor(s[1] for s in settled), floor(s[1] for s in late)
    return late_rss - settled_rss, settled_rss, late_rss


def test_memory_and_descriptors_stay_flat(soak):
    samples = soak["samples"]
    growth, settled_rss, late_rss = rss_growth(samples)
    assert growth is not None, f"too few samples: {len(samples)}"
    running = samples[4:]
    print(f"RSS floor (10th percentile) after warm-up {settled_rss / 1024:.1f} MiB, over the last 2,000 plays "
          f"{late_rss / 1024:.1f} MiB (growth {growth / 1024:+.2f} MiB; samples "
          f"{min(s[1] for s in running) / 1024:.1f}-{max(s[1] for s in running) / 1024:.1f} MiB); threads "
          f"{min(s[2] for s in running)}-{max(s[2] for s in running)}; fds {min(s[3] for s in running)}-"
          f"{max(s[3] for s in running)}; {len(samples)} samples")
    # The floors themselves move from run to run: 2026-11-24, the same build's growth at 10,000
    # plays was +1.5, +1.6, +2.0 and +2.4 MiB in four runs (after a change that only made the
    # item pipeline 8 bytes larger; before it -0.3 and +0.1), and +0.07 MiB over 31,500 plays,
    # where a leak of the size those numbers would mean (250 bytes a play) shows as +7 MiB. So
    # 3 MiB: a leak of 400 bytes a play still fails here.
    #
    # A step remains: a CI run (2026-11-28, other tests beside it) had its floor 3.5 MiB higher at
    # 10,000 plays, while this machine alone held it within 0.5 MiB over 24,000. Past the limit the
    # soak has played CONFIRM more, and the floor must not have gone on rising over those: a leak
    # of 150 bytes a play lifts it by 1.5 MiB there.
    if soak["target"] == PLAYS:
        assert growth <= GROWTH_LIMIT_KIB, f"RSS grew {growth} KiB after warm-up"
    else:
        at_limit = floor(s[1] for s in window(samples, PLAYS - 2_000, PLAYS))
        further = late_rss - at_limit
        print(f"over the limit at {PLAYS} plays; floor then {at_limit / 1024:.1f} MiB, "
              f"{further / 1024:+.2f} MiB over the next {CONFIRM}")
        assert further <= FURTHER_LIMIT_KIB, f"RSS grew {growth} KiB after warm-up, {further} KiB of it over the last {CONFIRM} plays"
    # Threads and descriptors of items being opened and closed come and go; a leak raises the
    # floor, and the descriptors' peak after warm-up stays within one of those seen during it.
    # The floor is the rare sample taken between one item's close and the next one's open: on a
    # slow host (run-15: 127 samples, not 248) a window may never catch it, so one of slack; a
    # leak of one descriptor per 1,000 plays would raise it by about seven.
    warm = window(samples, WARM_UP // 2, WARM_UP + 2_000)
    after = window(samples, WARM_UP + 2_000, soak["plays"] + 1)
    assert min(s[3] for s in after) <= min(s[3] for s in warm) + 1, "open descriptors grew"
    assert max(s[3] for s in after) <= max(s[3] for s in warm) + 1, "open descriptors grew"
    # Threads at rest (paused, nothing closing): the same item state both times, so a leak is
    # the difference; one of slack for an item prepared ahead at one pause and not the other.
    # One thread per 1,000 plays would add six over the 6,000 plays between the two.
    rest = soak["rest"]
    print(f"threads at rest: {rest.get('warm')} after warm-up, {rest.get('end')} at the end")
    assert rest["end"] <= rest["warm"] + 1, "threads grew"
