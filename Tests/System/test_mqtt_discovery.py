"""Home Assistant's MQTT discovery (issue 37), on the host with a real mosquitto: a headless
`kiosk run` with `mqtt.discovery: homeassistant` leaves retained configs under
`homeassistant/<component>/kiosk_<name>/<object>/config` that hold what Home Assistant's MQTT
platforms document (checked below per platform), sends them again when Home Assistant publishes
`online` on `homeassistant/status` (as it does when it starts), and acts on what the entities
send, published to their command topics exactly as Home Assistant would: the display power
switch, the volume number (its command template rendered), the next button, a trigger's button.

Every wait is for an event with a deadline meant for a hang, never for a speed."""
import json
import subprocess

from control_client import wait_until
from mqtt_kiosk import EVENT_TIMEOUT, Broker, Kiosk, Subscriber, clip, running, section  # noqa: F401 (fixtures)

# The fields each platform needs or uses, from Home Assistant's MQTT integration docs
# ("Configuration variables" of sensor, switch, number and button), plus the discovery basics.
REQUIRED = {
    "sensor": {"state_topic", "value_template"},
    "binary_sensor": {"state_topic", "value_template", "device_class"},
    "switch": {"command_topic", "state_topic", "payload_on", "payload_off", "state_on", "state_off", "value_template"},
    "number": {"command_topic", "command_template", "state_topic", "min", "max", "step"},
    "button": {"command_topic", "payload_press"},
    "image": {"image_topic", "content_type"},
}
EVERY = {"name", "unique_id", "device", "availability_topic", "availability_template"}


def publish_raw(broker: Broker, topic: str, payload: str, retain: bool = False):
    """As Home Assistant publishes: the payload as it is (not JSON-encoded again)."""
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", topic, "-q", "1",
                    "-m", payload, *(["-r"] if retain else [])], check=True, timeout=30)


def configs(subscriber: Subscriber):
    """(topic, config) of every config message received so far, in order."""
    found = []
    for line in subscriber.out.read_text().splitlines():
        topic, _, payload = line.partition(" ")
        if topic.startswith("homeassistant/") and topic.endswith("/config"):
            found.append((topic, json.loads(payload)))
    return found


def retained_configs(broker: Broker):
    """The retained config messages on the broker now, by topic."""
    result = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "homeassistant/+/+/+/config",
                             "-v", "--retained-only", "-W", "3"], capture_output=True, text=True)
    found = {}
    for line in result.stdout.splitlines():
        topic, _, payload = line.partition(" ")
        found[topic] = json.loads(payload)
    return found


