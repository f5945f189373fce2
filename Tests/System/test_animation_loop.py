"""An animated picture given a `duration` (AnimationLoop) loops until then, as a browser loops
it and as the stills beside it stay: before, `duration` was a live stream's only, and a 1.4 s
GIF given 30 s in a slideshow flashed by in 1.4 s. Headless on the host, from kiosk.conf:

- a GIF of 10 frames 100 ms apart and a 500 ms final delay (a 1.4 s pass), `duration: 3.2`:
  two passes and a cut third, each frame's time running on across the passes (steps of 0.1 s
  and the 0.5 s hold, no step back), the item 3.2 s long;
- an animated WebP of 10 frames (a 1 s pass), `duration: 2.5`: 25 frames;
- the same GIF without `duration`: one pass, as before; named without an extension (known as
  an animation by its bytes), given 2 s: two passes;
- a seek into the third pass of a looping GIF shows that pass's frame (`get duration` says the
  item's 6 s)."""
import json
import subprocess
import time
from pathlib import Path

import pytest
from control_client import ControlClient, wait_until

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    directory = tmp_path_factory.mktemp("animation-loop")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-final_delay", "50", directory / "sale.gif")
    (directory / "promo_download").write_bytes((directory / "sale.gif").read_bytes())   # a CMS's name: no extension
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libwebp_anim", "-loop", "0",
           directory / "sale.webp")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", directory / "next.mp4")
    return directory


