"""The control socket's bad clients (issue 6), against the player test_control.py drives too
(control_kiosk.py): malformed JSON, unknown commands, wrong types, a line over 64 KiB, a
disconnect mid-line, one that never reads, 100 at once each get a JSON error or a closed
connection while the player keeps presenting frames and answering; `kiosk ctl`'s exit codes and
`watch`."""
import json
import socket
import subprocess
import time

# The player and its fixtures (pytest finds them here by name).
from control_kiosk import KIOSK, clips, ctl, kiosk, restore_playback  # noqa: F401


def test_bad_requests_get_json_errors_and_the_connection_stays(kiosk):
    client = kiosk.client()
    cases = [
        (b"{not json\n", "malformed JSON"),
        (b'{"command": ["explode"], "request_id": 5}\n', 'unknown command "explode"'),
        (b'{"command": ["seek", "soon"]}\n', "seek: seconds must be a number"),
        (b'{"command": ["volume", true]}\n', "volume must be a number, got a boolean"),
        (b'{"command": ["pause", 1, 2]}\n', "pause: takes 0 arguments, got 2"),
        (b'{"command": ["rate", 9]}\n', "out of range"),
        (b'["pause"]\n', "expected a JSON object"),
        (b"\xff\xfe\x00garbage\n", "malformed JSON"),
    ]
    for line, expected in cases:
        client.send_raw(line)
        reply = client.reply()
        assert expected in reply["error"], (line, reply)
    assert client.ok("get", "playlist_count") == 3
    client.close()
    kiosk.assert_alive()


def test_overlong_line_is_refused_and_closed(kiosk):
    client = kiosk.client()
    client.send_raw(b'{"command": ["get", "' + b"x" * (70 * 1024))
    reply = client.reply()
    assert "longer than 65536 bytes" in reply["error"]
    assert client.read_message() is None, "the connection stayed open"
    client.close()
    kiosk.assert_alive()


def test_disconnect_mid_line(kiosk):
    for _ in range(5):
        client = kiosk.client()
        client.send_raw(b'{"command": ["pau')
        client.close()
    kiosk.assert_alive()
    client = kiosk.client()
    assert client.ok("get", "time_control_status") != "paused"   # the half line never ran
    client.close()


def test_a_client_that_never_reads_is_dropped(kiosk):
    flood = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    flood.connect(str(kiosk.socket))
    flood.setblocking(False)
    request = b'{"command": ["commands"]}\n' * 200   # ~600-byte replies, never read
    sent = dropped = 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            sent += flood.send(request)
        except BlockingIOError:
            time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            dropped = 1
            break
    flood.close()
    assert dropped, f"still connected after {sent} bytes of requests"
    kiosk.assert_alive()


def test_hundred_clients_at_once(kiosk):
    clients = [kiosk.client() for _ in range(100)]
    for index, client in enumerate(clients):
        client.send_raw((json.dumps({"command": ["get", "playlist_count"], "request_id": index}) + "\n").encode())
    for index, client in enumerate(clients):
        reply = client.reply(index)
        assert reply == {"request_id": index, "error": "success", "data": 3}
    for client in clients:
        client.close()
    kiosk.assert_alive()


def test_ctl_exit_codes(kiosk, tmp_path):
    result = ctl(kiosk, "get", "playlist_count")
    assert (result.returncode, result.stdout) == (0, "3\n"), result.stderr
    result = ctl(kiosk, "get", "title")
    assert result.returncode == 0 and result.stdout.strip() in ("a.mp4", "b.mp4", "c.mp4")
    result = ctl(kiosk, "get", "schedule")   # `kiosk play` follows none: null, said (it printed nothing)
    assert (result.returncode, result.stdout) == (0, "null\n"), (result.stdout, result.stderr)
    result = ctl(kiosk, "commands")
    assert result.returncode == 0 and "seek" in json.loads(result.stdout)["commands"][3]
    result = ctl(kiosk, "volume", "300")
    assert result.returncode == 1 and "volume 300 is out of range" in result.stderr
    result = ctl(kiosk, "seek", "soon")
    assert result.returncode == 1 and "seconds must be a number" in result.stderr
    result = ctl(kiosk, "seek", "-1", "relative")
    assert result.returncode == 0, result.stderr
    result = ctl(kiosk, "frobnicate")
    assert result.returncode == 1 and "unknown command" in result.stderr
    result = subprocess.run([str(KIOSK), "ctl", "--socket", str(tmp_path / "nothing.sock"), "pause"],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 2 and "cannot connect" in result.stderr and "nothing.sock" in result.stderr
    result = subprocess.run([str(KIOSK), "ctl", "--socket", str(kiosk.socket)], capture_output=True, text=True, timeout=20)
    assert result.returncode == 2
    conf = tmp_path / "kiosk.conf"
    conf.write_text("control:\n  socket: none\nitems:\n  - a.mp4\n")
    result = subprocess.run([str(KIOSK), "ctl", "--config", str(conf), "pause"], capture_output=True, text=True, timeout=20)
    assert result.returncode == 2 and "control.socket to none" in result.stderr


def test_ctl_watch_prints_events(kiosk):
    watcher = subprocess.Popen([str(KIOSK), "ctl", "--socket", str(kiosk.socket), "watch"],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = watcher.stdout.readline()   # time events come every second
        assert json.loads(line)["event"] in ("time", "time_control_status", "item_started", "item_ended", "status")
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)
