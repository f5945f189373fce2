"""The MQTT system tests' players and broker (test_mqtt.py, test_mqtt_discovery.py,
test_mqtt_socket_parity.py): a mosquitto on 127.0.0.1 on a free port with a config file of its
own, mosquitto_sub as a subscriber confirmed subscribed, headless `kiosk run`s with an mqtt
section, TLS certificates made with openssl, and the fixtures that stop them all after a test."""
import getpass
import json
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from built_kiosk import KIOSK  # the release kiosk deploy/test built, else the newest build
from control_client import ControlClient, wait_until

CLIP_SECONDS = 4
START_TIMEOUT = 30
EVENT_TIMEOUT = 30

# Debian puts the broker in /usr/sbin, which a user's PATH may lack.
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    """One mosquitto on 127.0.0.1: anonymous, or with a password file (users given)."""

    def __init__(self, directory: Path, users=None, port=None, tls=None):
        self.port = port or free_port()
        self.directory = directory
        self.conf = directory / f"mosquitto-{self.port}.conf"
        self.log = directory / f"mosquitto-{self.port}.log"
        # Started as root, mosquitto would switch to the user `mosquitto`, who cannot read the
        # test's private folder (the password file): it stays who runs the test.
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_type all", f"user {getpass.getuser()}"]
        if users:
            passwords = directory / f"passwords-{self.port}"
            for user, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", *([] if passwords.exists() else ["-c"]), str(passwords),
                                user, password], check=True, capture_output=True)
            passwords.chmod(0o644)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if tls:
            lines += [f"cafile {tls['ca']}", f"certfile {tls['cert']}", f"keyfile {tls['key']}"]
        self.conf.write_text("\n".join(lines) + "\n")
        self.process = None
        self.start()

    def start(self):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=log)
        if not wait_until(self.accepts, timeout=START_TIMEOUT):
            self.process.kill()
            pytest.fail(f"mosquitto did not start: {self.log.read_text()}")

    def accepts(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=10)

    def retained(self, topic, timeout=10, tls=None):
        """The retained message on `topic` as JSON, or None when there is none."""
        secure = ["--cafile", str(tls["ca"]), "-h", "localhost"] if tls else ["-h", "127.0.0.1"]
        result = subprocess.run(["mosquitto_sub", *secure, "-p", str(self.port), "-t", topic,
                                 "-C", "1", "-W", str(timeout), "--retained-only"],
                                capture_output=True, text=True)
        return json.loads(result.stdout) if result.returncode == 0 and result.stdout.strip() else None

    def publish(self, topic, payload):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-t", topic, "-q", "1",
                        "-m", json.dumps(payload)], check=True, timeout=30)


class Subscriber:
    """mosquitto_sub on a topic filter, writing `topic payload` lines to a file, returned once the
    broker has confirmed the subscription (its debug line `received SUBACK`): a message sent
    before that is not delivered, and a fast kiosk answered a request sent right after the start
    before mosquitto_sub had subscribed (test_mqtt_discovery's reply, once in CI)."""

    def __init__(self, broker: Broker, topic: str, name: str):
        self.out = broker.directory / f"sub-{name}.txt"
        self.file = open(self.out, "w")
        # -d: mosquitto_sub's debug lines ("Client ... received SUBACK") go to the same file;
        # they begin with "Client", never with a topic, so `messages` passes over them. stdbuf:
        # line by line (stdio would hold the debug lines back in its buffer).
        self.process = subprocess.Popen(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", topic,
                                         "-v", "-q", "1", "-d"], stdout=self.file, stderr=subprocess.STDOUT)
        if not wait_until(lambda: "received SUBACK" in self.out.read_text(errors="replace"), timeout=START_TIMEOUT):
            raise RuntimeError(f"mosquitto_sub on {topic} was not subscribed: {self.out.read_text(errors='replace')[-500:]}")

    def messages(self, topic):
        found = []
        for line in self.out.read_text().splitlines():
            name, _, payload = line.partition(" ")
            if name == topic:
                found.append(json.loads(payload))
        return found

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.file.close()


class Kiosk:
    """One headless `kiosk run` with an mqtt section: its stats file, log and control socket."""

    def __init__(self, directory: Path, clip: Path, name: str, mqtt: str, extra: str = ""):
        self.name = name
        self.stats = directory / f"stats-{name}.jsonl"
        self.log = directory / f"log-{name}.txt"
        self.socket = directory / f"control-{name}.sock"
        config = directory / f"kiosk-{name}.conf"
        config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                          f"{extra}mqtt:\n{mqtt}items: [{clip}]\n")
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(KIOSK), "run", "--config", str(config), "--display", "headless:320x240", "--audio", "none",
                 "--stats-file", str(self.stats), "--control-socket", str(self.socket), "--duration", "600"],
                stderr=log)
        if not wait_until(lambda: self.socket.exists() and self.frames() > 0, timeout=START_TIMEOUT):
            self.process.kill()
            pytest.fail(f"kiosk did not start: {self.log.read_text()}")

    def frames(self):
        if not self.stats.exists():
            return 0
        return sum(1 for line in self.stats.read_text().splitlines() if line.endswith("}"))

    def lines(self, word):
        return [line for line in self.log.read_text().splitlines() if word in line]

    def get(self, name):
        client = ControlClient(self.socket)
        try:
            return client.ok("get", name)
        finally:
            client.close()

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=20)


def section(port, name, extra="", scheme="mqtt", host="127.0.0.1"):
    return f"  broker: {scheme}://{host}:{port}\n  name: {name}\n{extra}"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A CA, the broker's certificate from it (for localhost and 127.0.0.1), and another CA."""
    directory = tmp_path_factory.mktemp("mqtt-tls")

    def openssl(*words):
        subprocess.run(["openssl", *words], check=True, capture_output=True, cwd=directory)

    for ca in ("ca", "other"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN=kiosk test {ca}",
                "-keyout", f"{ca}.key", "-out", f"{ca}.pem")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr")
    (directory / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-extfile", "san.ext", "-out", "server.pem")
    return {"ca": directory / "ca.pem", "cert": directory / "server.pem", "key": directory / "server.key",
            "other": directory / "other.pem"}


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    # Missing tools fail the test rather than skip it: deploy/setup installs them, and a skip
    # would pass a CI that lost them.
    for tool in (MOSQUITTO, "mosquitto_sub", "mosquitto_pub", "mosquitto_passwd", "openssl"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing: deploy/setup installs mosquitto, mosquitto-clients and openssl")
    path = tmp_path_factory.mktemp("mqtt-clips") / "clip.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"testsrc2=size=320x240:rate=25:duration={CLIP_SECONDS}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


@pytest.fixture
def running(tmp_path):
    """Brokers, subscribers and kiosks made by a test, all stopped after it."""
    made = []
    yield made
    for thing in reversed(made):
        if isinstance(thing, Kiosk):
            thing.stop()
        elif isinstance(thing, Subscriber):
            thing.close()
        elif isinstance(thing, Broker) and thing.process.poll() is None:
            thing.kill()
