"""Runs system test files in parallel pytest processes, one file at a time per worker
(deploy/test's plain form; the stress form and --quick keep one pytest session). deploy/test calls
it four times: the bed files that judge real-time sound in a guest, one at a time; the host files
that judge pacing, one at a time, with the bed's queue started beside them at SCHED_IDLE
(--idle-until); then at once the host's other files four at a time (most wait on real-time
playback, a server or a timeout: 40 % of the two cores) and the bed's queue, now at `nice -n 10`
(a guest under TCG is bound by the host's CPU: it takes what the host's files leave). Each file's
line says its wall and CPU seconds (pytest and every process it waited for: guests, kiosks,
servers) and its guest boots (deploy/vm/bed.py writes a line a boot to KIOSK_BED_BOOT_LOG).

    python3 Tests/System/run_files.py --jobs N [--alone F]... [--beside F]... [--idle-until PATH]
                                      -- [pytest args] -- FILE...

Files are taken from one queue, the longest known first (LONG_FIRST), so no worker is left with a
long file at the end. A file named with --alone runs before the queue, with nothing of this run beside it: one
that judges pacing on the host (seam intervals, vblank timing, a ticker's refreshes, the music
bed's phase) or real-time sound in its guest (ALSA loopback underruns when a second guest takes the other core:
test_music_bed_aloop lost 4 % of its windows so, once).
A file named with --beside starts with the queue in a worker of its own, not counted in --jobs:
one that mostly waits for a long time (test_sync's ten-minute wall of three light real-time
processes on the host), so it does not hold a worker for its whole length (deploy/test runs it
beside the host's queue, with the bed's queue going on at once: #34).
Each file's output goes to its own log, printed whole when the file fails (or has errors) and in
one line when it passes; the exit status is 1 when any file failed, as pytest's would be.
A file whose tests were all deselected (pytest's status 5) is not a failure.

With --idle-until PATH the queue starts under SCHED_IDLE and every process and thread of it is
moved back to SCHED_OTHER at the nice value run_files.py was started with once PATH exists:
deploy/test starts the bed's queue so while the host's pacing files run alone (they use ~10 % of
the two cores; an idle-policy guest takes only what they leave and is preempted whenever one of
theirs wakes), and lifts it when the host's other files start, which a guest at SCHED_IDLE could
starve for minutes."""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

# The files that took longest in an earlier run (CI, two at a time, 2026-11-25; the host's three
# at a time, 2026-11-26), started first.
LONG_FIRST = [
    "test_sync.py", "test_live_sources.py", "test_soak.py", "test_web_uploads.py", "test_package.py",
    "test_fuzz_media.py",
    "test_hostile.py", "test_network.py", "test_resume.py", "test_content_sync.py",
    "test_content_sync_power.py", "test_play.py", "test_power_bed.py", "test_gpio_triggers.py",
    "test_planes_vkms.py", "test_record.py", "test_triggers.py", "test_media_arrival.py", "test_drm.py",
    "test_prime_import_vkms.py",
]
NO_TESTS_COLLECTED = 5


class FileResult(NamedTuple):
    path: Path
    status: int      # pytest's exit status
    seconds: float   # wall
    cpu: float       # pytest's and its waited-for children's user + system seconds
    log: Path


