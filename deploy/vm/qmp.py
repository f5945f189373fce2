"""A minimal client for QEMU's machine protocol (QMP) over a Unix socket: what the bed needs
to take PNG screendumps of the guest's display. One connection, opened on first use."""

from __future__ import annotations

import json
import socket
import time


class QMPError(RuntimeError):
    """QEMU did not answer, refused a command, or closed the connection."""


class QMP:
    """A minimal QMP client: one connection, opened on first use."""

    def __init__(self, path: str):
        self.path = path
        self._sock: socket.socket | None = None
        self._buf = b""

    def execute(self, command: str, arguments: dict | None = None, timeout: float = 20.0):
        deadline = time.monotonic() + timeout
        if self._sock is None:
            self._connect(deadline)
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self._send(msg)
        return self._reply(deadline, command)

    def _connect(self, deadline: float) -> None:
        # QEMU creates the socket a moment after it starts: retry until then.
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                sock.connect(self.path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() > deadline:
                    raise QMPError(f"QMP socket {self.path} did not appear") from None
                time.sleep(0.05)
        self._sock = sock
        self._buf = b""
        self._read(deadline)  # greeting
        self._send({"execute": "qmp_capabilities"})
        self._reply(deadline, "qmp_capabilities")

    def _send(self, msg: dict) -> None:
        self._sock.sendall(json.dumps(msg).encode() + b"\n")

    def _read(self, deadline: float) -> dict:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise QMPError("QMP: no answer in time")
            self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                raise QMPError("QMP: no answer in time") from None
            if not chunk:
                raise QMPError("QMP: QEMU closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _reply(self, deadline: float, command: str):
        while True:
            msg = self._read(deadline)
            if "event" in msg:
                continue
            if "error" in msg:
                raise QMPError(f"QMP {command}: {msg['error'].get('desc', msg['error'])}")
            if "return" in msg:
                return msg["return"]

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
