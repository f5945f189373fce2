"""Transitions at seams (issue 22, kiosk.conf `playback.transition` and an item's own), on the
host, headless on a 60 Hz vblank grid, each `kiosk run` stopped once its stats file shows the
last item well under way (no fixed run length: a slow machine only takes longer):

- a 1 s crossfade from a red clip (440 Hz) to a blue one (880 Hz): a flip at every refresh
  through it, its weight (stats `"mix"`) rising with the flips' times, every snapshot's pixel the
  mix of red and blue at that weight to the nearest 1/255 (none darker than both), the blue
  clip's tone rising from silence over the second while the red one's played to its end;
- a fade via black from the red clip into a still and from the still into the blue clip: the
  brightness (`"level"`) falling over the clip's last half second and rising over the still's
  first, with refreshes on the still (no new frame comes), each snapshot the source at that
  level; the red tone falling to silence, the blue one rising from it;
- a clip that follows itself keeps the cut (no look at all), and a next item whose first frame
  comes late (a slow HTTP server) cuts as before;
- a 4 s fade out of an 8 s clip is decided in time (the next item opens early enough for it).

What the screen showed comes from `--snapshots` taken at every flip, one per stats line."""
import math
import struct
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated_media import ffmpeg  # noqa: E402
from screen_geometry import pixel, rgb_rows  # noqa: E402
from kiosk_until import run_until  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
HERE = Path(__file__).resolve().parent
REFRESH = 1 / 60
SCREEN = (160, 90)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run `swift build` first")
    directory = tmp_path_factory.mktemp("transitions")
    for name, colour, tone in (("red", "red", 440), ("blue", "blue", 880)):
        ffmpeg("-f", "lavfi", "-i", f"color=c={colour}:s=160x90:r=25:d=2", "-f", "lavfi",
               "-i", f"sine=f={tone}:d=2:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
               "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest", str(directory / f"{name}.mp4"))
    ffmpeg("-f", "lavfi", "-i", "color=c=green:s=160x90", "-frames:v", "1", str(directory / "green.png"))
    return directory


def run(directory, config, done, name, snapshots=True, timeout=180, sound=True):
    """Runs kiosk on `config` until `done(records)` holds for the stats so far; its records,
    snapshots (one per stats line), recorded sound (a WAV, when `sound`) and log."""
    conf, stats, shots, wav = (directory / f"{name}.conf", directory / f"{name}.jsonl",
                               directory / f"{name}-shots", directory / f"{name}.wav")
    conf.write_text(config)
    command = [str(KIOSK), "run", "--config", str(conf), "--display", f"headless:{SCREEN[0]}x{SCREEN[1]}@60:vblank",
               "--audio", f"file:{wav}" if sound else "none", "--stats-file", str(stats)]
    if snapshots:
        command += ["--snapshots", str(shots), "--snapshot-every", "0.0001"]
    code, records, log = run_until(command, stats, lambda records, _: done(records), directory / f"{name}.log", timeout)
    assert code == 0, log
    return records, sorted(shots.glob("shot-*.png")) if snapshots else [], wav, log


def centre(shot):
    _, _, rows = rgb_rows(shot)
    x, y = SCREEN[0] // 2, SCREEN[1] // 2
    return tuple(rows[y][3 * x:3 * x + 3])


WINDOW = 0.05   # 22 and 44 whole periods of the two tones: neither leaks into the other's bin


def tone_levels(path, frequency, window=WINDOW):
    """The amplitude of `frequency` in each `window` of the left channel (Goertzel)."""
    with wave.open(str(path)) as recording:
        rate, frames = recording.getframerate(), recording.readframes(recording.getnframes())
    samples = struct.unpack(f"<{len(frames) // 2}h", frames)[0::2]
    size = int(rate * window)
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    levels = []
    for start in range(0, len(samples) - size, size):
        s1 = s2 = 0.0
        for value in samples[start:start + size]:
            s1, s2 = value + coefficient * s1 - s2, s1
        levels.append(math.sqrt(max(0.0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)) * 2 / size / 32768)
    return levels


def last_item_under_way(item, pts):
    return lambda records: any(r["item"] == item and r["pts"] >= pts for r in records)


@pytest.fixture(scope="module")
def crossfaded(media):
    config = """input: {enabled: false}
playback: {loop: none, transition: {type: crossfade, duration: 1}}
items: [red.mp4, blue.mp4]
"""
    return run(media, config, last_item_under_way(1, 1.4), "crossfade")


