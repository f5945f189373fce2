"""The kiosk QEMU test bed: run a command next to real DRM, ALSA and evdev drivers.

This machine has no /dev/dri, no sound card and no /dev/uinput, so tests boot
this host's own kernel in QEMU (TCG, no KVM) with a tiny initramfs (see
build-initramfs and guest-init). The guest mounts this machine's root
read-only over 9p and runs the command chrooted into it, so every binary and
library of the host is there. A writable work directory is shared at the same
absolute path inside and out: the command's results land there.

Standard library only. Typical use in a test:

    from bed import Bed, read_png

    with Bed(driver="bochs", size=(1024, 768), workdir=tmp_path) as bed:
        bed.start(f"{kiosk} play clip.mp4 & touch ready; wait")
        bed.wait_for_file("ready", timeout=30)
        img = read_png(bed.screendump(tmp_path / "shot.png"))
        assert img.pixel(10, 10) == (0, 0, 0)
        assert bed.wait(timeout=60) == 0

Files the bed keeps in the work directory: guest-command.sh (the command),
guest-workdir (its path, for the guest), console.log (the guest's serial
console: boot messages and the command's output), dmesg.log, qemu.log (QEMU's
own stderr), guest-started (touched just before the command runs), exit-code
(the command's exit status), setup-error (only if the guest's setup failed) and guest-modules
(module entries with parameters, for guest-init).
Inside the guest /tmp and /run are empty tmpfs and the rest of the host root
is read-only: put inputs and outputs in the work directory.
"""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pngread import PngError, PngImage, read_png  # noqa: F401  (re-exported)
from boot_watch import BOOT_ATTEMPTS, process_cpu_seconds, watch_boot
from bed_kernel import KERNELS, BedKernelError, prepare, split_modules  # noqa: F401  (prepare re-exported)
from qmp import QMP
from bed_errors import BedError, GuestSetupError, GuestTimeout  # noqa: F401  (re-exported)
from bed_devices import GuestDevices
from qemu_command import CPU_MODEL, KERNEL_ARGS, die_with_parent, kernel_args, qemu_command  # noqa: F401

DRIVERS = ("bochs", "virtio-gpu")

# The guest scripts' `sleep` is busybox's (a static binary, in busybox-static), where the host has
# it: under TCG each start of coreutils' sleep, a dynamic binary, costs ~120 ms of a guest CPU
# against ~16 ms for busybox's (measured: 100 of each, 2026-11-26), so a wait loop polling every
# 0.1 s kept half a guest CPU busy starting `sleep`, host CPU the whole suite pays for (#34).
GUEST_SLEEP = ("# sleep: busybox's static one (deploy/vm/bed.py says why).\n"
               "if [ -x /bin/busybox ]; then sleep() { /bin/busybox sleep \"$@\"; }; fi\n")

# Written by the bed, read by guest-init / the host. Removed before each boot.
_BED_FILES = ("guest-command.sh", "guest-workdir", "console.log", "dmesg.log",
              "qemu.log", "guest-started", "exit-code", "exit-code.tmp",
              "setup-error", "guest-expose", "guest-modules")

# The checkout this bed belongs to: shown in the guest even when it lies under /tmp or /run,
# which the guest otherwise covers with empty tmpfs (CI may clone anywhere).
_REPOSITORY = Path(__file__).resolve().parents[2]



# The deadline of a test's first wait on a guest, the one that includes its boot (and the
# start of a debug binary over 9p): a boot takes ~5-20 s here, but the guest's speed is whatever
# the host gives it, and CI or `deploy/test --stress` can make it several times slower. Only a
# guest that never gets there runs into it; a later wait has its own deadline.
BOOT_TIMEOUT = 300.0


