#!/usr/bin/env python3
"""Why a flip came late: runs a kiosk command that writes a stats file, samples what each of
its threads was doing while it ran (/proc/PID/task/TID: state, CPU run time and time waiting
for a CPU from `schedstat`, the presenter's system call), and for each interval between two
video flips longer than --threshold-ms says what the presenter and the decoders did in it.

    Benchmarks/late_flips.py --stats S.jsonl [--threshold-ms 50] [--json OUT] -- kiosk play ... --stats-file S.jsonl

Issue 33's 4K loop showed 65-83 ms intervals mid-item on a 16-core GPU machine with either
decoder, cause not found from the stats alone. The answer sorts a late flip into:
- the presenter ran long (its CPU time in the interval is most of it: a draw, a conversion),
- it waited for a CPU (runnable, not running: `schedstat`'s run-queue time),
- it slept in a system call (futex: a frame not yet decoded, a lock; clock_nanosleep: pacing),
- or the whole process stopped (no thread ran and none waited: the machine, a VM's host).
The sampler's own gaps are reported too: a sampler late by as much as the flip saw the
same stall. Linux only; Python 3 standard library only; root not needed for one's own process."""
import argparse
import bisect
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

# System call numbers the presenter is seen in, by machine; others are printed by number.
SYSCALLS = {
    "x86_64": {0: "read", 1: "write", 7: "poll", 9: "mmap", 11: "munmap", 16: "ioctl", 23: "select", 24: "sched_yield",
               25: "mremap", 28: "madvise", 35: "nanosleep", 202: "futex", 230: "clock_nanosleep", 232: "epoll_wait",
               271: "ppoll", 281: "epoll_pwait", 441: "epoll_pwait2"},
    "aarch64": {22: "epoll_pwait", 29: "ioctl", 63: "read", 64: "write", 73: "ppoll", 98: "futex", 101: "nanosleep",
                115: "clock_nanosleep", 124: "sched_yield", 215: "munmap", 216: "mremap", 222: "mmap", 233: "madvise",
                441: "epoll_pwait2"},
}.get(platform.machine(), {})
# A clock tick of /proc's utime and stime, for a kernel without schedstat.
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


class Sampler:
    """Samples every thread of `pid` every `interval` seconds, on a thread of its own, from
    `start()` until `stop()` or the process is gone (a zombie counts as gone).

    Each sample keeps, per thread name, the CPU and run-queue nanoseconds of all threads of that
    name so far (those that ended included) and how many run now, and the presenter's state and
    system call: about 1.4 kB for 8 names (84 MB for a minute at 1 ms), not a record per thread
    (10 kB for 40 threads)."""

    def __init__(self, pid, interval):
        self.pid, self.interval = pid, interval
        # (t, {name: (run_ns, wait_ns, threads)}, presenter state or None, presenter call or None)
        self.samples = []
        self.sampler_gaps = []     # (t, seconds since the sample before)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.last_seen = {}        # tid: (name, run_ns, wait_ns)
        self.ended = {}            # name: [run_ns, wait_ns] of its threads that ended

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join()

    def task(self, tid):
        base = f"/proc/{self.pid}/task/{tid}"
        stat = read_text(f"{base}/stat")
        if stat is None:
            return None
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        sched = read_text(f"{base}/schedstat")
        if sched:
            run_ns, wait_ns = (int(v) for v in sched.split()[:2])
        else:   # no schedstat: CPU time in clock ticks, no run-queue time
            run_ns, wait_ns = int((int(fields[11]) + int(fields[12])) * TICK_NS), 0
        return name, fields[0], run_ns, wait_ns

    def run(self):
        last = None
        while not self.stopping.is_set():
            now = time.monotonic()
            try:
                tids = os.listdir(f"/proc/{self.pid}/task")
            except OSError:
                return
            seen, state, call = {}, None, None
            for tid in tids:
                found = self.task(tid)
                if found is None:
                    continue
                seen[int(tid)] = found
                if found[0] == "kiosk-present":
                    state = found[1]
                    text = read_text(f"/proc/{self.pid}/task/{tid}/syscall")
                    if text:
                        word = text.split()[0]
                        call = word if not word.lstrip("-").isdigit() else SYSCALLS.get(int(word), f"#{word}")
            if not seen or all(found[1] == "Z" for found in seen.values()):
                return
            for tid in set(self.last_seen) - set(seen):
                name, run_ns, wait_ns = self.last_seen.pop(tid)
                total = self.ended.setdefault(name, [0, 0])
                total[0] += run_ns
                total[1] += wait_ns
            sums = {name: (run_ns, wait_ns, 0) for name, (run_ns, wait_ns) in self.ended.items()}
            for tid, (name, _, run_ns, wait_ns) in seen.items():
                self.last_seen[tid] = (name, run_ns, wait_ns)
                before = sums.get(name, (0, 0, 0))
                sums[name] = (before[0] + run_ns, before[1] + wait_ns, before[2] + 1)
            self.samples.append((now, sums, state, call))
            if last is not None and now - last > self.interval * 4:
                self.sampler_gaps.append((now, now - last))
            last = now
            time.sleep(self.interval)


