"""How long a process's threads were kept from a CPU, over time: the kernel's per-thread
`run_delay` (the second field of /proc/<pid>/task/<tid>/schedstat: nanoseconds spent runnable
but not running) and the machine's steal time (the eighth number of each `cpuN` line of
/proc/stat: time the hypervisor ran something else while this guest's virtual CPU wanted to
run), sampled every few milliseconds while the process lives.

Pacing tests on a shared machine use it to tell a late flip the machine caused (a kiosk
thread was ready and waited for a CPU, or the CPU it ran on was taken away from the whole
machine) from one kiosk caused (it was running, or sleeping when it should not have): a flip
late while kiosk was kept from a CPU for most of the lateness is the machine's; any other late
flip is kiosk's.

Why steal too: a CI host once stalled the whole machine for ~100 ms a few times a minute
(flips 100-133 ms apart inside items, in every process at once). A thread on a stolen virtual
CPU is "running" as far as the guest's scheduler knows, so its run delay stays small (2 ms for
a 103 ms seam), and the sampler, stolen too, woke 53 ms late: only the steal counter says it."""
from __future__ import annotations

import bisect
import os
import threading
import time

TICK = 1 / os.sysconf("SC_CLK_TCK")


def steal_per_cpu() -> list[int]:
    """Each CPU's steal time so far, in clock ticks (empty where /proc/stat has none)."""
    try:
        with open("/proc/stat") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return []
    return [int(line.split()[8]) for line in lines
            if line.startswith("cpu") and not line.startswith("cpu ") and len(line.split()) > 8]


class RunDelaySampler:
    """Samples `pid`'s threads (none: the machine's steal only) until it exits or `stop()`;
    times are CLOCK_MONOTONIC seconds, as kiosk's stats file writes its flips. Every 10 ms: a
    3 ms step cost a fifth of a core beside a pacing test (CI: test_seams' CPU 13 s -> 41 s),
    which itself disturbs it."""

    def __init__(self, pid: int | None, interval: float = 0.01):
        self.pid, self.interval = pid, interval
        self.times: list[float] = []
        self.delays: list[dict[int, int]] = []
        self.steals: list[list[int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> dict[int, int] | None:
        if self.pid is None:
            return {}
        try:
            tids = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return None
        delays = {}
        for tid in tids:
            try:
                with open(f"/proc/{self.pid}/task/{tid}/schedstat") as f:
                    delays[int(tid)] = int(f.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue   # a thread that ended between the listing and the read
        return delays

    def _run(self) -> None:
        while not self._stop.is_set():
            delays = self._sample()
            if delays is None:
                return
            steals = steal_per_cpu()
            self.times.append(time.monotonic())
            self.delays.append(delays)
            self.steals.append(steals)
            time.sleep(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def waited(self, start: float, end: float) -> tuple[float, float, float] | None:
        """Between the samples around [start, end]: the longest any one thread waited to run,
        how much wider than the span those samples are, and the most steal time any one CPU
        had (seconds); None where the samples do not cover the span."""
        first = bisect.bisect_right(self.times, start) - 1
        last = bisect.bisect_left(self.times, end)
        if first < 0 or last >= len(self.times):
            return None
        before, after = self.delays[first], self.delays[last]
        longest = max((after[tid] - before.get(tid, 0) for tid in after), default=0) / 1e9
        widening = (start - self.times[first]) + (self.times[last] - end)
        stolen = max((b - a for a, b in zip(self.steals[first], self.steals[last])), default=0) * TICK
        return longest, widening, stolen

    def held_back(self, start: float, end: float, at_least: float) -> bool:
        """Whether kiosk was kept from a CPU for `at_least` seconds between start and end: one
        of its threads waited that long to run, or a CPU was stolen from the machine that long
        (the sampler, itself stolen, may then wake late by as much; otherwise its samples must
        lie within 50 ms of the span, or a wait outside it could be counted)."""
        waited = self.waited(start, end)
        if waited is None:
            return False
        longest, widening, stolen = waited
        return max(longest, stolen) >= at_least and widening - stolen <= 0.05
