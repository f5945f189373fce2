"""What a test does to a running guest through QMP: screenshots, USB sticks, a power cut.

A part of `Bed` (deploy/vm/bed.py), kept apart to keep the boot and its bookkeeping in one
file and the guest's outside world in this one. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from bed_errors import BedError
from qmp import QMPError


class GuestDevices:
    """`Bed`'s QMP actions; `Bed` provides _qmp, _proc, usb, running, kill() and the
    _require_started/_ended_how/_where helpers they use."""

    def screendump(self, path: str | os.PathLike, timeout: float = 20.0, head: int | None = None) -> Path:
        """Save the guest's display as a PNG file at `path` (via QMP); return the path.
        head: which output of a Bed(heads=N) (0 is the first; QMP names the GPU and the head)."""
        self._require_started()
        if not self.running:
            raise BedError(f"cannot take a screenshot: the guest has stopped "
                           f"({self._ended_how()}); {self._where()}")
        path = Path(os.path.abspath(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            arguments = {"filename": str(path), "format": "png"}
            if head is not None:
                arguments.update(device="gpu", head=head)
            self._qmp.execute("screendump", arguments, timeout=timeout)
        except (OSError, BedError, QMPError) as e:
            if not self.running:
                raise BedError(f"cannot take a screenshot: the guest stopped "
                               f"({self._ended_how()}); {self._where()}") from None
            raise BedError(f"screendump to {path} failed: {e}") from None
        if not path.is_file():
            raise BedError(f"QEMU reported success but wrote no file at {path}")
        return path

    def plug_usb_stick(self, image: str | os.PathLike, stick_id: str = "stick",
                       timeout: float = 20.0) -> None:
        """Hot-plug a USB mass-storage device backed by the raw disk image `image` (QMP
        blockdev-add, then device_add usb-storage on the xHCI bus): the guest kernel sees a
        removable disk arrive, as when a stick is plugged in. Needs Bed(usb=True)."""
        if not self.usb:
            raise BedError("plug_usb_stick needs Bed(usb=True) (an xHCI controller)")
        self._require_started()
        node = f"{stick_id}-disk"
        try:
            self._qmp.execute("blockdev-add", {
                "driver": "raw", "node-name": node, "read-only": False,
                "file": {"driver": "file", "filename": os.path.abspath(image)}}, timeout=timeout)
            self._qmp.execute("device_add", {"driver": "usb-storage", "id": stick_id, "drive": node,
                                             "bus": "xhci.0", "removable": True}, timeout=timeout)
        except (OSError, QMPError) as e:
            raise BedError(f"cannot plug USB stick {image}: {e}; {self._where()}") from None

    def unplug_usb_stick(self, stick_id: str = "stick", timeout: float = 20.0) -> None:
        """Pull the stick out (device_del: the guest sees a surprise removal, as a hand pulling
        it), then drop its disk backend once QEMU has let go of it."""
        self._require_started()
        try:
            self._qmp.execute("device_del", {"id": stick_id}, timeout=timeout)
        except (OSError, QMPError) as e:
            raise BedError(f"cannot unplug USB stick {stick_id}: {e}; {self._where()}") from None
        # The device goes a moment after the command returns (DEVICE_DELETED); the backend can
        # be removed only then.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._qmp.execute("blockdev-del", {"node-name": f"{stick_id}-disk"}, timeout=timeout)
                return
            except QMPError:
                if time.monotonic() > deadline:
                    raise BedError(f"the USB stick {stick_id}'s disk stayed in use {timeout:g} s after device_del") from None
                time.sleep(0.1)

    def power_cut(self, timeout: float = 20.0) -> None:
        """End the guest at once, as a power cut would (QMP quit: QEMU stops the CPUs and exits;
        the guest flushes nothing, its page cache is lost, its disks keep what reached them).
        Falls back to SIGKILL if QMP does not answer."""
        self._require_started()
        if self.running:
            try:
                self._qmp.execute("quit", timeout=timeout)
            except (OSError, QMPError, BedError):
                pass   # QEMU may exit before it answers
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
