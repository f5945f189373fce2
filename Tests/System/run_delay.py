"""How long a process's threads were kept waiting to run, over time: the kernel's per-thread
`run_delay` (the second field of /proc/<pid>/task/<tid>/schedstat: nanoseconds spent runnable
but not running), sampled every few milliseconds while the process lives.

Pacing tests on a shared machine use it to tell a late flip the machine caused (a kiosk
thread was ready and waited for a CPU) from one kiosk caused (it was running, or sleeping
when it should not have): a flip late while kiosk's threads waited for the CPU for most of the
lateness is the machine's; any other late flip is kiosk's."""
from __future__ import annotations

import bisect
import os
import threading
import time


class RunDelaySampler:
    """Samples `pid`'s threads until it exits or `stop()`; times are CLOCK_MONOTONIC seconds,
    as kiosk's stats file writes its flips. Every 10 ms: a 3 ms step cost a fifth of a core
    beside a pacing test (CI: test_seams' CPU 13 s -> 41 s), which itself disturbs it."""

    def __init__(self, pid: int, interval: float = 0.01):
        self.pid, self.interval = pid, interval
        self.times: list[float] = []
        self.delays: list[dict[int, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> dict[int, int] | None:
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
            self.times.append(time.monotonic())
            self.delays.append(delays)
            time.sleep(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def waited(self, start: float, end: float) -> tuple[float, float] | None:
        """The longest any one thread waited to run between the samples around [start, end]
        (seconds), and how much wider than the span those samples are (seconds); None where
        the samples do not cover the span."""
        first = bisect.bisect_right(self.times, start) - 1
        last = bisect.bisect_left(self.times, end)
        if first < 0 or last >= len(self.times):
            return None
        before, after = self.delays[first], self.delays[last]
        longest = max((after[tid] - before.get(tid, 0) for tid in after), default=0) / 1e9
        widening = (start - self.times[first]) + (self.times[last] - end)
        return longest, widening
