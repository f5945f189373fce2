#!/usr/bin/env python3
"""A fleet on one broker (issue 37): N headless `kiosk run`s (tiny clips, `--audio none`), each
its own MQTT name, all in one group, against one mosquitto on 127.0.0.1. Measured, one run:

- a group `pause` (one message on kiosk/group/<group>/cmd): for each kiosk the time from the
  publish to its `time_control_status` paused event as a subscriber receives it (mosquitto_sub's
  %U timestamps), then p50/p99/max over the fleet; the same for the `play` that follows;
- the broker's CPU seconds over the run, and the broker's RSS;
- each kiosk's RSS, and what MQTT adds to it (kiosks without `mqtt:` beside them, same clip);
- the broker killed and started again on the same port: how long until every kiosk's retained
  status is online again, and whether any kiosk's picture stopped meanwhile (the longest gap
  between two presented frames in its stats file around the outage).

Usage: Benchmarks/fleet.py [--kiosks 50] [--bare 3] [--outage 3]. Python 3 standard library, the
mosquitto and mosquitto-clients packages, ffmpeg, and a debug or release build of kiosk."""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
TICKS = os.sysconf("SC_CLK_TCK")


def kiosk_binary() -> Path:
    for build in ("release", "debug"):
        path = REPO / ".build" / build / "kiosk"
        if path.exists():
            return path
    sys.exit("fleet.py: build kiosk first (swift build)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait(predicate, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Broker:
    def __init__(self, directory: Path, port: int):
        self.port = port
        self.conf = directory / "mosquitto.conf"
        self.conf.write_text(f"listener {port} 127.0.0.1\npersistence false\nallow_anonymous true\n"
                             f"max_queued_messages 10000\nuser {os.environ.get('USER', 'root')}\n")
        self.log = directory / "mosquitto.log"
        self.process = None
        self.start()

    def start(self):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=log)
        if not wait(self.accepts, 30):
            sys.exit(f"mosquitto did not start: {self.log.read_text()}")

    def accepts(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def kill(self):
        self.process.kill()
        self.process.wait()


class Watcher:
    """mosquitto_sub on a filter, each line `unix-time topic payload`."""

    def __init__(self, broker: Broker, topic: str, out: Path):
        self.out = out
        self.file = open(out, "w")
        self.process = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", topic,
                                         "-q", "1", "-F", "%U %t %p"], stdout=self.file, stderr=subprocess.STDOUT)

    def lines(self):
        found = []
        for line in self.out.read_text().splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3:
                try:
                    found.append((float(parts[0]), parts[1], parts[2]))
                except ValueError:
                    pass
        return found

    def close(self):
        self.process.terminate()
        self.process.wait()
        self.file.close()


def start_kiosk(binary: Path, directory: Path, clip: Path, name: str, port: int, mqtt: bool):
    config = directory / f"{name}.conf"
    section = f"mqtt:\n  broker: mqtt://127.0.0.1:{port}\n  name: {name}\n  group: [fleet]\n  qos: 1\n" if mqtt else ""
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"control: {{socket: none}}\n{section}items: [{clip}]\n")
    stats = directory / f"{name}.jsonl"
    log = open(directory / f"{name}.log", "w")
    process = subprocess.Popen([str(binary), "run", "--config", str(config), "--display", "headless:64x36@10",
                                "--audio", "none", "--state-dir", str(directory), "--stats-file", str(stats),
                                "--duration", "3600"], stderr=log)
    return {"name": name, "process": process, "stats": stats, "log": log}