def flips(stats_path):
    video = []
    with open(stats_path) as lines:
        text = lines.read()
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("video"):
            video.append(record)
    return video


def window(samples, times, start, end):
    """The samples bracketing [start, end] (`times`: the samples' times, ascending)."""
    first = max(bisect.bisect_left(times, start) - 1, 0)
    last = bisect.bisect_right(times, end)
    return samples[first:last + 1]


def describe(samples, times, start, end):
    """What each kind of thread did between the samples around [start, end]: run and run-queue ms
    (from the samples just outside it), and the presenter's states and system calls in order, runs
    of the same collapsed (from the samples inside it only: the flip after a stop comes within a
    millisecond of it, and the next interval must not inherit its stopped samples)."""
    span = window(samples, times, start, end)
    if len(span) < 2:
        return None
    first, last = span[0][1], span[-1][1]
    kinds = {}
    for name, (run1, wait1, count) in last.items():
        run0, wait0, _ = first.get(name, (0, 0, 0))
        kinds[name] = {"threads": count, "run_ms": round((run1 - run0) / 1e6, 1), "runqueue_ms": round((wait1 - wait0) / 1e6, 1)}
    trail = []
    for t, _, state, call in span:
        if not start < t < end:
            continue
        step = f"{state}:{call}" if state else "gone"
        if not trail or trail[-1][1] != step:
            trail.append((round((t - start) * 1000, 1), step))
    return {"sampled_ms": round((span[-1][0] - span[0][0]) * 1000, 1), "threads": kinds, "presenter_trail": trail}


def verdict(entry):
    """One line: why this interval was long, from what the threads did in it."""
    interval = entry["interval_ms"]
    present = entry["threads"].get("kiosk-present", {"run_ms": 0, "runqueue_ms": 0})
    states = [step.split(":")[0] for _, step in entry["presenter_trail"]]
    if any(state in ("T", "t") for state in states):
        return "the process was stopped (a signal, a debugger)"
    busy = sum(kind["run_ms"] + kind["runqueue_ms"] for kind in entry["threads"].values())
    if entry["sampler_held_ms"] >= interval / 3 and busy < interval / 4:
        return f"the machine stalled: no thread ran, and the sampler was held {entry['sampler_held_ms']} ms too"
    if present["run_ms"] >= interval / 2:
        return f"the presenter ran long ({present['run_ms']} ms of CPU)"
    if present["runqueue_ms"] >= interval / 4:
        return f"the presenter waited for a CPU ({present['runqueue_ms']} ms runnable, not running)"
    calls = [step.split(":", 1)[1] for _, step in entry["presenter_trail"] if step.startswith(("S", "D"))]
    return (f"the presenter slept ({', '.join(sorted(set(calls))) or 'in no call seen'}): "
            "its frame not decoded yet, or the moment it waited for came late")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stats", required=True, help="the stats file the command writes")
    parser.add_argument("--threshold-ms", type=float, default=50)
    parser.add_argument("--interval-ms", type=float, default=1)
    parser.add_argument("--json", help="write the whole answer here too")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command after --")
    steal_before = cpu_line()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    sampler = Sampler(process.pid, args.interval_ms / 1000).start()
    code = process.wait()
    sampler.stop()
    steal_after = cpu_line()
    answer = analyse(sampler, args.stats, args.threshold_ms, steal_before, steal_after)
    answer["exit"] = code
    print(f"exit {code}")
    report(answer)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(answer, out, indent=1)
    return code


