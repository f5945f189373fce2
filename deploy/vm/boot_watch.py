"""Tell a guest whose kernel hung while booting from one that is only slow.

QEMU's TCG now and then loses a guest CPU's timer interrupt early in the boot: that CPU
idles forever, the kernel's RCU stall detector prints the same complaint every 21 s, and
the command never starts (about one boot in 400 on these hosts; CI met one). Nothing of
kiosk's has run yet at that point, so the bed boots the guest again instead of letting
the test wait out its deadline and fail. A stall seen after the command began is left
alone: that is the behaviour under test, and the test reports it.

The bed's 7.3 kernel under TCG has also panicked, once in CI's busy bed, 1.3 s into its boot
("Oops: int3" in the scheduler while the kernel patches its own code): QEMU ends at once
(panic=-1, -no-reboot), before the command began. Such a guest is booted again as well.

QEMU itself has died of SIGSEGV once in CI's busy bed, before the guest's console printed a
line (TCG, 5 s into a file's first boot). No guest code had run, let alone kiosk's: that boot
is tried again too. A QEMU that dies after the command began is the test's to report.

A guest has also hung before its console printed a line: CI's busy bed ran one QEMU at full
speed for ten minutes (665 CPU-seconds) with an empty console, while the same file's other
guest booted in 16 s (TCG stuck in the firmware or the kernel's first steps). A boot prints
its first line after 7-10 CPU-seconds of QEMU (measured here: 7.2 with the default kernel,
9.9 with the 7.3 one: firmware and decompression under TCG), so a console still empty after
SILENT_CPU_SECONDS of QEMU's CPU time is a hang too, and booted again; QEMU starved of CPU
(a guest at SCHED_IDLE beside busy tests) uses none and is not mistaken for one.

Standard library only.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

# How often a boot is tried before the bed gives up and says why.
BOOT_ATTEMPTS = 3

# QEMU's CPU time (all its threads) after which a console with no line at all is a hang.
SILENT_CPU_SECONDS = 90.0

# Console lines of a kernel that is not making progress. RCU names its flavour
# (rcu_preempt on Debian's kernel, rcu_sched on others).
HUNG_SIGNS = ("detected stalls on CPUs/tasks", "self-detected stall on CPU",
              "watchdog: BUG: soft lockup")


# Console lines of a kernel that died (QEMU then exits: panic=-1 with -no-reboot).
DIED_SIGNS = ("Kernel panic - not syncing",)


def died_sign(console: str) -> str | None:
    """The first console line that says the kernel panicked, or None."""
    for line in console.splitlines():
        if any(sign in line for sign in DIED_SIGNS):
            return line.strip()
    return None


def hung_sign(console: str) -> str | None:
    """The first console line that says the kernel hung, or None."""
    for line in console.splitlines():
        if any(sign in line for sign in HUNG_SIGNS):
            return line.strip()
    return None


def watch_boot(started: Path, since: float, console: Callable[[], str],
               running: Callable[[], bool], timeout: float,
               crashed: Callable[[], str | None] = lambda: None,
               cpu_seconds: Callable[[], float | None] = lambda: None) -> str | None:
    """Wait until the guest's command has begun, then return None.

    `started` is the file the guest touches just before the command (its mtime on the
    host's clock is compared with `since`). Also returns None when the guest stops or
    `timeout` passes first: the caller's own waits report those with the console. Returns
    the console line that says so when the kernel hung (or panicked: QEMU stopped with a
    panic on the console) before the command began, what `crashed` says when QEMU itself
    died (a signal) before then, or that the console stayed empty while QEMU used
    SILENT_CPU_SECONDS of CPU (`cpu_seconds`: QEMU's so far; None when unknown)."""
    deadline = time.monotonic() + timeout

    def command_began() -> bool:
        try:
            return started.stat().st_mtime >= since - 0.05
        except FileNotFoundError:
            return False

    while True:
        if command_began():
            return None
        if not running():
            # Looked at again: the command may have begun just before QEMU stopped, and a
            # command that began is never run twice.
            return None if command_began() else died_sign(console()) or crashed()
        if time.monotonic() > deadline:
            return None
        text = console()
        sign = hung_sign(text)
        if sign is not None:
            return sign
        if not text.strip():
            used = cpu_seconds()
            if used is not None and used >= SILENT_CPU_SECONDS:
                return f"no console line after {used:.0f} CPU-seconds of QEMU"
        time.sleep(0.1)


def process_cpu_seconds(pid: int) -> float | None:
    """A process's CPU time so far (user and system, all threads; /proc/PID/stat), None when it
    cannot be read (the process gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # utime and stime: the 14th and 15th fields, the 12th and 13th after the name's ")".
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
