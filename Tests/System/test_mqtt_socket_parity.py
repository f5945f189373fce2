"""The same replies over MQTT and the control socket (issue 31), on the host: one headless
`kiosk run` with content sync on (http_media_server.py serving a manifest), a trigger, and an
mqtt section pointing at a real `mosquitto` on 127.0.0.1. Every command that `commands` lists is
sent over the socket and then over MQTT; the reply lines must be byte for byte the same, `sync_now`
included (it once answered "content sync is off" over MQTT while the socket worked). `observe`
and `unobserve` need a connection to send changes on: over MQTT they are refused, saying so.
Every wait is for an event with a deadline meant for a hang, never for a speed."""
import json
import subprocess
import time

from content_sync_support import served
from control_client import ControlClient, wait_until
from mqtt_kiosk import EVENT_TIMEOUT, KIOSK, Broker, Kiosk, Subscriber, clip, running, section  # noqa: F401 (fixtures)

# Arguments for the commands that take some; chosen so that a reply does not depend on the
# moment it is asked (no `get time` while playing) and nothing leaves the clip for long.
EXAMPLES = {
    "seek": [1], "goto": [0], "play_item_once": [0], "trigger": ["welcome"], "layer": ["hide", "logo"],
    "load": ["/nonexistent/clip.mp4"], "volume": [40], "rate": [1], "get": ["volume"], "observe": ["volume"],
    "unobserve": ["volume"], "display_power": ["on"], "override": ["evacuate"], "cap": ["<alert/>"],
    # Refused alike by both (no words): a card taken over the socket would make MQTT's
    # override_cancel after it answer otherwise.
    "override_text": ["notice", " "],
}


def socket_reply(client: ControlClient, line: str) -> str:
    """The raw reply line to `line`, events on the way skipped."""
    client.send_raw((line + "\n").encode())
    while True:
        while b"\n" not in client.buffer:
            chunk = client.sock.recv(65536)
            assert chunk, "the control socket closed"
            client.buffer += chunk
        raw, client.buffer = client.buffer.split(b"\n", 1)
        if b'"event"' not in raw:
            return raw.decode()


def mqtt_payloads(watcher: Subscriber, topic: str):
    return [line.partition(" ")[2] for line in watcher.out.read_text().splitlines() if line.partition(" ")[0] == topic]


def test_every_command_gets_the_same_reply_over_mqtt_and_the_socket_with_content_sync_on(tmp_path, clip, running):
    root, server, manifest = served(tmp_path, {"a.bin": 2000, "b.bin": 3000})
    try:
        broker = Broker(tmp_path)
        running.append(broker)
        sync = (f"sync:\n  manifest: {server.url('manifest.json')}\n  dir: {tmp_path / 'store'}\n"
                "  min_free: 1M\n  interval: 3600\n")
        triggers = "triggers:\n  - {name: welcome, item: 0}\n"
        kiosk = Kiosk(tmp_path, clip, "k1", section(broker.port, "k1"), extra=sync + triggers)
        running.append(kiosk)
        status = wait_until(lambda: broker.retained("kiosk/k1/status"), timeout=EVENT_TIMEOUT)
        assert status, kiosk.log.read_text()
        # `kiosk --version` is what the fleet sees.
        assert status["version"] == subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True,
                                                   check=True).stdout.strip()
        watcher = Subscriber(broker, "kiosk/k1/reply", "parity")
        running.append(watcher)
        time.sleep(0.5)   # mosquitto_sub's SUBSCRIBE on its way; a missed reply fails below, never passes
        client = ControlClient(kiosk.socket)
        names = [usage.split(" ")[0] for usage in client.ok("commands")["commands"]]
        examples = dict(EXAMPLES, screenshot=[str(tmp_path / "shot.png")])
        assert "sync_now" in names and "trigger" in names, names
        for index, name in enumerate(names):
            line = json.dumps({"command": [name, *examples.get(name, [])], "request_id": index})
            over_socket = socket_reply(client, line)
            broker.publish("kiosk/k1/cmd", json.loads(line))
            over_mqtt = wait_until(lambda: (p := mqtt_payloads(watcher, "kiosk/k1/reply")) and len(p) > index and p[index],
                                   timeout=EVENT_TIMEOUT)
            assert over_mqtt, f"no MQTT reply to {line}: {kiosk.log.read_text()}"
            assert "unknown command" not in over_socket and "takes " not in over_socket, (name, over_socket)
            if name in ("observe", "unobserve"):
                assert json.loads(over_socket)["error"] == "success"
                assert "only on a control socket connection" in json.loads(over_mqtt)["error"], over_mqtt
            else:
                assert over_mqtt == over_socket, (name, over_socket, over_mqtt)
        # sync_now was answered alike; both see the same content sync (a status, never null).
        assert json.loads(socket_reply(client, '{"command": ["sync_now"], "request_id": 900}'))["error"] == "success"
        broker.publish("kiosk/k1/cmd", {"command": ["get", "sync"], "request_id": 901})
        over_mqtt = wait_until(lambda: [p for p in mqtt_payloads(watcher, "kiosk/k1/reply") if '"request_id":901' in p],
                               timeout=EVENT_TIMEOUT)
        assert over_mqtt and isinstance(json.loads(over_mqtt[0])["data"], dict), over_mqtt
        assert isinstance(client.ok("get", "sync"), dict)
        # The health every source reads knows both services: a good pass and the broker.
        health = wait_until(lambda: (h := client.ok("get", "health"))["sync"]["last_success_age"] is not None and h,
                            timeout=EVENT_TIMEOUT)
        assert health, client.ok("get", "health")
        assert health["mqtt_connected"] is True and health["sync"]["failures"] == 0, health
        assert health["sync"]["store_free_bytes"] > 0, health
        client.close()
    finally:
        server.__exit__(None, None, None)