def run(tmp_path, items, seconds, extra=()):
    conf = tmp_path / "kiosk.conf"
    conf.write_text("items:\n" + "".join(f"  - {item}\n" for item in items) + "playback:\n  loop: none\n")
    stats = tmp_path / "stats.jsonl"
    process = subprocess.Popen([str(KIOSK), "run", "--config", str(conf), "--display", "headless:160x120", "--audio", "none",
                                "--stats-file", str(stats), "--duration", str(seconds), "--state-dir", str(tmp_path / "state"),
                                *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, stats


def records(stats: Path):
    return [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")] if stats.exists() else []


# The GIF's frames on the item's timeline, looped: passes at 0, 1.4 and 2.8 s (frames 0.0-0.9
# each, its last held 0.5 s), cut at 3.2 s.
GIF_PASS = [round(n * 0.1, 1) for n in range(10)]
PASS_STARTS = [round(n * 1.4, 1) for n in range(9)]   # to 11.2 s
GIF_TIMES = {round(offset + t, 1) for offset in PASS_STARTS for t in GIF_PASS}


def check_frames(times, expected, label):
    """Shown in order, each one of the file's frames in its pass; at most a few left out (a
    loaded machine drops a late frame)."""
    assert all(b > a for a, b in zip(times, times[1:])), f"{label}: a frame's time stepped back: {times}"
    assert set(times) <= expected, f"{label}: frames at times no pass has: {sorted(set(times) - expected)}"


def test_an_animation_given_a_duration_loops_for_it(tmp_path, media):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    items = [f"{{path: {media / 'sale.gif'}, duration: 3.2}}", media / "next.mp4",
             f"{{path: {media / 'sale.webp'}, duration: 2.5}}", media / "next.mp4", media / "sale.gif", media / "next.mp4",
             f"{{path: {media / 'promo_download'}, duration: 2.0}}", media / "next.mp4"]
    process, stats = run(tmp_path, items, 30)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    lines = records(stats)
    starts = {}
    for record in lines:
        starts.setdefault(record["item"], record["t"])
    assert sorted(starts) == list(range(8)), f"items shown: {sorted(starts)}\n{stderr}"
    gif = [round(r["pts"], 3) for r in lines if r["item"] == 0]
    check_frames(gif, {t for t in GIF_TIMES if t < 3.2}, "the looped GIF")
    # Two whole passes and the third's first 0.4 s: 24 frames (most of them, on a busy box).
    assert len(gif) >= 18 and gif[0] == 0.0 and max(gif) >= 2.9, f"three passes in 3.2 s: {gif}"
    assert 3.0 <= starts[1] - starts[0] <= 3.8, f"the looped GIF was up {starts[1] - starts[0]:.2f} s, not 3.2"
    webp = [round(r["pts"], 3) for r in lines if r["item"] == 2]
    check_frames(webp, {round(n * 0.1, 1) for n in range(25)}, "the looped WebP")
    assert len(webp) >= 19 and max(webp) >= 2.2, f"the looped WebP showed {webp}"
    assert 2.3 <= starts[3] - starts[2] <= 3.1, f"the looped WebP was up {starts[3] - starts[2]:.2f} s, not 2.5"
    once = [round(r["pts"], 3) for r in lines if r["item"] == 4]
    check_frames(once, set(GIF_PASS), "the GIF without a duration")
    assert 1.2 <= starts[5] - starts[4] <= 2.0, f"the GIF without a duration was up {starts[5] - starts[4]:.2f} s, not 1.4"
    # An animated GIF known by its bytes, not its name, loops too: a second pass from 1.4 s.
    named_by_a_cms = [round(r["pts"], 3) for r in lines if r["item"] == 6]
    check_frames(named_by_a_cms, {t for t in GIF_TIMES if t < 2.0}, "the GIF without an extension")
    assert max(named_by_a_cms) >= 1.5, f"the GIF without an extension played once: {named_by_a_cms}"
    assert "stalled" not in stderr and "skipping item" not in stderr, stderr


def shown_since(stats, moment):
    return [round(r["pts"], 3) for r in records(stats) if r["item"] == 0 and r["t"] > moment]


def seek_paused(client, seconds):
    """Pauses, seeks, then plays: the moment (the stats' clock, CLOCK_MONOTONIC) after which
    every frame shown is the seek's."""
    client.asked("pause")
    assert wait_until(lambda: client.ok("get", "time_control_status") == "paused", timeout=30), "never paused"
    moment = time.clock_gettime(time.CLOCK_MONOTONIC)
    client.ok("seek", seconds)
    client.ok("play")
    return moment


def test_a_seek_into_a_looping_animation_lands_in_its_pass(tmp_path, media):
    """Forward into the third pass, then back into the first: each lands on its frame, and the
    passes after the seek back still come in turn to the item's end (before, the pass length
    was taken from the furthest time read ahead, and a seek back skipped passes)."""
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    socket_path = tmp_path / "control.sock"
    process, stats = run(tmp_path, [f"{{path: {media / 'sale.gif'}, duration: 12}}", media / "next.mp4"], 90,
                         ["--control-socket", str(socket_path)])
    try:
        assert wait_until(socket_path.exists, timeout=30), "no control socket"
        client = ControlClient(socket_path, timeout=30)
        assert wait_until(lambda: any(r["item"] == 0 for r in records(stats)), timeout=30), "the GIF never showed"
        assert abs(client.ok("get", "duration") - 12.0) < 0.01
        forward = seek_paused(client, 3.0)   # the third pass (2.8 s on), 0.2 s into the file
        assert wait_until(lambda: any(t >= 3.2 for t in shown_since(stats, forward)), timeout=30), shown_since(stats, forward)
        after_forward = [t for t in shown_since(stats, forward) if t >= 2.95]
        back = seek_paused(client, 0.5)
        assert client.ok("get", "item") == 0, "the GIF had ended before the seek back"
        assert wait_until(lambda: any(r["item"] == 1 for r in records(stats)), timeout=60), "the item never ended"
    finally:
        process.kill()
        process.wait()
    assert after_forward[0] == 3.0, f"after the seek to 3.0 s: {after_forward}"
    check_frames(after_forward[:3], GIF_TIMES, "after the seek forward")
    after_back = [t for t in shown_since(stats, back) if t >= 0.45]
    assert after_back[0] == 0.5, f"after the seek back to 0.5 s: {after_back}"
    check_frames(after_back, {t for t in GIF_TIMES if t < 12.0}, "after the seek back")
    # Every later pass came: its first frames (1.4, 2.8 ... 11.2 s) shown, bar a dropped one.
    firsts = [t for t in PASS_STARTS[1:] if any(abs(s - t) < 0.25 for s in after_back)]
    assert firsts == PASS_STARTS[1:] and max(after_back) >= 11.8, f"the passes after the seek back: {after_back}"


def test_an_animation_plays_no_more_times_than_its_file_says_then_holds(tmp_path, media):
    """A GIF made to play once (no Netscape block: ffmpeg -loop -1) and one made to play twice
    (-loop 1: one repeat), each given 4.5 s: one and two passes, then the last frame holds and
    the next item starts at 4.5 s, as a browser shows them; an APNG of -plays 2 likewise."""
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-final_delay", "50", "-loop", "-1", tmp_path / "once.gif")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-final_delay", "50", "-loop", "1", tmp_path / "twice.gif")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1", "-plays", "2", "-f", "apng", tmp_path / "twice.apng")
    for name, passes, pass_length in (("once.gif", 1, 1.4), ("twice.gif", 2, 1.4), ("twice.apng", 2, 1.0)):
        run_dir = tmp_path / name.replace(".", "-")
        run_dir.mkdir()
        process, stats = run(run_dir, [f"{{path: {tmp_path / name}, duration: 4.5}}", str(media / "next.mp4")], 8)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-2000:]
        shown = [r for r in records(stats) if r.get("video")]
        first = [r for r in shown if r.get("item") == 0]
        second = [r for r in shown if r.get("item") == 1]
        assert first and second, (name, err[-2000:])
        assert len(first) == 10 * passes, (name, [r["pts"] for r in first])
        assert abs(first[-1]["pts"] - (pass_length * (passes - 1) + 0.9)) < 0.01, (name, first[-1]["pts"])
        held = second[0]["t"] - first[0]["t"]
        assert 4.3 < held < 4.8, f"{name}: the next item came {held:.2f} s after the first frame, not at 4.5 s"