def test_a_crossfade_flips_at_every_refresh_with_a_rising_weight(crossfaded):
    records, _, _, log = crossfaded
    mixed = [r for r in records if "mix" in r]
    assert mixed and all(r["item"] == 1 for r in mixed), log
    gaps = [round((b["t"] - a["t"]) / REFRESH) for a, b in zip(mixed, mixed[1:])]
    print(f"crossfade: {len(mixed)} flips, gaps {sorted(set(gaps))}")
    assert len(mixed) >= 0.8 * 60 and sum(1 for g in gaps if g == 1) >= 0.9 * len(gaps)
    weights = [r["mix"] for r in mixed]
    assert weights == sorted(weights) and weights[0] <= 10 and weights[-1] >= 245
    # The weight is the flip's time into the second: within one refresh's step (4.25) and 1/255.
    start = mixed[0]["t"] - weights[0] / 255
    errors = [abs(r["mix"] - 255 * (r["t"] - start)) for r in mixed]
    assert sorted(errors)[len(errors) // 2] <= 2 and max(errors) <= 255 * REFRESH * 1.5 + 1, errors
    # Before it, the red clip plainly; after it, the blue one.
    assert all("mix" not in r for r in records if r["item"] == 0)
    assert any(r["item"] == 1 and "mix" not in r and r["pts"] > 1.1 for r in records)


def test_each_crossfaded_picture_is_the_mix_to_the_nearest_step(crossfaded):
    records, shots, _, _ = crossfaded
    assert len(shots) == len(records), "a snapshot for every flip"
    red = centre(shots[max(i for i, r in enumerate(records) if r["item"] == 0)])
    blue = centre(shots[max(i for i, r in enumerate(records) if r["item"] == 1)])
    assert red[0] > 240 and red[2] < 15 and blue[2] > 240 and blue[0] < 15, (red, blue)
    checked = 0
    for record, shot in zip(records, shots):
        if "mix" not in record:
            continue
        weight = record["mix"]
        expected = [(b * weight + a * (255 - weight)) / 255 for a, b in zip(red, blue)]
        got = centre(shot)
        assert all(abs(g - e) <= 1 for g, e in zip(got, expected)), (record, got, expected)
        assert all(g >= min(a, b) for g, a, b in zip(got, red, blue)), "darker than both sources"
        checked += 1
    assert checked >= 48


def test_the_incoming_sound_rises_with_the_crossfade(crossfaded):
    _, _, sound, _ = crossfaded
    red, blue = tone_levels(sound, 440), tone_levels(sound, 880)
    full = max(red)
    seam = next(i for i, level in enumerate(blue) if level > 0.02 * full)    # the blue clip's first sound
    at = lambda seconds: blue[seam + round(seconds / WINDOW)] / full
    print(f"crossfade sound: seam at {seam * WINDOW:.2f} s, full {full:.3f}, blue at +0.25/0.5/1.2 s: "
          f"{at(0.25):.2f} {at(0.5):.2f} {at(1.2):.2f}")
    assert full > 0.08   # ffmpeg's sine is at 1/8 of full scale
    assert min(red[seam - 10:seam - 1]) > 0.9 * full, "the outgoing sound plays to its end"
    assert abs(at(0.25) - 0.3) < 0.1 and abs(at(0.5) - 0.55) < 0.1 and at(1.2) > 0.9


@pytest.fixture(scope="module")
def faded(media):
    config = """input: {enabled: false}
playback: {loop: none, transition: {type: fade, duration: 1}}
items:
  - red.mp4
  - {path: green.png, duration: 2}
  - blue.mp4
"""
    return run(media, config, last_item_under_way(2, 1.0), "fade")


def test_a_fade_goes_out_and_in_through_black_with_refreshes_on_the_still(faded):
    records, shots, _, log = faded
    red = [r for r in records if r["item"] == 0]
    falling = [r for r in red if "level" in r]
    assert falling and all(r["pts"] >= 1.45 for r in falling), "the clip darkens over its last half second only"
    levels = [r["level"] for r in falling]
    assert levels == sorted(levels, reverse=True) and levels[-1] <= 40, levels
    still = [r for r in records if r["item"] == 1]
    rising = [r["level"] for r in still if "level" in r and r["t"] < still[0]["t"] + 0.6]
    assert rising and rising == sorted(rising) and rising[0] <= 20, rising
    refreshes = [r for r in still if r.get("event") == "transition"]
    print(f"fade: the clip's last {len(falling)} flips darken, the still {len(refreshes)} refreshes")
    assert len(refreshes) >= 40, "a still fades in and out at every refresh"
    # The still goes out too (the blue clip fades in), then the clip comes up from black.
    assert min(r["level"] for r in still if "level" in r and r["t"] > still[0]["t"] + 1.4) <= 40
    blue = [r for r in records if r["item"] == 2 and "level" in r]
    assert blue and blue[0]["level"] <= 20 and [r["level"] for r in blue] == sorted(r["level"] for r in blue)
    # Each picture is its source (the item's plain picture) at that level.
    assert len(shots) == len(records), "a snapshot for every flip"
    for record, shot in zip(records, shots):
        if "level" in record and record["item"] in (0, 1):
            plain = centre(shots[max(i for i, r in enumerate(records) if r["item"] == record["item"] and "level" not in r)])
            expected = [c * record["level"] / 255 for c in plain]
            assert all(abs(g - e) <= 1.01 for g, e in zip(centre(shot), expected)), (record, centre(shot), expected)


def test_the_sound_fades_out_and_in_with_the_picture(faded):
    _, _, sound, _ = faded
    red, blue = tone_levels(sound, 440), tone_levels(sound, 880)
    full = max(red)
    end = max(i for i, level in enumerate(red) if level > 0.02 * full)
    start = next(i for i, level in enumerate(blue) if level > 0.02 * full)
    print(f"fade sound: red ends at {end * WINDOW:.2f} s, blue starts at {start * WINDOW:.2f} s; "
          f"red {[round(v / full, 2) for v in red[end - 12:end + 1]]}, blue {[round(v / full, 2) for v in blue[start:start + 13]]}")
    assert red[end - 12] > 0.9 * full and red[end - 5] < 0.7 * full, "falls over the last half second"
    assert blue[start + 3] < 0.7 * full and blue[start + 12] > 0.9 * full, "rises over the first half second"


def test_a_clip_following_itself_keeps_the_cut(media):
    config = """input: {enabled: false}
playback: {loop: playlist, transition: crossfade}
items: [red.mp4]
"""
    passes = lambda records: sum(1 for a, b in zip(records, records[1:]) if b["pts"] < a["pts"]) >= 2
    records, _, _, log = run(media, config, passes, "self", snapshots=False)
    assert not [r for r in records if "mix" in r or "level" in r], log


def test_a_next_item_that_comes_late_cuts(media):
    """The blue clip from a server sending 1 KB a second: its first frame is not decoded in
    time for a fade to be decided, so the red clip plays to its end at full and the blue one cuts in."""
    server = subprocess.Popen([sys.executable, str(HERE / "http_media_server.py"), str(media), "0", "1000"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        config = f"""input: {{enabled: false}}
playback: {{loop: none, transition: {{type: fade, duration: 1}}}}
items: [red.mp4, "http://127.0.0.1:{port}/blue.mp4"]
"""
        records, _, _, log = run(media, config, last_item_under_way(1, 0.2), "late", snapshots=False, timeout=240)
    finally:
        server.kill()
        server.wait()
    assert [r for r in records if r["item"] == 1], log
    assert not [r for r in records if "mix" in r or "level" in r], log


def test_a_long_fade_opens_the_next_item_early_enough(media):
    """A 4 s fade out of an 8 s clip starts 2 s before its end, and is decided a second before
    that: the next item is opened in time for it (it used to be opened 3 s before the end, when
    a fade of 4 s could no longer be decided, and every such seam cut)."""
    ffmpeg("-f", "lavfi", "-i", "color=c=red:s=160x90:r=25:d=8", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(media / "red-8s.mp4"))
    config = """input: {enabled: false}
playback: {loop: none, transition: {type: fade, duration: 4}}
items: [red-8s.mp4, blue.mp4]
"""
    records, _, _, log = run(media, config, last_item_under_way(1, 1.0), "long-fade", snapshots=False, sound=False)
    falling = [r for r in records if r["item"] == 0 and "level" in r]
    rising = [r for r in records if r["item"] == 1 and "level" in r]
    assert "cut instead" not in log, log
    assert falling and min(r["pts"] for r in falling) >= 5.8 and falling[-1]["level"] <= 40, falling[:3]
    assert rising and rising[0]["level"] <= 40, rising[:3]


def test_a_paused_crossfade_holds_its_look_without_flipping(media, tmp_path):
    """Paused (kiosk ctl) a third of the way into a 2 s crossfade: the look stands and nothing
    flips (no redraw of an unchanged picture 60 times a second); played again, it goes on from
    where it stood."""
    socket = tmp_path / "kiosk.sock"
    config = f"""input: {{enabled: false}}
control: {{socket: {socket}}}
playback: {{loop: none, transition: {{type: crossfade, duration: 2}}}}
items: [red.mp4, blue.mp4]
"""
    ctl = lambda word: subprocess.run([str(KIOSK), "ctl", "--socket", str(socket), word], capture_output=True, timeout=30)
    state = {}

    def steps(records):
        mixed = [r for r in records if "mix" in r]
        if "paused" not in state and mixed and mixed[-1]["mix"] >= 60:
            assert ctl("pause").returncode == 0
            state["paused"] = len(records)
            state["since"] = time.monotonic()   # answered: the engine takes it at its next look (a flip at most)
        elif "paused" in state and "played" not in state and time.monotonic() - state["since"] >= 2:
            state["flips_paused"] = [r for r in records if r["t"] > state["since"] + 0.1]
            assert ctl("play").returncode == 0
            state["played"] = True
        # Done at the blue clip's last frame (the 2 s crossfade ends about there too).
        return "played" in state and any(r["item"] == 1 and r["pts"] >= 1.9 for r in records[state["paused"]:])
    # No sound device: `file:` (a WAV, written ahead without a device's pace) is heard ahead
    # of the picture, and its clock jumps at a pause; `none` keeps a device's time.
    records, _, _, log = run(media, config, steps, "paused", snapshots=False, sound=False)
    assert state["flips_paused"] == [], f"flipped while paused: {state['flips_paused'][:3]}"
    weights = [r["mix"] for r in records if "mix" in r]
    assert weights == sorted(weights) and weights[-1] >= 245, "the crossfade goes on from where it stood"
    resumed = [r for r in records if r["t"] > state["since"] + 2][:5]
    assert all("mix" in r for r in resumed), f"a plain picture right after the resume: {resumed}"
