"""An animated picture given a `duration` (AnimationLoop) loops until then, as a browser loops
it and as the stills beside it stay: before, `duration` was a live stream's only, and a 1.4 s
GIF given 30 s in a slideshow flashed by in 1.4 s. Headless on the host, from kiosk.conf:

- a GIF of 10 frames 100 ms apart and a 500 ms final delay (a 1.4 s pass), `duration: 3.2`:
  two passes and a cut third, each frame's time running on across the passes (steps of 0.1 s
  and the 0.5 s hold, no step back), the item 3.2 s long;
- an animated WebP of 10 frames (a 1 s pass), `duration: 2.5`: 25 frames;
- the same GIF without `duration`: one pass, as before;
- a seek into the third pass of a looping GIF shows that pass's frame (`get duration` says the
  item's 6 s)."""
import json
import subprocess
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


def test_an_animation_given_a_duration_loops_for_it(tmp_path, media):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    items = [f"{{path: {media / 'sale.gif'}, duration: 3.2}}", media / "next.mp4",
             f"{{path: {media / 'sale.webp'}, duration: 2.5}}", media / "next.mp4", media / "sale.gif", media / "next.mp4"]
    process, stats = run(tmp_path, items, 30)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    lines = records(stats)
    starts = {}
    for record in lines:
        starts.setdefault(record["item"], record["t"])
    assert sorted(starts) == [0, 1, 2, 3, 4, 5], f"items shown: {sorted(starts)}\n{stderr}"
    gif = [round(r["pts"], 3) for r in lines if r["item"] == 0]
    steps = [round(b - a, 3) for a, b in zip(gif, gif[1:])]
    # Passes at 0, 1.4 and 2.8 s: frames 0.0-0.9, 1.4-2.3, 2.8-3.1, each 0.1 s on, the last of a
    # pass held its 0.5 s before the next pass's first.
    assert gif[0] == 0.0 and gif[-1] == 3.1, gif
    assert set(steps) <= {0.1, 0.2, 0.5, 0.6}, f"the frames' times stepped back or jumped: {gif}"
    assert steps.count(0.5) + steps.count(0.6) == 2, f"not two whole passes then a third: {gif}"
    assert len(gif) >= 20, f"{len(gif)} frames in three passes of 10: {gif}"
    assert 3.0 <= starts[1] - starts[0] <= 3.6, f"the looped GIF was up {starts[1] - starts[0]:.2f} s, not 3.2"
    webp = [round(r["pts"], 3) for r in lines if r["item"] == 2]
    assert webp[-1] == 2.4 and len(webp) >= 22, f"the looped WebP showed {webp}"
    assert 2.3 <= starts[3] - starts[2] <= 2.9, f"the looped WebP was up {starts[3] - starts[2]:.2f} s, not 2.5"
    once = [round(r["pts"], 3) for r in lines if r["item"] == 4]
    assert once[-1] == 0.9 and 1.2 <= starts[5] - starts[4] <= 1.8, f"the GIF without a duration: {once}"
    assert "stalled" not in stderr and "error" not in stderr.lower(), stderr


def test_a_seek_into_a_looping_animation_lands_in_its_pass(tmp_path, media):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    socket_path = tmp_path / "control.sock"
    process, stats = run(tmp_path, [f"{{path: {media / 'sale.gif'}, duration: 6}}", media / "next.mp4"], 60,
                         ["--control-socket", str(socket_path)])
    try:
        assert wait_until(socket_path.exists, timeout=30), "no control socket"
        client = ControlClient(socket_path, timeout=30)
        assert wait_until(lambda: any(r["item"] == 0 for r in records(stats)), timeout=30), "the GIF never showed"
        assert abs(client.ok("get", "duration") - 6.0) < 0.01
        client.ok("pause")
        client.ok("seek", 3.0)   # the third pass (2.8 s on) at 0.2 s of the file
        client.ok("play")
        assert wait_until(lambda: any(r["item"] == 0 and r["t"] > 0 and r["pts"] >= 3.2 for r in records(stats)), timeout=30)
    finally:
        process.kill()
        process.wait()
    after = [round(r["pts"], 3) for r in records(stats) if r["item"] == 0 and r["pts"] >= 2.95]
    assert after[:3] == [3.0, 3.1, 3.2], f"after the seek to 3.0 s: {after}"
