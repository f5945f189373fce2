"""Which kernel a Bed boots, and the modules it asks for at boot (used by bed.py).

Bed(kernel=None) boots this host's own kernel (/boot, as the bed always did); "6.1" the same,
checked to be a 6.1; "7.3" Debian 13's backports kernel with vkms, made and cached by
deploy/vm/bed-kernel from Debian packages (see README.md, "A second kernel"). The choice
reaches build-initramfs as environment variables.

Bed(modules=[...]) entries are either an optional set's name ("vivid", "usb", and for the 7.3
kernel "vkms", "gpio-sim", "vgem", "configfs") or such a name followed by module parameters
("vkms enable_overlay=1 enable_writeback=1"): bare names go on the kernel command line as before
(kiosk.modules=a,b), entries with parameters into the work share's guest-modules file, which
guest-init loads after them, in order.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = (None, "6.1", "7.3")
# The first build downloads ~300 MB and compiles vkms (about a minute here); a cached run takes
# milliseconds. The deadline is for a slow mirror, not a slow guest.
BED_KERNEL_TIMEOUT = 1200.0

_NAME = re.compile(r"[A-Za-z0-9_-]+")
# Parameters are word-split by guest-init's sh and given to insmod: no quoting, no globbing.
_PARAM = re.compile(r"[A-Za-z0-9_.-]+(=[A-Za-z0-9_.,:+-]*)?")


class BedKernelError(RuntimeError):
    """The kernel a Bed asked for cannot be had; the message says why (bed.py raises BedError)."""


def split_modules(modules) -> tuple[list[str], list[str]]:
    """(set names for kiosk.modules=, "name params" lines for guest-modules); ValueError if bad."""
    names, lines = [], []
    for entry in modules:
        words = entry.split() if isinstance(entry, str) else []
        if not words or not _NAME.fullmatch(words[0]) or \
                not all(_PARAM.fullmatch(w) for w in words[1:]):
            raise ValueError(f"a module entry is a set or module name (letters, digits, _ and -) "
                             f"then optional key=value parameters, not {entry!r}")
        if len(words) == 1:
            names.append(words[0])
        else:
            lines.append(" ".join(words))
    return names, lines


def initramfs_env(kernel: str | None) -> dict[str, str]:
    """Variables for build-initramfs that select `kernel` (none: the host's, as always)."""
    if kernel is None:
        return {}
    if kernel == "6.1":
        images = sorted(glob.glob("/boot/vmlinuz-6.1.*"), key=_version_key)
        if not images:
            raise BedKernelError("Bed(kernel='6.1'): this host's /boot has no 6.1 kernel "
                                 f"(it has {sorted(glob.glob('/boot/vmlinuz-*')) or 'none'})")
        return {"KIOSK_VM_KERNEL": images[-1]}
    if kernel == "7.3":
        made = bed_kernel(kernel)
        return {"KIOSK_VM_KERNEL": made["KIOSK_BED_KERNEL_IMAGE"],
                "KIOSK_VM_MODULES_ROOT": made["KIOSK_BED_KERNEL_MODULES"],
                "KIOSK_VM_KVER": made["KIOSK_BED_KERNEL_VERSION"]}
    raise ValueError(f"kernel must be one of {KERNELS}, not {kernel!r}")


def bed_kernel(series: str) -> dict[str, str]:
    """Run deploy/vm/bed-kernel SERIES (cached after the first time); its KIOSK_BED_KERNEL_* values."""
    script = HERE / "bed-kernel"
    try:
        out = subprocess.run([str(script), series], capture_output=True, text=True,
                             timeout=BED_KERNEL_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise BedKernelError(f"{script} {series} took more than {BED_KERNEL_TIMEOUT:g} s") from None
    except OSError as e:
        raise BedKernelError(f"cannot run {script}: {e}") from None
    if out.returncode != 0:
        tail = "\n".join(out.stderr.strip().splitlines()[-12:])
        raise BedKernelError(f"the bed's {series} kernel cannot be had: {script} {series} "
                             f"failed (status {out.returncode}):\n{tail}")
    values = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    keys = ("KIOSK_BED_KERNEL_VERSION", "KIOSK_BED_KERNEL_IMAGE", "KIOSK_BED_KERNEL_MODULES")
    missing = [k for k in keys if not values.get(k)]
    if missing:
        raise BedKernelError(f"{script} {series} printed no {', '.join(missing)}:\n{out.stdout}{out.stderr}")
    if not os.path.isfile(values["KIOSK_BED_KERNEL_IMAGE"]):
        raise BedKernelError(f"{script} {series} named a kernel image that is not there: "
                             f"{values['KIOSK_BED_KERNEL_IMAGE']}")
    return values


def _version_key(path: str) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path)]


def prepare(kernel: str | None = None) -> tuple[Path, Path]:
    """Build (or reuse) the cached initramfs of `kernel` (see bed_kernel.py; None: this host's
    own); return (kernel, initrd) paths. BedKernelError says why it cannot."""
    script = HERE / "build-initramfs"
    env = dict(os.environ, **initramfs_env(kernel))
    try:
        out = subprocess.run([str(script)], capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        raise BedKernelError(f"{script} took more than 300 s") from None
    if out.returncode != 0:
        raise BedKernelError(f"{script} failed:\n{out.stderr.strip()}")
    values = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    try:
        return Path(values["KIOSK_VM_KERNEL"]), Path(values["KIOSK_VM_INITRD"])
    except KeyError:
        raise BedKernelError(f"{script} printed no kernel/initrd paths:\n{out.stdout}{out.stderr}") from None
