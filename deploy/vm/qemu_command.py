"""The QEMU command line of one bed guest, and the kernel's own (used by bed.py's Bed).

Standard library only. `qemu_command` is what Bed.start runs (also handy to paste into a shell
to debug, see Bed.qemu_command); `kernel_args` the guest kernel's command line with the module
sets guest-init loads; `die_with_parent` the child's set-up that takes QEMU down with its parent.
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

from bed_kernel import split_modules

# quiet: only warnings and errors from the kernel on the console, so the
# command's output stays readable. panic=-1 with -no-reboot: a guest that
# panics (or whose init dies) ends QEMU at once instead of hanging.
# mitigations=off: speculative-execution mitigations only slow down TCG.
# vt.global_cursor_default=0: no blinking text cursor in screenshots.
# The guest's CPU: Westmere (SSE4.2, AES-NI, PCLMULQDQ; no AVX), not "max". TCG emulates AVX/AVX2
# much slower than SSE, and FFmpeg, swscale and glibc's string functions take the AVX2 paths when
# they see it: measured (2026-11-26, a 640x360 25 fps clip on bochs 1024x768, release kiosk), the
# same 12 s played with 162-172 frames dropped on "max", 40 on "max,-avx,-avx2", 5-9 on Nehalem and
# 31 on Westmere, for the same host CPU (the guest was busy either way); test_play.py took 5 % less
# CPU. Not Nehalem: the usb set's crct10dif-pclmul.ko refuses to load without PCLMULQDQ. +rdrand
# (TCG has it, as "max" did): without it the guest kernel's random pool was ready only 6-22 s
# after boot, where the first getrandom(2) of a Python or kiosk waited for it.
# KIOSK_BED_CPU names another model (QEMU's -cpu help lists them).
CPU_MODEL = os.environ.get("KIOSK_BED_CPU", "Westmere,+rdrand")
KERNEL_ARGS = "console=ttyS0 quiet panic=-1 mitigations=off vt.global_cursor_default=0"


def qemu_escape(value: str) -> str:
    """QEMU option values separate fields with commas; a literal comma is doubled."""
    return value.replace(",", ",,")


def die_with_parent() -> None:
    """In the child before exec: get SIGKILL when the process that started QEMU dies.

    So a test runner killed outright does not leave a QEMU behind."""
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def kernel_args(size: tuple[int, int], heads: int, modules: list[str]) -> str:
    """KERNEL_ARGS, and the optional module sets for guest-init (a dotted word: the kernel
    takes it for a module's parameter, keeps quiet about it and leaves it in /proc/cmdline)."""
    args = KERNEL_ARGS
    w, h = size
    args += "".join(f" video=Virtual-{n}:{w}x{h}e" for n in range(2, heads + 1))
    names, _ = split_modules(modules)
    if not names:
        return args
    return f"{args} kiosk.modules={','.join(names)}"


def qemu_command(*, qemu: str, driver: str, size: tuple[int, int], heads: int, cpus: int,
                 memory: str, kernel: Path, initrd: Path, append: str, console_path: Path,
                 workdir: Path, qmp_socket: str, usb: bool, drives: list[Path],
                 extra: list[str], icount: int | None = None) -> list[str]:
    """The full QEMU command line of a guest with these devices (Bed's fields)."""
    w, h = size
    work = qemu_escape(str(workdir))
    # KVM hangs on this host: always TCG. thread=multi: one host thread per guest CPU.
    accel = ["-accel", "tcg,thread=multi"]
    if icount is not None:
        # Instruction counting: the guest's clocks (TSC, timers, and so its CPU accounting)
        # advance 2**icount ns per guest instruction while a CPU runs, and with the host's time
        # while all are idle (sleep=on), so a guest's CPU seconds count its instructions,
        # whatever the host's speed, load, or TCG's cost of an instruction. QEMU has it only
        # with one host thread for all guest CPUs (taken in turns).
        accel = ["-accel", "tcg,thread=single", "-icount", f"shift={int(icount)},sleep=on"]
    cmd = [
        qemu, "-name", "kiosk-bed", "-nodefaults", "-no-user-config",
        *accel, "-cpu", CPU_MODEL, "-smp", str(cpus),
        "-m", memory, "-display", "none", "-no-reboot",
        "-kernel", str(kernel), "-initrd", str(initrd), "-append", append,
        "-chardev", f"file,id=console,path={qemu_escape(str(console_path))}",
        "-serial", "chardev:console",
        "-virtfs", "local,path=/,mount_tag=host,security_model=none,"
                   "readonly=on,multidevs=remap",
        "-virtfs", f"local,path={work},mount_tag=work,security_model=none,"
                   "multidevs=remap",
        "-qmp", f"unix:{qemu_escape(qmp_socket)},server=on,wait=off",
    ]
    if driver == "bochs":
        # std VGA: bochs-drm. Its EDID lists xres x yres as the preferred
        # mode. VRAM must hold a few framebuffers for page flipping (and
        # the fbdev console's), so size it from the mode: a power of two.
        vram = 16
        while vram * 1024 * 1024 < 4 * w * h * 4 and vram < 256:  # QEMU's limit
            vram *= 2
        cmd += ["-device", f"VGA,xres={w},yres={h},vgamem_mb={vram}"]
    else:
        outputs = f",max_outputs={heads}" if heads > 1 else ""
        cmd += ["-device", f"virtio-gpu-pci,id=gpu,xres={w},yres={h}{outputs}"]
    if usb:
        cmd += ["-device", "qemu-xhci,id=xhci"]
    for drive in drives:
        # cache=writeback: QEMU writes through the host's page cache and tells the guest its
        # disk has a volatile write cache, so the guest kernel sends flushes (fsync, the ext4
        # journal's barriers) as on a real disk. A QMP quit then loses what only the guest's
        # own page cache held, which is what a power cut does to an OS; what reached QEMU stays
        # (the host does not lose power). Not cache=unsafe: it drops the guest's flushes and
        # with them the write ordering the guest relies on. Not cache=none (O_DIRECT): the
        # same for a quit, but tmpfs and some other host file systems refuse O_DIRECT.
        cmd += ["-drive", f"file={qemu_escape(str(drive))},format=raw,if=virtio,cache=writeback"]
    return cmd + extra