def cpu_line():
    """/proc/stat's first line, split (its 9th field: steal ticks)."""
    return (read_text("/proc/stat") or "").split("\n")[0].split()


def analyse(sampler, stats_path, threshold_ms, steal_before, steal_after):
    """The late intervals of the stats file, each with what the threads did in it."""
    video = flips(stats_path)
    times = [s[0] for s in sampler.samples]
    late = []
    normal = []
    for a, b in zip(video, video[1:]):
        gap = (b["t"] - a["t"]) * 1000
        if b.get("gen") != a.get("gen"):   # a seek between them
            continue
        told = describe(sampler.samples, times, a["t"], b["t"])
        if told is None:
            continue
        if gap > threshold_ms:
            held = max((g for t, g in sampler.sampler_gaps if t - g < b["t"] and t > a["t"]), default=0)
            entry = {"interval_ms": round(gap, 1), "item": b["item"], "pts": b["pts"],
                     "aim_late_ms": round((b["t"] - b["aim"]) * 1000, 1) if b.get("aim") else None,
                     "aim_step_ms": round((b["aim"] - a["t"]) * 1000, 1) if b.get("aim") else None,
                     "sampler_held_ms": round(held * 1000, 1), **told}
            entry["verdict"] = verdict(entry)
            late.append(entry)
        else:
            normal.append(told)

    def typical(name, field):
        values = [n["threads"].get(name, {}).get(field, 0) for n in normal]
        return round(statistics.median(values), 1) if values else None

    names = sorted({name for n in normal for name in n["threads"]})
    return {"flips": len(video), "samples": len(sampler.samples),
            "sampler_gaps_ms": sorted((round(g * 1000, 1) for _, g in sampler.sampler_gaps), reverse=True)[:10],
            "steal_ticks": int(steal_after[8]) - int(steal_before[8]) if len(steal_after) > 8 and len(steal_before) > 8 else None,
            "typical_interval": {name: {"run_ms": typical(name, "run_ms"), "runqueue_ms": typical(name, "runqueue_ms")} for name in names},
            "late": late}


def report(answer):
    print(f"{answer['flips']} video flips; {answer['samples']} samples; "
          f"sampler's longest gaps {answer['sampler_gaps_ms'][:5]} ms; steal ticks {answer['steal_ticks']}")
    print("a typical interval, per thread name (run ms, run-queue ms):",
          ", ".join(f"{n} {v['run_ms']}/{v['runqueue_ms']}" for n, v in answer["typical_interval"].items()))
    for entry in answer["late"]:
        print(f"\n{entry['interval_ms']} ms before item {entry['item']} pts {entry['pts']}: flip {entry['aim_late_ms']} ms after its aim, "
              f"aim {entry['aim_step_ms']} ms after the flip before; sampled {entry['sampled_ms']} ms")
        for name, kind in sorted(entry["threads"].items()):
            print(f"    {name} x{kind['threads']}: run {kind['run_ms']} ms, run-queue {kind['runqueue_ms']} ms")
        print("    presenter: " + " -> ".join(f"{at}:{step}" for at, step in entry["presenter_trail"]))
        print(f"    so: {entry['verdict']}")


if __name__ == "__main__":
    sys.exit(main())