def descendants(root: int) -> list[int]:
    """root and every process below it (from /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces (or bytes that are not UTF-8):
        # the fields follow the last ')'.
        parent = int(stat.rpartition(b")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def can_leave_idle() -> bool:
    """Whether a thread of this process may go to SCHED_IDLE and come back: leaving it needs
    CAP_SYS_NICE or an RLIMIT_NICE that allows the nice value (root has the first; a user
    account usually neither), and a queue that cannot be lifted must not be made idle."""
    answer = []

    def attempt():
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            answer.append(True)
        except OSError:
            answer.append(False)
    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return answer == [True]


def lift_from_idle(nice: int) -> tuple[int, int]:
    """Moves this process and everything below it, thread by thread, from SCHED_IDLE to
    SCHED_OTHER at `nice`; the threads moved, and those that refused."""
    moved = refused = 0
    for pid in descendants(os.getpid()):
        try:
            threads = [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]
        except OSError:
            continue
        for tid in threads:
            try:
                if os.sched_getscheduler(tid) == os.SCHED_IDLE:
                    os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))
                    os.setpriority(os.PRIO_PROCESS, tid, nice)   # on Linux: that thread's nice
                    moved += 1
            except ProcessLookupError:
                pass   # gone meanwhile
            except PermissionError:
                refused += 1
    return moved, refused


def idle_until(path: Path, nice: int, began: float) -> None:
    try:
        while not path.exists():
            time.sleep(0.5)
        # Pass after pass until one moves nothing: only an idle thread makes an idle thread (a
        # fork, a new thread), so once a pass finds none left, none can appear.
        moved = refused = 0
        for _ in range(20):
            more, refused = lift_from_idle(nice)
            moved += more
            if more == 0:
                break
            time.sleep(0.2)
        print(f"run_files.py: the queue is back at nice {nice} after {time.monotonic() - began:.0f} s at SCHED_IDLE "
              f"({moved} threads moved" + (f"; {refused} refused, left idle" if refused else "") + ")", flush=True)
    except Exception as error:  # noqa: BLE001
        print(f"run_files.py: the queue could not be lifted from SCHED_IDLE: {error!r}", flush=True)


def stop_everything_below(signum, frame) -> None:
    """SIGTERM/SIGINT (deploy/test's EXIT trap, a CI timeout): the pytest processes and their
    guests, servers and kiosks end with this process instead of running on, orphaned."""
    for pid in descendants(os.getpid())[1:]:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    print(f"run_files.py: stopped by signal {signum}; the files still running were ended", flush=True)
    # Not sys.exit: the workers would wait for their killed files, then start the next ones.
    os._exit(128 + signum)


def run_file(path: Path, pytest_args: list[str], logs: Path) -> FileResult:
    """Runs one file's pytest; its status, wall seconds and CPU seconds (the pytest process and
    every process it waited for: its guests, kiosks and servers), for the suite's budget (#34)."""
    log = logs / (path.stem + ".log")
    boots = log.with_suffix(".boots")   # boots_said reads it from the same place
    began = time.monotonic()
    with open(log, "w") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--durations=3",
             "--basetemp", tempfile.mkdtemp(prefix=f"kiosk-pytest-{path.stem}-", dir="/var/tmp"),
             *pytest_args, str(path)],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "KIOSK_BED_BOOT_LOG": str(boots)})
        # wait4, not wait: the child's own rusage, which a thread beside it cannot blur.
        _, wait_status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(wait_status)
    return FileResult(path, child.returncode, time.monotonic() - began, usage.ru_utime + usage.ru_stime, log)