def test_home_assistant_finds_the_kiosk_and_its_entities_act_on_it(tmp_path, clip, running):  # noqa: F811
    broker = Broker(tmp_path)
    running.append(broker)
    watcher = Subscriber(broker, "homeassistant/#", "ha")
    running.append(watcher)
    kiosk = Kiosk(tmp_path, clip, "lobby", section(broker.port, "lobby", "  discovery: homeassistant\n"),
                  extra=f"triggers:\n  - {{name: welcome, items: [{clip}]}}\n")
    running.append(kiosk)

    # Retained, so a Home Assistant that starts later finds them.
    assert wait_until(lambda: len(retained_configs(broker)) == 12, timeout=EVENT_TIMEOUT), \
        (retained_configs(broker), kiosk.log.read_text())
    announced = retained_configs(broker)
    ids = set()
    for topic, config in announced.items():
        prefix, component, node, obj, last = topic.split("/")
        assert (prefix, node, last) == ("homeassistant", "kiosk_lobby", "config"), topic
        missing = (EVERY | REQUIRED[component]) - set(config)
        assert not missing, (topic, missing)
        assert config["unique_id"] == f"kiosk_lobby_{obj}"
        ids.add(config["unique_id"])
        assert config["device"]["identifiers"] == ["kiosk_lobby"]
        assert config["availability_topic"] == "kiosk/lobby/status"
    assert len(ids) == len(announced)
    by_object = {topic.split("/")[3]: config for topic, config in announced.items()}
    assert set(by_object) == {"state", "title", "alert", "temperature", "display_power", "volume", "mute", "toggle", "next",
                              "previous", "trigger_welcome", "screen"}

    # The image entity's picture: kiosk's screenshot, a PNG of the screen's size, retained.
    assert by_object["screen"]["image_topic"] == "kiosk/lobby/screen" and by_object["screen"]["content_type"] == "image/png"
    screen = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "kiosk/lobby/screen",
                             "-C", "1", "-N", "--retained-only", "-W", "30"], capture_output=True, timeout=60).stdout
    assert screen[:8] == b"\x89PNG\r\n\x1a\n", screen[:32]
    assert (int.from_bytes(screen[16:20], "big"), int.from_bytes(screen[20:24], "big")) == (320, 240)

    # The status the entities read carries what they show.
    status = broker.retained("kiosk/lobby/status")
    assert status["online"] is True and status["display_power"] == "on"
    assert isinstance(status["volume"], int) and status["muted"] is False
    # Health: a headless kiosk playing a good clip has no picture or display alert (the host's own
    # sensors may say it is hot); the socket reads the same health.
    assert not [a for a in status["alerts"] if a.startswith(("picture", "display"))], status
    health = kiosk.get("health")
    assert health["frames_presented"] > 0 and isinstance(health["alerts"], list), health
    assert health["mqtt_connected"] is True, health
    # The temperature sensor reads the hottest zone the health has (none on a box without one).
    if health["temperatures"]:
        assert abs(status["temperature"] - max(t["celsius"] for t in health["temperatures"])) <= 2, (status, health)
    else:
        assert "temperature" not in status, status

    # Home Assistant restarted: it says online on its birth topic, kiosk announces again (counted
    # once the first announcement has reached the watcher whole).
    assert wait_until(lambda: len(configs(watcher)) >= 12, timeout=EVENT_TIMEOUT)
    before = len(configs(watcher))
    publish_raw(broker, "homeassistant/status", "online")
    assert wait_until(lambda: len(configs(watcher)) >= before + 12, timeout=EVENT_TIMEOUT)

    # What the entities send, as Home Assistant sends it.
    power = by_object["display_power"]
    publish_raw(broker, power["command_topic"], power["payload_off"])
    assert wait_until(lambda: kiosk.get("display_power") == "off", timeout=EVENT_TIMEOUT)
    assert wait_until(lambda: (broker.retained("kiosk/lobby/status") or {}).get("display_power") == "off",
                      timeout=EVENT_TIMEOUT)
    publish_raw(broker, power["command_topic"], power["payload_on"])
    assert wait_until(lambda: kiosk.get("display_power") == "on", timeout=EVENT_TIMEOUT)

    volume = by_object["volume"]
    publish_raw(broker, volume["command_topic"], volume["command_template"].replace("{{ value | int }}", "35"))
    assert wait_until(lambda: kiosk.get("volume") == 35, timeout=EVENT_TIMEOUT)
    assert wait_until(lambda: (broker.retained("kiosk/lobby/status") or {}).get("volume") == 35, timeout=EVENT_TIMEOUT)

    mute = by_object["mute"]
    publish_raw(broker, mute["command_topic"], mute["payload_on"])
    assert wait_until(lambda: kiosk.get("muted") is True, timeout=EVENT_TIMEOUT)

    trigger = by_object["trigger_welcome"]
    replies = Subscriber(broker, "kiosk/lobby/reply", "replies")
    running.append(replies)
    publish_raw(broker, trigger["command_topic"], trigger["payload_press"])
    assert wait_until(lambda: replies.messages("kiosk/lobby/reply"), timeout=EVENT_TIMEOUT)
    assert replies.messages("kiosk/lobby/reply")[0]["error"] == "success"
    assert not kiosk.lines("refused"), kiosk.log.read_text()
