"""A small JSON-lines client for kiosk's control socket, for the host tests."""
import json
import socket
import time


class ControlClient:
    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.buffer = b""
        self.events = []
        self.next_id = 1

    def close(self):
        self.sock.close()

    def send_raw(self, data: bytes):
        self.sock.sendall(data)

    def read_message(self):
        """The next line as JSON; None when the server closed the connection."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def reply(self, request_id=None):
        """The next reply (to `request_id` if given); events on the way are kept in .events."""
        while True:
            message = self.read_message()
            if message is None:
                raise ConnectionError("the server closed the connection")
            if "event" in message:
                self.events.append(message)
                continue
            if request_id is None or message.get("request_id") == request_id:
                return message

    def command(self, *words):
        request_id = self.next_id
        self.next_id += 1
        self.send_raw((json.dumps({"command": list(words), "request_id": request_id}) + "\n").encode())
        return self.reply(request_id)

    def ok(self, *words):
        reply = self.command(*words)
        assert reply["error"] == "success", (words, reply)
        return reply.get("data")

    # kiosk's reply when its presenter was busy past the socket's wait (a starved guest): the
    # request is carried out when the presenter comes to it; the caller waits for its effect.
    QUEUED = "the request waits its turn"

    def asked(self, *words):
        """`words` carried out or queued (QUEUED); any other refusal fails. For requests whose
        effect the caller then waits for (`pause`, then `time_control_status` is paused)."""
        reply = self.command(*words)
        assert reply["error"] == "success" or self.QUEUED in reply["error"], (words, reply)
        return reply.get("data")

    def wait_for_event(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        for event in self.events:
            if predicate(event):
                return event
        while time.monotonic() < deadline:
            message = self.read_message()
            if message is None:
                break
            if "event" in message:
                self.events.append(message)
                if predicate(message):
                    return message
        raise AssertionError(f"no such event within {timeout} s; saw {self.events[-10:]}")


    def time_events_within(self, seconds):
        """The time events that arrive in the next `seconds` (other events kept in .events)."""
        self.events.clear()
        deadline = time.monotonic() + seconds
        self.sock.settimeout(0.2)
        while time.monotonic() < deadline:
            try:
                message = self.read_message()
            except TimeoutError:
                continue
            if message and "event" in message:
                self.events.append(message)
        self.sock.settimeout(5)
        return [event for event in self.events if event["event"] == "time"]


def wait_until(check, timeout=5.0, interval=0.05):
    """Polls `check` until it returns a true value (returned) or `timeout` passes (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    return None