def boots_said(log: Path) -> str:
    """", N guest boots" for a file that booted the bed (deploy/vm/bed.py writes a line a boot)."""
    boots = log.with_suffix(".boots")
    count = len(boots.read_text().splitlines()) if boots.exists() else 0
    return f", {count} guest boot{'s' if count != 1 else ''}" if count else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--alone", action="append", default=[], help="a file name run before the queue, alone")
    parser.add_argument("--beside", action="append", default=[],
                        help="a file name started with the queue in a worker of its own")
    parser.add_argument("--idle-until", type=Path,
                        help="run the queue at SCHED_IDLE until this file exists")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    rest = options.rest[1:] if options.rest[:1] == ["--"] else options.rest
    if "--" not in rest:
        parser.error("expected: -- [pytest arguments] -- FILE...")
    split = rest.index("--")
    pytest_args, files = rest[:split], [Path(name) for name in rest[split + 1:]]
    alone = [path for path in files if path.name in options.alone]
    beside = [path for path in files if path.name in options.beside and path not in alone]
    order = {name: rank for rank, name in enumerate(LONG_FIRST)}
    queue = sorted((path for path in files if path not in alone and path not in beside),
                   key=lambda path: (order.get(path.name, len(LONG_FIRST)), path.name))
    signal.signal(signal.SIGTERM, stop_everything_below)
    signal.signal(signal.SIGINT, stop_everything_below)
    logs = Path(tempfile.mkdtemp(prefix="kiosk-pytest-logs-", dir="/var/tmp"))
    lock = threading.Lock()
    results: list[FileResult] = []

    def report(result: FileResult):
        path, status, seconds, cpu, log = result
        with lock:
            results.append(result)
            if status in (0, NO_TESTS_COLLECTED):
                lines = log.read_text(errors="replace").strip().splitlines()
                print(f"{path.name}: {lines[-1] if lines else 'no output'} ({seconds:.0f} s, CPU {cpu:.0f} s{boots_said(log)})", flush=True)
                # A skip says why (-rs), as in one session's summary.
                for line in lines:
                    if line.startswith("SKIPPED"):
                        print(f"  {line}", flush=True)
            else:
                print(f"\n===== {path.name}: FAILED (pytest status {status}, {seconds:.0f} s, CPU {cpu:.0f} s{boots_said(log)}) =====", flush=True)
                print(log.read_text(errors="replace"), flush=True)

    def run_and_report(path: Path):
        # Whatever goes wrong around a file's run counts as its failure: a worker thread that
        # died with an exception would leave the file out of the results and the run green.
        try:
            result = run_file(path, pytest_args, logs)
        except Exception as error:  # noqa: BLE001
            log = logs / (path.stem + ".log")
            with open(log, "a") as out:
                out.write(f"\nrun_files.py: {path.name} could not be run: {error!r}\n")
            result = FileResult(path, 1, 0.0, 0.0, log)
        try:
            report(result)
        except Exception as error:  # noqa: BLE001
            with lock:
                # report() may have listed it before it failed: once, as a failure.
                results[:] = [other for other in results if other.path != path]
                results.append(result._replace(status=1))
            print(f"run_files.py: {path.name}: its result could not be reported: {error!r}", flush=True)

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                path = queue.pop(0)
            run_and_report(path)

    for path in alone:
        run_and_report(path)
    if options.idle_until and not can_leave_idle():
        print("run_files.py: this account may not lift a thread from SCHED_IDLE again (no CAP_SYS_NICE, "
              "RLIMIT_NICE too low): the queue starts at its nice value instead", flush=True)
    elif options.idle_until:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        # The thread that lifts the queue keeps the ordinary policy (an idle one could itself
        # wait behind the host's files); then this thread's policy becomes SCHED_IDLE, and the
        # workers and every process they start inherit it.
        threading.Thread(target=idle_until, args=(options.idle_until, nice, time.monotonic()), daemon=True).start()
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    workers = [threading.Thread(target=run_and_report, args=(path,)) for path in beside]
    workers += [threading.Thread(target=worker) for _ in range(max(1, options.jobs))]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    failed = [result.path.name for result in results if result.status not in (0, NO_TESTS_COLLECTED)]
    slowest = sorted(results, key=lambda result: -result.seconds)[:10]
    print("\nslowest files: " + ", ".join(f"{result.path.name} {result.seconds:.0f} s" for result in slowest))
    hungriest = sorted(results, key=lambda result: -result.cpu)[:10]
    print("most CPU: " + ", ".join(f"{result.path.name} {result.cpu:.0f} s" for result in hungriest)
          + f" (all files: {sum(result.cpu for result in results):.0f} CPU s)")
    print(f"{len(results)} files, {len(failed)} failed{': ' + ', '.join(failed) if failed else ''} (logs in {logs})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
