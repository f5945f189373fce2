"""Overrides (#35) on a real `kiosk run` (headless 320x240, no sound): kiosk.conf's overrides
asked for and ended through the control socket, as MQTT and triggers ask through the same
command table. The highest priority is on screen and a lower one waits; while one is on the
user's moves are refused; when the last ends the item it cut comes back where it was; the
event lines say each change; what is on comes back after a restart (--state-dir). Text cards:
test_text_cards.py."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

from control_client import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screen_geometry import pixel  # noqa: E402
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
from override_run import Run, event, make_clip, newest_rows  # noqa: E402


@pytest.fixture()
def setup(tmp_path):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    loop = make_clip(tmp_path / "loop.mp4", 20)
    fire = make_clip(tmp_path / "fire.mp4", 2)
    promo = make_clip(tmp_path / "promo.mp4", 2)
    conf = tmp_path / "kiosk.conf"
    conf.write_text("display: {output: headless, headless_size: 320x240}\naudio: {device: none}\n"
                    "input: {enabled: false}\ncontrol: {socket: ctl.sock, time_interval: 0.5}\n"
                    f"items: [{loop}]\n"
                    "overrides:\n"
                    f"  fire: {{items: [{fire}], priority: 100}}\n"
                    f"  promo: {{items: [{promo}], priority: 1, duration: 3}}\n")
    state = tmp_path / "state"
    state.mkdir()
    return conf, state


def test_the_highest_override_has_the_screen_and_the_loop_comes_back_where_it_was(setup):
    conf, state = setup
    run = Run(conf, state)
    try:
        assert wait_until(lambda: run.title() == "loop.mp4" and run.client.ok("get", "time") >= 2.0, timeout=120)
        left_at = run.client.ok("get", "time")
        run.client.ok("override", "promo")
        event(run, "override_started", "promo")
        assert wait_until(lambda: run.title() == "promo.mp4", timeout=60)
        run.client.ok("override", "fire")
        ended = event(run, "override_ended", "promo")
        assert ended["reason"] == "replaced by override 'fire'"
        assert event(run, "override_started", "fire")["priority"] == 100
        assert wait_until(lambda: run.title() == "fire.mp4", timeout=60)
        # The screen is the override's: a user's move is refused, with the reason.
        reply = run.client.command("next")
        assert reply["error"] == "next: override 'fire' is on screen: next is not carried out", reply
        # fire loops (2 s clip) past promo's 3 s, which ran out while it waited.
        assert wait_until(lambda: run.title() == "fire.mp4" and run.client.ok("get", "time") < 1.0, timeout=60)
        assert run.client.command("override", "flood")["error"] == \
            "override: no override 'flood': kiosk.conf defines 'fire', 'promo'"
        run.client.ok("override_cancel", "fire")
        assert event(run, "override_ended", "fire")["reason"] == "cancelled"
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=60), "promo had expired: the loop comes back"
        assert run.client.ok("get", "time") >= left_at - 0.5, "where it was cut, not from its start"
        assert run.client.command("override_cancel")["error"] == "override_cancel: no override is on"
    finally:
        log = run.stop()
    assert "override 'fire' (priority 100) takes the screen until cancelled" in log
    assert (state / "overrides").read_text() == ""


def test_an_override_that_is_on_is_on_again_after_a_restart(setup):
    conf, state = setup
    run = Run(conf, state)
    try:
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=120)
        run.client.ok("override", "fire")
        assert wait_until(lambda: run.title() == "fire.mp4", timeout=60)
    finally:
        run.stop()
    assert (state / "overrides").read_text() == "fire\t-\tfire\n"
    again = Run(conf, state)
    try:
        assert wait_until(lambda: again.title() == "fire.mp4", timeout=120), "fire is on again"
        again.client.ok("override_cancel", "fire")
        assert wait_until(lambda: again.title() == "loop.mp4", timeout=60)
    finally:
        log = again.stop()
    assert "override 'fire' was on at the last stop: on again" in log


def cap_alert(identifier: str, status: str = "Actual", kind: str = "Alert", references: str = "") -> str:
    return f"""<alert xmlns="urn:oasis:names:tc:emergency:cap:1.2"><identifier>{identifier}</identifier>