def flips(stats: Path):
    times = []
    for line in stats.read_text().splitlines():
        if line.endswith("}"):
            record = json.loads(line)
            times.append(record["rt"])   # the flip's wall-clock time (Unix)
    return times


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def group_command(broker: Broker, watcher: Watcher, names, words, state):
    """Seconds from publishing `words` to the group until each kiosk's event saying `state`."""
    before = len(watcher.lines())
    sent = time.time()
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "kiosk/group/fleet/cmd", "-q", "1",
                    "-m", json.dumps({"command": words})], check=True)

    def arrivals():
        seen = {}
        for stamp, topic, payload in watcher.lines()[before:]:
            name = topic.split("/")[1]
            if name in names and name not in seen and f'"time_control_status"' in payload and f'"{state}"' in payload:
                seen[name] = stamp - sent
        return seen if len(seen) == len(names) else None

    seen = wait(arrivals, 60) or {}
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiosks", type=int, default=50)
    parser.add_argument("--bare", type=int, default=3, help="kiosks without mqtt, for the RSS MQTT adds")
    parser.add_argument("--outage", type=float, default=3.0, help="seconds the broker stays dead")
    args = parser.parse_args()
    binary = kiosk_binary()
    directory = Path(tempfile.mkdtemp(prefix="kiosk-fleet-"))
    clip = directory / "clip.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x36:rate=10:duration=10",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(clip)], check=True)
    broker = Broker(directory, free_port())
    events = Watcher(broker, "kiosk/+/event", directory / "events.txt")
    statuses = Watcher(broker, "kiosk/+/status", directory / "statuses.txt")
    names = [f"k{i:03d}" for i in range(args.kiosks)]
    cpu_start = cpu_seconds(broker.process.pid)
    wall_start = time.monotonic()
    kiosks = [start_kiosk(binary, directory, clip, name, broker.port, True) for name in names]
    bare = [start_kiosk(binary, directory, clip, f"bare{i}", broker.port, False) for i in range(args.bare)]
    everyone = kiosks + bare

    def all_online():
        online = {topic.split("/")[1] for _, topic, payload in statuses.lines() if '"online":true' in payload}
        return set(names) <= online

    try:
        if not wait(all_online, 300, 0.5):
            sys.exit(f"not every kiosk came online: see {directory}")
        if not wait(lambda: all(k["stats"].exists() and len(flips(k["stats"])) > 20 for k in everyone), 300, 0.5):
            sys.exit(f"not every kiosk plays: see {directory}")
        time.sleep(5)   # settled: every connection made, every status sent
        pause = group_command(broker, events, set(names), ["pause"], "paused")
        time.sleep(2)
        play = group_command(broker, events, set(names), ["play"], "playing")
        mqtt_rss = [rss_mib(k["process"].pid) for k in kiosks]
        bare_rss = [rss_mib(k["process"].pid) for k in bare]

        # The broker's CPU from its start to here: the fleet connecting, statuses, two group commands.
        broker_cpu = cpu_seconds(broker.process.pid) - cpu_start
        broker_rss = rss_mib(broker.process.pid)
        # The broker dies and comes back; every kiosk reconnects and sends its status.
        statuses.close()
        killed = time.time()
        broker.kill()
        time.sleep(args.outage)
        broker.start()
        returned = time.time()
        statuses = Watcher(broker, "kiosk/+/status", directory / "statuses-after.txt")
        back = wait(all_online, 120, 0.1)
        back_after = max((stamp for stamp, topic, payload in statuses.lines() if '"online":true' in payload),
                         default=float("nan")) - returned if back else float("nan")
        time.sleep(2)
        gaps = []
        for k in kiosks:
            times = [t for t in flips(k["stats"]) if killed - 2 <= t <= returned + 5]
            gaps.append(max((b - a for a, b in zip(times, times[1:])), default=float("inf")))
        reconnect_cpu = cpu_seconds(broker.process.pid)
    finally:
        for k in everyone:
            if k["process"].poll() is None:
                k["process"].send_signal(signal.SIGTERM)
        for k in everyone:
            try:
                k["process"].wait(timeout=30)
            except subprocess.TimeoutExpired:
                k["process"].kill()
        events.close()
        statuses.close()
        broker.kill()

    wall = time.monotonic() - wall_start
    def line(label, seen):
        values = list(seen.values())
        if len(values) < len(names):
            return f"{label}: only {len(values)} of {len(names)} kiosks answered"
        return (f"{label}: p50 {statistics.median(values) * 1000:.0f} ms, p99 {percentile(values, 0.99) * 1000:.0f} ms, "
                f"max {max(values) * 1000:.0f} ms over {len(values)} kiosks")
    print(f"fleet: {args.kiosks} kiosks with mqtt + {args.bare} without, one mosquitto, {os.cpu_count()} cores, "
          f"{wall:.0f} s")
    print(line("group pause -> paused event", pause))
    print(line("group play -> playing event", play))
    print(f"kiosk RSS: median {statistics.median(mqtt_rss):.1f} MiB with mqtt, {statistics.median(bare_rss):.1f} MiB "
          f"without: MQTT adds {statistics.median(mqtt_rss) - statistics.median(bare_rss):.1f} MiB")
    print(f"broker: {broker_cpu:.2f} CPU s from its start to the outage ({args.kiosks} connections, statuses every 10 s, "
          f"two group commands), {reconnect_cpu:.2f} CPU s taking them all back; RSS {broker_rss:.1f} MiB")
    print(f"broker killed for {args.outage:.0f} s: every status online again {back_after:.2f} s after its return"
          if back else "broker killed: not every kiosk came back within 120 s")
    print(f"longest gap between presented frames around the outage: {max(gaps) * 1000:.0f} ms "
          f"(the clip is 10 fps: 100 ms is none lost)")
    print(f"files: {directory}")


if __name__ == "__main__":
    main()
