"""Metrics for a fleet's monitoring (issue 37): a headless `kiosk run` with `metrics.textfile`
writes node_exporter's textfile, which Prometheus' own parsers accept (`promtool check metrics`,
Debian's prometheus package; prometheus_client's parser, Debian's python3-prometheus-client,
run with Debian's python3), and whose figures follow what the player does: frames counted while
it plays, the failed item counted, the last picture's time, the state when paused. The alert
rules shipped in deploy/prometheus are checked and unit-tested by promtool.

Every wait is for a change of the file, with a deadline meant for a hang."""
import json
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from control_client import ControlClient, wait_until
from test_resume import KIOSK, Run, make_clip

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "deploy" / "prometheus"
# Deadline for a hang, not a speed.
TIMEOUT = 60
# Debian's interpreter, where python3-prometheus-client is installed (deploy/packages.txt);
# the suite's own python3 may be another.
DEBIAN_PYTHON = "/usr/bin/python3"

PARSE = """
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        key = sample.name + json.dumps(dict(sorted(sample.labels.items())), sort_keys=True) if sample.labels else sample.name
        out[key] = {"type": family.type, "value": sample.value}
print(json.dumps(out))
"""


def require_tools():
    missing = [tool for tool in ("promtool", DEBIAN_PYTHON) if not shutil.which(tool)]
    if missing:
        pytest.fail(f"{missing} missing: run deploy/setup (prometheus, python3-prometheus-client)")


def parsed(text: str) -> dict:
    """The samples as prometheus_client reads them: name (with its labels as JSON) -> type, value."""
    result = subprocess.run([DEBIAN_PYTHON, "-c", PARSE], input=text, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def promtool_accepts(text: str) -> None:
    result = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"promtool: {result.stdout}{result.stderr}\n{text}"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    require_tools()
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    directory = tmp_path_factory.mktemp("metrics")
    clip = make_clip(directory / "clip.mp4")
    broken = directory / "broken.mp4"
    broken.write_bytes(b"not a video at all " * 100)
    state = directory / "state"
    state.mkdir()
    textfile = directory / "textfile" / "kiosk.prom"
    textfile.parent.mkdir()
    config = directory / "kiosk.conf"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config.write_text("display: {output: headless}\naudio: {device: none}\ninput: {enabled: false}\n"
                      f"metrics: {{textfile: {textfile}, interval: 1, listen: '127.0.0.1:{port}'}}\n"
                      f"items: [{clip}, {broken}]\n")
    kiosk = Run(directory, config, state, "metrics")
    kiosk.metrics_url = f"http://127.0.0.1:{port}/metrics"
    yield kiosk, textfile
    if kiosk.process.poll() is None:
        kiosk.process.kill()
        kiosk.process.wait()


def read(textfile: Path) -> dict:
    return parsed(textfile.read_text()) if textfile.exists() else {}


def test_the_textfile_follows_playback_and_prometheus_reads_it(run):
    kiosk, textfile = run
    # Past the broken item once: the clip played, the broken file counted as failed.
    assert wait_until(lambda: read(textfile).get("kiosk_items_failed_total", {}).get("value", 0) >= 1, timeout=TIMEOUT), \
        kiosk.log.read_text()
    first = read(textfile)
    assert wait_until(lambda: read(textfile)["kiosk_frames_presented_total"]["value"]
                      > first["kiosk_frames_presented_total"]["value"], timeout=TIMEOUT)
    # A write made while the clip plays (at a seam the player waits a moment, between items
    # there is no index): the next that says playing.
    def playing_sample():
        text = textfile.read_text()
        sample = parsed(text)
        return (text, sample) if sample.get('kiosk_state{"state": "playing"}', {}).get("value") == 1 else None
    playing = wait_until(playing_sample, timeout=TIMEOUT)
    assert playing, textfile.read_text()
    text, samples = playing
    promtool_accepts(text)
    assert samples["kiosk_frames_presented_total"]["type"] == "counter"
    assert samples['kiosk_state{"state": "playing"}']["value"] == 1
    assert samples['kiosk_state{"state": "paused"}']["value"] == 0
    assert samples["kiosk_items_started_total"]["value"] >= 1
    assert samples["kiosk_playlist_items"]["value"] == 2
    assert samples.get("kiosk_item_index", {"value": 0})["value"] in (0, 1)
    assert samples['kiosk_build_info{"version": "0.1.0"}']["value"] == 1
    assert samples["kiosk_running"]["value"] == 1
    # Playing: overdue by at most a few frames' time, not growing (the deadline is for a hang).
    assert samples["kiosk_picture_overdue_seconds"]["value"] < 5
    # The last picture is a moment ago (Unix time; the deadline is for a hang, not a speed).
    assert abs(time.time() - samples["kiosk_last_frame_timestamp_seconds"]["value"]) < TIMEOUT
    assert abs(time.time() - samples["kiosk_start_time_seconds"]["value"]) < 600
    assert not list(textfile.parent.glob("*.tmp")), "only whole files in the collector's directory"


def fetch(url: str, method: str = "GET"):
    """(status, content type, body) of one request."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=TIMEOUT) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def test_a_scraper_reads_the_same_health_from_the_listener(run):
    kiosk, textfile = run
    status, kind, body = fetch(kiosk.metrics_url)
    assert status == 200 and kind == "text/plain; version=0.0.4; charset=utf-8", (status, kind)
    promtool_accepts(body)
    scraped = parsed(body)
    assert scraped["kiosk_frames_presented_total"]["value"] > 0
    # The same figures (the item index is absent for a moment between two items).
    assert set(scraped) - {"kiosk_item_index"} == set(read(textfile)) - {"kiosk_item_index"}
    assert fetch(kiosk.metrics_url.replace("/metrics", "/"))[0] == 404
    assert fetch(kiosk.metrics_url, method="POST")[0] == 405


def test_a_pause_is_said_and_the_last_figures_are_written_at_a_clean_stop(run):
    kiosk, textfile = run
    client = ControlClient(kiosk.socket, timeout=TIMEOUT)
    try:
        assert client.ok("pause") is None
    finally:
        client.close()
    assert wait_until(lambda: read(textfile).get('kiosk_state{"state": "paused"}', {}).get("value") == 1, timeout=TIMEOUT)
    paused = read(textfile)
    assert paused['kiosk_state{"state": "playing"}']["value"] == 0
    assert kiosk.stop(signal.SIGTERM) == 0, kiosk.log.read_text()
    final = read(textfile)
    promtool_accepts(textfile.read_text())
    assert final["kiosk_frames_presented_total"]["value"] >= paused["kiosk_frames_presented_total"]["value"]
    # A clean stop leaves a file that says so, in no state (no rule takes it for a frozen screen).
    assert final["kiosk_running"]["value"] == 0
    assert all(final[f'kiosk_state{{"state": "{state}"}}']["value"] == 0
               for state in ("playing", "paused", "waitingToPlayAtSpecifiedRate"))


def test_the_shipped_alert_rules_fire_on_a_frozen_screen_and_not_on_a_paused_one():
    require_tools()
    check = subprocess.run(["promtool", "check", "rules", "kiosk-alerts.yml"], cwd=RULES,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    test = subprocess.run(["promtool", "test", "rules", "kiosk-alerts.test.yml"], cwd=RULES,
                          capture_output=True, text=True, timeout=60)
    assert test.returncode == 0, test.stdout + test.stderr
    assert "SUCCESS" in test.stdout