<sender>bed@example</sender><sent>2026-11-26T10:00:00-00:00</sent><status>{status}</status><msgType>{kind}</msgType>
<scope>Public</scope>{f"<references>{references}</references>" if references else ""}<info><event>Fire</event>
<urgency>Immediate</urgency><severity>Extreme</severity><certainty>Observed</certainty><expires>2099-01-01T00:00:00+00:00</expires>
<headline>Fire in hall B</headline><instruction>Use the east exit</instruction><area><areaDesc>Berlin Mitte</areaDesc></area></info></alert>"""


def test_a_cap_alert_takes_the_screen_until_its_cancel(setup, tmp_path):
    """CAP on 127.0.0.1: an Atom feed served by http.server, polled every second; a Test alert
    is one line and not shown, an Actual one puts its override on, its Cancel takes it off."""
    import functools
    import http.server
    import threading
    conf, state = setup
    feed = tmp_path / "www" / "cap.atom"
    feed.parent.mkdir()

    def publish(*alerts: str) -> None:
        entries = "".join(f"<entry><content type='text/xml'>{a}</content></entry>" for a in alerts)
        (feed.parent / "next.atom").write_text(f"<feed xmlns='http://www.w3.org/2005/Atom'>{entries}</feed>")
        (feed.parent / "next.atom").rename(feed)

    publish(cap_alert("drill", status="Test"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(feed.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    conf.write_text(conf.read_text() + "alerts:\n  cap: {url: http://127.0.0.1:%d/cap.atom, interval: 1, areas: [Berlin],"
                    " override: fire}\n" % server.server_address[1])
    run = Run(conf, state)
    try:
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=120)
        key = "bed@example,fire1,2026-11-26T10:00:00-00:00"
        publish(cap_alert("drill", status="Test"), cap_alert("fire1"))
        assert event(run, "override_started", key)["priority"] == 100
        assert wait_until(lambda: run.title() == "fire.mp4", timeout=60)
        publish(cap_alert("fire1"), cap_alert("c1", kind="Cancel", references=key))
        assert event(run, "override_ended", key)["reason"] == "cancelled by bed@example,c1,2026-11-26T10:00:00-00:00"
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=60)
    finally:
        log = run.stop()
        server.shutdown()
    assert log.count("status Test, not shown") == 1, log
    assert "alerts: CAP alert bed@example,fire1,2026-11-26T10:00:00-00:00 (Extreme, Fire) on screen" in log


def test_a_cap_alert_pushed_with_kiosk_ctl_takes_the_screen_until_its_cancel(setup, tmp_path):
    """`kiosk ctl cap FILE` (the table's `cap XML`, a webhook's push): the file's alert is taken
    as a polled one would be (the feed itself is unreachable here), garbage is refused with the
    reason and changes nothing, and a pushed Cancel ends it."""
    conf, state = setup
    conf.write_text(conf.read_text() + "alerts:\n  cap: {url: 'http://127.0.0.1:9/cap.atom', interval: 3600, override: fire}\n")
    run = Run(conf, state)

    def ctl(path: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(KIOSK), "ctl", "--socket", str(run.socket), "cap", str(path)],
                              capture_output=True, text=True, timeout=120)
    try:
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=120)
        garbage = tmp_path / "garbage.xml"
        garbage.write_text("<html><body>503</body></html>")
        refused = ctl(garbage)
        assert refused.returncode == 1 and "cap: " in refused.stderr, refused
        key = "bed@example,pushed1,2026-11-26T10:00:00-00:00"
        alert = tmp_path / "alert.xml"
        alert.write_text(cap_alert("pushed1"))
        assert ctl(alert).returncode == 0
        assert event(run, "override_started", key)["priority"] == 100
        assert wait_until(lambda: run.title() == "fire.mp4", timeout=60)
        cancel = tmp_path / "cancel.xml"
        cancel.write_text(cap_alert("c2", kind="Cancel", references=key))
        assert ctl(cancel).returncode == 0
        assert event(run, "override_ended", key)["reason"] == "cancelled by bed@example,c2,2026-11-26T10:00:00-00:00"
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=60)
    finally:
        log = run.stop()
    assert "alerts: CAP alert bed@example,pushed1,2026-11-26T10:00:00-00:00 (Extreme, Fire) on screen" in log


def test_an_override_hides_the_layers_it_does_not_keep(tmp_path):
    """Two text layers over a gray still: `hello` (black box, bottom) and `exit` (white box, top),
    the override keeping `exit` (`layers: [exit]`). While the override's blue still is on, the
    bottom shows blue where hello's box was and exit's box stays; after override_cancel the
    gray loop comes back with both boxes. Read off the snapshot of every flip."""
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    for name, colour in (("gray", "0x808080"), ("blue", "0x0000ff")):
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c={colour}:s=160x120",
                        "-frames:v", "1", str(tmp_path / f"{name}.png")], check=True)
    conf, shots = tmp_path / "kiosk.conf", tmp_path / "shots"
    conf.write_text("display: {output: headless, headless_size: 320x240}\naudio: {device: none}\n"
                    "input: {enabled: false}\ncontrol: {socket: ctl.sock}\nplayback: {gravity: fill}\n"
                    "items: [{path: gray.png, duration: 60}]\n"
                    "layers:\n"
                    '  - text: {text: "HELLO", name: hello, size: 40px, color: "#ffffff", background: "#000000", position: bottom}\n'
                    '  - text: {text: "EXIT", name: exit, size: 40px, color: "#000000", background: "#ffffff", position: top}\n'
                    "overrides:\n  alarm: {items: [{path: blue.png, duration: 60}], layers: [exit]}\n")
    state = tmp_path / "state"
    state.mkdir()

    def screen():
        """(bottom box pixel, top box pixel) of the newest whole snapshot."""
        rows = newest_rows(shots)
        return None if rows is None else (pixel(rows, 160, 240 - 12), pixel(rows, 160, 8))

    def near(a, b):
        return a is not None and all(abs(x - y) <= 10 for x, y in zip(a, b))

    def showing(bottom, top):
        return lambda: (seen := screen()) is not None and near(seen[0], bottom) and near(seen[1], top)

    black, white, blue = (0, 0, 0), (255, 255, 255), (0, 0, 255)
    run = Run(conf, state, extra=["--snapshots", str(shots), "--snapshot-every", "0.001"])
    try:
        assert wait_until(showing(black, white), timeout=60), f"both boxes over the loop: {screen()}"
        run.client.ok("override", "alarm")
        assert wait_until(showing(blue, white), timeout=60), f"hello hidden, exit kept: {screen()}"
        run.client.ok("override_cancel")
        assert wait_until(showing(black, white), timeout=60), f"both back with the loop: {screen()}"
    finally:
        run.stop()


def tone(path: Path, frequency: int, seconds: float) -> Path:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"sine=frequency={frequency}:sample_rate=48000:duration={seconds}",
                    "-c:a", "pcm_s16le", str(path)], check=True)
    return path


def test_an_overrides_sound_is_heard_while_it_has_the_screen(tmp_path):
    """`sound` with `sound_loop` (#35): a 0.4 s 880 Hz tone over a text card, heard over and
    over while the card has the screen and never after; the loop's own 440 Hz sound before
    and after it. Recorded through `--audio file:` (paced like a sound card). An override
    whose sound file is missing still takes the screen, with one line naming the file."""
    import wave

    import numpy as np
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    loop = tmp_path / "loop.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=30",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(loop)], check=True)
    tone(tmp_path / "alarm.wav", 880, 0.4)
    conf = tmp_path / "kiosk.conf"
    conf.write_text("display: {output: headless, headless_size: 320x240}\naudio: {volume: 100}\n"
                    "input: {enabled: false}\ncontrol: {socket: ctl.sock}\n"
                    f"items: [{loop}]\n"
                    "overrides:\n"
                    '  alarm: {text: "Leave now", sound: alarm.wav, sound_loop: true, priority: 100}\n'
                    '  hush: {text: "Quiet", sound: missing.wav}\n')
    state = tmp_path / "state"
    state.mkdir()
    recording = tmp_path / "sound.wav"
    run = Run(conf, state, extra=["--audio", f"file:{recording}"])
    try:
        assert wait_until(lambda: run.title() == "loop.mp4" and run.client.ok("get", "time") >= 1.5, timeout=120)
        run.client.ok("override", "alarm")
        event(run, "override_started", "alarm")
        assert wait_until(lambda: run.title() == "text:Leave now", timeout=60)
        time.sleep(2.0)
        run.client.ok("override_cancel", "alarm")
        event(run, "override_ended", "alarm")
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=60)
        time.sleep(2.5)
        run.client.ok("override", "hush")
        assert wait_until(lambda: run.title() == "text:Quiet", timeout=60), "a missing sound does not keep the card away"
        run.client.ok("override_cancel", "hush")
        assert wait_until(lambda: run.title() == "loop.mp4", timeout=60)
    finally:
        log = run.stop()
    assert log.count("sound cue: ") == 1 and str(tmp_path / "missing.wav") in log and "; not heard" in log, log[-3000:]
    with wave.open(str(recording)) as w:
        assert w.getframerate() == 48000 and w.getsampwidth() == 2
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).reshape(-1, w.getnchannels())[:, 0]
    window = 480   # 10 ms
    count = len(samples) // window
    blocks = samples[:count * window].reshape(count, window).astype(np.float64) / 32768 * np.hanning(window)
    n = np.arange(window)
    level = {f: np.abs(blocks @ np.exp(-2j * np.pi * f * n / 48000)) for f in (440, 880)}
    # ffmpeg's sine is 1/8 full scale: a whole 10 ms window of it reads 15 here (Hann's 0.5 x 240).
    alarm = [i for i in range(count) if level[880][i] > 3]
    item = [i for i in range(count) if level[440][i] > 3]
    assert alarm and item, f"both tones recorded: {len(alarm)} and {len(item)} windows of {count}; {log[-2000:]}"
    first, last = alarm[0], alarm[-1]
    heard = (last - first) / 100
    inner = range(first + (last - first) // 10, last - (last - first) // 10)
    under = [i for i in inner if i in set(item)]
    seen = (f"{count} windows: alarm {first}..{last} ({len(alarm)} windows), the loop's sound {len(item)} windows "
            f"({sum(1 for i in item if i < first)} before, {sum(1 for i in item if i > last)} after, {len(under)} under "
            f"the card); log: {log[-2000:]}")
    # On for about 2 s (the card's first frame to the cancel): the 0.4 s file looped, not once.
    assert 1.2 <= heard <= 4.0, f"the alarm heard for {heard:.2f} s: {seen}"
    assert len(alarm) >= 0.8 * (last - first), f"the alarm runs on, looped: {seen}"
    assert any(i < first for i in item) and sum(1 for i in item if i > last) >= 50, \
        f"the loop's sound before the alarm and back after it: {seen}"
    # None of the loop's sound under the card: the switch's flush and the feeder's new order are
    # one step (AudioPath), so a chunk the feeder took before it is refused, not heard in the card.
    assert not under, f"the card has no sound of its own: only the alarm under it: {seen}"