class Bed(GuestDevices):
    """One QEMU guest. Use as a context manager: QEMU is always killed on exit.

    driver:  "bochs" (std VGA, bochs-drm) or "virtio-gpu" (virtio-gpu-pci).
    size:    (width, height) of the display; it is the connector's preferred mode.
    workdir: host directory shared writable with the guest at the same path;
             created if missing. None: a new directory under /var/tmp, kept.
    memory:  guest memory, in QEMU's -m syntax.
    modules: optional module sets to load at boot (OPTIONAL_MODULES in build-initramfs), e.g.
             ["vivid"] for two HDMI-CEC adapters on one virtual bus; an entry may give its
             module parameters: "vkms enable_overlay=1 enable_writeback=1" (bed_kernel.py).
    kernel:  None (this host's kernel), "6.1" (the same, checked) or "7.3" (Debian 13's
             backports kernel with vkms, gpio-sim and vgem, made by deploy/vm/bed-kernel).
    usb:     an xHCI controller (-device qemu-xhci,id=xhci) and the "usb" module set, so that
             plug_usb_stick() can hot-plug a USB mass-storage device while the guest runs.
    drives:  raw disk images attached at boot as virtio-blk disks (/dev/vda, /dev/vdb... in that
             order; the guest loads virtio_blk itself: `modprobe virtio_blk` in its command).
             cache=writeback, see qemu_command. power_cut() ends the guest as a power cut would.
    heads:   outputs of the virtio-gpu (max_outputs; connectors Virtual-1, Virtual-2, ...), each
             `size`. QEMU enables only the first without a UI, so the kernel is told to force
             the others on (video=Virtual-N:WxHe). screendump(head=N) shows one.
    icount:  None, or a shift N: QEMU counts instructions (-icount shift=N, one host thread for
             all guest CPUs), and the guest's clocks and CPU times advance 2**N ns a guest
             instruction: CPU seconds that count instructions, for benchmarks (qemu_command).
    """

    def __init__(self, driver: str = "bochs", size: tuple[int, int] = (1024, 768),
                 workdir: str | os.PathLike | None = None, memory: str = "1G",
                 cpus: int = 2, qemu: str = "qemu-system-x86_64",
                 extra_qemu_args: list[str] | tuple[str, ...] = (),
                 modules: list[str] | tuple[str, ...] = (), usb: bool = False, heads: int = 1,
                 drives: list[str | os.PathLike] | tuple[str | os.PathLike, ...] = (),
                 kernel: str | None = None, icount: int | None = None):
        if driver not in DRIVERS:
            raise ValueError(f"driver must be one of {DRIVERS}, not {driver!r}")
        if not 1 <= heads <= 16 or (heads > 1 and driver != "virtio-gpu"):
            raise ValueError(f"heads must be 1, or up to 16 on virtio-gpu, not {heads} on {driver}")
        self.heads = heads
        width, height = size
        if not (64 <= width <= 8192 and 64 <= height <= 8192):
            raise ValueError(f"size {width}x{height} out of range (64..8192)")
        self.driver = driver
        self.size = (int(width), int(height))
        self.memory = memory
        self.cpus = cpus
        self.qemu = qemu
        self.extra_qemu_args = list(extra_qemu_args)
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, not {kernel!r}")
        self.kernel = kernel
        if icount is not None and not 0 <= icount <= 10:
            raise ValueError(f"icount must be a shift of 0..10 (2**shift ns an instruction), not {icount}")
        self.icount = icount
        split_modules(modules)  # ValueError for a malformed entry, before anything starts
        self.modules = list(modules)
        self.usb = usb
        self.drives = [Path(os.path.abspath(d)) for d in drives]
        if usb and "usb" not in self.modules:
            self.modules.append("usb")
        if workdir is None:
            workdir = tempfile.mkdtemp(prefix="kiosk-vm-", dir="/var/tmp")
        self.workdir = Path(os.path.realpath(workdir))
        if self.workdir == Path("/") or "\n" in str(self.workdir):
            raise ValueError(f"unusable work directory {str(self.workdir)!r}")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.console_path = self.workdir / "console.log"
        self._proc: subprocess.Popen | None = None
        self._qmp: QMP | None = None
        self._sockdir: str | None = None
        self._started_at = 0.0
        self._exit_code: int | None = None

    # --- lifecycle -----------------------------------------------------------

    def qemu_command(self, kernel: Path, initrd: Path, qmp_socket: str) -> list[str]:
        """The full QEMU command line (also handy to paste into a shell to debug)."""
        return qemu_command(qemu=self.qemu, driver=self.driver, size=self.size, heads=self.heads,
                            cpus=self.cpus, memory=self.memory, kernel=kernel, initrd=initrd,
                            append=self.kernel_args(), console_path=self.console_path,
                            workdir=self.workdir, qmp_socket=qmp_socket, usb=self.usb,
                            drives=self.drives, extra=self.extra_qemu_args, icount=self.icount)

    def kernel_args(self) -> str:
        """The guest kernel's command line (qemu_command.kernel_args)."""
        return kernel_args(self.size, self.heads, self.modules)

    def start(self, command: str, cwd: str | os.PathLike | None = None,
              env: dict[str, str] | None = None) -> "Bed":
        """Boot the guest and run `command` (a /bin/sh command line) in the chroot.

        Returns once the command has begun (or the guest stopped, or BOOT_TIMEOUT passed:
        the waits report those); use wait(), wait_for_file() and screendump(). A kernel that
        hangs or panics while booting is booted again (see boot_watch.py).
        cwd: directory the command starts in (default: the work directory).
        env: extra environment variables for the command.
        """
        if self._proc is not None:
            raise BedError("this Bed was already started; make a new one")
        if shutil.which(self.qemu) is None:
            raise BedError(f"{self.qemu} not found (apt-get install qemu-system-x86)")
        try:
            kernel, initrd = prepare(self.kernel)
        except BedKernelError as e:
            raise BedError(str(e)) from None
        cwd = os.path.realpath(cwd) if cwd is not None else str(self.workdir)
        for name in _BED_FILES:
            (self.workdir / name).unlink(missing_ok=True)
        for kept in [*self.workdir.glob("console-hung-*.log"), *self.workdir.glob("qemu-hung-*.log")]:
            kept.unlink()
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in (env or {}).items())
        (self.workdir / "guest-command.sh").write_text(
            "# Written by deploy/vm/bed.py; run by /bin/sh inside the guest, chrooted\n"
            "# into the host's root (read-only; /tmp and /run are empty tmpfs but for the\n"
            "# checkout and the start directory, shown read-only).\n"
            f"{GUEST_SLEEP}{exports}cd {shlex.quote(cwd)} || exit 125\n"
            f"{command}\n")
        (self.workdir / "guest-workdir").write_text(str(self.workdir))
        _, with_params = split_modules(self.modules)
        if with_params:
            (self.workdir / "guest-modules").write_text("".join(f"{line}\n" for line in with_params))
        (self.workdir / "guest-expose").write_text(f"{_REPOSITORY}\n{cwd}\n")
        for attempt in range(1, BOOT_ATTEMPTS + 1):
            self._launch(kernel, initrd)
            hung = watch_boot(self.workdir / "guest-started", self._started_at,
                              self.console_log, lambda: self.running, BOOT_TIMEOUT,
                              crashed=self._qemu_signal, cpu_seconds=self._qemu_cpu_seconds)
            if hung is None:
                return self
            self.kill()
            kept = self.workdir / f"console-hung-{attempt}.log"
            if self.console_path.exists():  # QEMU may die before it opens the console
                self.console_path.replace(kept)
            qemu_log = self.workdir / "qemu.log"
            if qemu_log.exists():  # what a crashed QEMU said, kept beside its console
                qemu_log.replace(self.workdir / f"qemu-hung-{attempt}.log")
            print(f"bed: the guest hung, panicked or crashed while booting ({hung!r}; console kept in "
                  f"{kept}); booting it again", file=sys.stderr)
        raise BedError(f"the guest kernel hung while booting {BOOT_ATTEMPTS} times in a row (hung, "
                       f"panicked or QEMU crashed before the command began); consoles kept as {self.workdir}/console-hung-*.log")

    def _launch(self, kernel: Path, initrd: Path) -> None:
        # A short path: unix socket paths are limited to 107 bytes.
        self._sockdir = tempfile.mkdtemp(prefix="kiosk-vm-qmp-")
        qmp_socket = os.path.join(self._sockdir, "qmp.sock")
        args = self.qemu_command(kernel, initrd, qmp_socket)
        self._started_at = time.time()
        try:
            with open(self.workdir / "qemu.log", "wb") as qemu_log:
                self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=qemu_log,
                                              stderr=subprocess.STDOUT, cwd=self.workdir,
                                              preexec_fn=die_with_parent)
        except OSError as e:
            shutil.rmtree(self._sockdir, ignore_errors=True)
            raise BedError(f"cannot start {self.qemu}: {e}") from None
        self._qmp = QMP(qmp_socket)
        _live_beds.add(self)
        # Each boot costs the host 8-15 CPU s under TCG: Tests/System/run_files.py counts them per
        # file (KIOSK_BED_BOOT_LOG), so the suite's budget shows which files boot most (#34).
        boot_log = os.environ.get("KIOSK_BED_BOOT_LOG")
        if boot_log:
            with open(boot_log, "a") as log:
                log.write(f"{self.kernel or 'default'} {os.environ.get('PYTEST_CURRENT_TEST', '?')}\n")

    def run(self, command: str, timeout: float = 120.0, **kwargs) -> int:
        """start(command) then wait(timeout): the command's exit code."""
        self.start(command, **kwargs)
        return self.wait(timeout)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def wait(self, timeout: float = 120.0, kill_on_timeout: bool = True) -> int:
        """Wait for the guest to power off; return the command's exit code.

        Raises GuestTimeout after `timeout` seconds (killing QEMU unless
        kill_on_timeout is False), GuestSetupError if the guest could not set
        up the chroot, BedError if QEMU or the guest kernel died."""
        proc = self._require_started()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            if kill_on_timeout:
                self.kill()
            raise GuestTimeout(
                f"guest still running after {timeout:g} s"
                f"{' (killed)' if kill_on_timeout else ''}; {self._where()}") from None
        return self._result()

    def wait_for_file(self, name: str, timeout: float = 60.0) -> Path:
        """Wait until the guest has written `name` in the work directory.

        Only a file created or modified since this boot counts, so a leftover
        from an earlier run is not mistaken for a new one. Raises BedError
        if the guest stops first, GuestTimeout after `timeout` seconds."""
        proc = self._require_started()
        path = self.workdir / name
        deadline = time.monotonic() + timeout
        while True:
            try:
                if path.stat().st_mtime >= self._started_at - 0.05:
                    return path
            except FileNotFoundError:
                pass
            if proc.poll() is not None:
                raise BedError(f"guest stopped before writing {name} "
                               f"({self._ended_how()}); {self._where()}")
            if time.monotonic() > deadline:
                raise GuestTimeout(f"guest did not write {name} within {timeout:g} s; "
                                   f"{self._where()}")
            time.sleep(0.05)

    def kill(self) -> None:
        """Stop QEMU now (SIGKILL). Safe to call more than once."""
        if self._qmp is not None:
            self._qmp.close()
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                raise BedError(f"QEMU (pid {self._proc.pid}) did not die after SIGKILL") from None
        if self._sockdir is not None:
            shutil.rmtree(self._sockdir, ignore_errors=True)
            self._sockdir = None
        _live_beds.discard(self)

    def __enter__(self) -> "Bed":
        return self

    def __exit__(self, *exc) -> None:
        self.kill()

    # --- what happened -------------------------------------------------------

    def console_log(self) -> str:
        """The guest's serial console so far: kernel warnings and the command's output."""
        try:
            text = self.console_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""
        return text.replace("\r\n", "\n")

    def dmesg(self) -> str:
        """The guest kernel's log, saved after the command ended ('' before)."""
        try:
            return (self.workdir / "dmesg.log").read_text(errors="replace")
        except FileNotFoundError:
            return ""

    @property
    def boot_seconds(self) -> float | None:
        """Seconds from start() until the command began (None if it has not yet)."""
        try:
            return (self.workdir / "guest-started").stat().st_mtime - self._started_at
        except FileNotFoundError:
            return None

    # --- internals -----------------------------------------------------------

    def _require_started(self) -> subprocess.Popen:
        if self._proc is None:
            raise BedError("the guest was not started: call start(command) first")
        return self._proc

    def _where(self) -> str:
        tail = "\n".join(self.console_log().rstrip().splitlines()[-15:])
        return (f"console log: {self.console_path}" +
                (f"\n--- last console lines ---\n{tail}" if tail else " (empty)"))

    def _qemu_cpu_seconds(self) -> float | None:
        """QEMU's CPU time so far (boot_watch.process_cpu_seconds), None when QEMU is gone."""
        return process_cpu_seconds(self._proc.pid) if self._proc is not None else None

    def _qemu_signal(self) -> str | None:
        """'QEMU killed by signal N' when QEMU crashed (SIGSEGV, SIGBUS, SIGILL): an emulator's
        fault, booted again. Another signal (SIGABRT of a failed assertion, which would fail
        the same way each time; a kill) is left for the caller's waits to report."""
        rc = self._proc.returncode if self._proc else None
        if rc is None or -rc not in (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL) \
                or (self.workdir / "exit-code").exists():
            return None
        return f"QEMU killed by signal {-rc}"

    def _ended_how(self) -> str:
        rc = self._proc.returncode if self._proc else None
        if rc is None:
            return "still running"
        code_file = self.workdir / "exit-code"
        if code_file.exists():
            return f"the command exited with status {code_file.read_text().strip()}"
        if rc < 0:
            return f"QEMU killed by signal {-rc}"
        return f"QEMU exited with status {rc}"

    def _result(self) -> int:
        if self._exit_code is not None:
            return self._exit_code
        self.kill()  # tidy the QMP socket even though QEMU has exited
        code_file = self.workdir / "exit-code"
        if code_file.exists():
            text = code_file.read_text().strip()
            if not text.isdigit():
                raise BedError(f"unreadable exit code {text!r} in {code_file}; {self._where()}")
            self._exit_code = int(text)
            return self._exit_code
        setup_error = self.workdir / "setup-error"
        if setup_error.exists():
            raise GuestSetupError(f"guest setup failed: {setup_error.read_text().strip()}; "
                                  f"{self._where()}")
        rc = self._proc.returncode
        if rc != 0:
            qemu_log = (self.workdir / "qemu.log").read_text(errors="replace").strip()
            raise BedError(f"{self._ended_how()}: {qemu_log or '(no message)'}\n"
                           f"command line: {shlex.join(self._proc.args)}\n{self._where()}")
        raise BedError("the guest powered off without reporting an exit code "
                       f"(kernel panic?); {self._where()}")


# Beds still running; killed at interpreter exit in case a caller forgot.
_live_beds: set[Bed] = set()


def _kill_all() -> None:
    for bed in list(_live_beds):
        bed.kill()


atexit.register(_kill_all)
