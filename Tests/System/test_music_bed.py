"""A music bed across items (issue 17), on the host, headless: `kiosk run` with an
`audio_track` of two 1 kHz sine files under a looping playlist of short clips, two with a
440 Hz tone and two silent, over more than 20 video seams; the sound is recorded with the
file sink (`--audio file:PATH.wav`).

The bed is followed in 10 ms windows (480 samples: exactly ten periods of 1 kHz), each
Hann-windowed and read at 1 kHz (a Goertzel filter): its level, and its phase, which stays the
same from window to window while the sine runs on and jumps on any gap or dropped sample (one
sample is 7.5 degrees). The 440 Hz level of the same window says whether an item's sound plays.
Checked: the phase never jumps (the bed is continuous across every video seam and its own),
the level is full under silent items, lowered by the configured 12 dB (within 1 dB) under the
items with sound, never below that in between (the fades), and `replace` silences it there."""
import json
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest
from seam_clips import make_clip

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)
RATE = 48000
WINDOW = 480
CLIP_SECONDS = 0.8
LOOPS = 6          # 4 clips a loop: 24 video seams
FADE = 0.05
DUCK_DB = -12.0

CLIPS = [
    # name, size, fps, seconds, has sound: sound->sound, sound->silent, silent->silent, silent->sound seams
    ("a-sound.mp4", "160x120", 25, CLIP_SECONDS, True),
    ("b-sound.mp4", "160x120", 25, CLIP_SECONDS, True),
    ("c-silent.mp4", "160x120", 25, CLIP_SECONDS, False),
    ("d-silent.mp4", "160x120", 25, CLIP_SECONDS, False),
]


def make_bed_file(path: Path, seconds: float) -> Path:
    # Whole periods of 1 kHz, so the bed's own seam is continuous when it is sample-exact.
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
                    "-i", f"sine=frequency=1000:sample_rate={RATE}:duration={seconds}",
                    "-c:a", "pcm_s16le", str(path)], check=True)
    return path


def run_with_bed(directory: Path, bed_section: str):
    clips = [make_clip(directory, *clip) for clip in CLIPS]
    music = directory / "music"
    music.mkdir()
    make_bed_file(music / "bed-1.wav", 1.3)
    make_bed_file(music / "bed-2.wav", 1.7)
    (music / "broken.mp3").write_bytes(b"not a sound file at all" * 10)
    conf = directory / "kiosk.conf"
    conf.write_text("playback:\n  loop: playlist\naudio:\n  volume: 100\n"
                    + "items:\n" + "".join(f"  - {clip}\n" for clip in clips) + bed_section)
    stats = directory / "stats.jsonl"
    recording = directory / "sound.wav"
    duration = LOOPS * len(CLIPS) * CLIP_SECONDS + 1.0
    result = subprocess.run([str(KIOSK), "run", "--config", str(conf), "--display", "headless:320x240",
                             "--audio", f"file:{recording}", "--stats-file", str(stats), "--control-socket", "none",
                             "--duration", str(duration)], capture_output=True, text=True, timeout=duration + 60)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in stats.read_text().splitlines()]
    seams = sum(1 for a, b in zip(records, records[1:]) if a["item"] != b["item"])
    with wave.open(str(recording)) as w:
        assert w.getframerate() == RATE and w.getsampwidth() == 2
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).reshape(-1, w.getnchannels())[:, 0]
    return seams, samples.astype(np.float64) / 32768, result.stderr


def windows(samples):
    """Per 10 ms window: the bed's complex amplitude at 1 kHz and the items' level at 440 Hz."""
    count = len(samples) // WINDOW
    blocks = samples[:count * WINDOW].reshape(count, WINDOW) * np.hanning(WINDOW)
    n = np.arange(WINDOW)
    bed = blocks @ np.exp(-2j * np.pi * 1000 * n / RATE)
    item = np.abs(blocks @ np.exp(-2j * np.pi * 440 * n / RATE))
    return bed, item


def classify(item_levels):
    """'sound' where an item's tone plays, 'silent' where none does, None in between."""
    loud = item_levels.max()
    return ["sound" if level > loud * 0.5 else "silent" if level < loud * 0.01 else None for level in item_levels]


def steady(classes, index, kind, margin):
    """The window and `margin` windows either side are all of `kind` (a fade is over)."""
    if index < margin or index + margin >= len(classes):
        return False
    return all(classes[j] == kind for j in range(index - margin, index + margin + 1))


@pytest.fixture(scope="module")
def ducked(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    section = (f"audio_track:\n  items: music/\n  with_item_sound: duck\n  duck: {DUCK_DB:g} dB\n"
               f"  fade: {FADE}\n  volume: 100\n")
    return run_with_bed(tmp_path_factory.mktemp("bed-duck"), section)


@pytest.fixture(scope="module")
def replaced(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    section = f"audio_track:\n  items: [music/bed-*.wav]\n  with_item_sound: replace\n  fade: {FADE}\n"
    return run_with_bed(tmp_path_factory.mktemp("bed-replace"), section)


def judged(samples):
    """The windows to judge: from the first bed sound to 0.2 s before the last (a recording
    made on the far end of a loopback device goes on after kiosk has stopped: that silence
    is not a gap in the bed)."""
    bed, item = windows(samples)
    heard = np.flatnonzero(np.abs(bed) > np.abs(bed).max() * 0.5)
    start, end = int(heard[0]), int(heard[-1]) - 20
    return bed[start:end], classify(item[start:end])


def test_more_than_twenty_video_seams_and_one_bad_bed_file_logged_once(ducked):
    seams, _, log = ducked
    assert seams >= 20, f"only {seams} video seams"
    assert log.count("broken.mp3") == 1, log


def test_the_bed_never_breaks_across_video_seams_and_its_own(ducked):
    _, samples, _ = ducked
    bed, _ = judged(samples)
    # The phase just before and just after each window, as the medians of the nine windows on
    # either side: a lost or added sample moves every later window by 7.5 degrees, while the
    # click of an item's own tone starting or stopping (leaking into the 1 kHz bin) disturbs
    # up to three windows only, too few to move a median of nine.
    phase = np.degrees(np.unwrap(np.angle(bed)))
    span, skip = 9, 1
    shifts = np.array([np.median(phase[i + skip:i + skip + span]) - np.median(phase[i - skip - span:i - skip])
                       for i in range(span + skip, len(phase) - span - skip)])
    worst = int(np.argmax(np.abs(shifts)))
    assert np.abs(shifts).max() < 2, (f"the bed's phase moves {shifts[worst]:.1f} degrees at "
                                      f"{(worst + span + skip) * WINDOW / RATE:.2f} s (a gap or a lost sample)")
    assert len(bed) * WINDOW / RATE > LOOPS * len(CLIPS) * CLIP_SECONDS * 0.8


def test_the_bed_is_ducked_under_sound_and_full_under_silence(ducked):
    _, samples, _ = ducked
    bed, classes = judged(samples)
    level = 20 * np.log10(np.abs(bed) + 1e-12)
    margin = int(FADE * RATE / WINDOW) + 3
    full = np.median([level[i] for i in range(len(level)) if steady(classes, i, "silent", margin)])
    silent = [level[i] - full for i in range(len(level)) if steady(classes, i, "silent", margin)]
    under = [level[i] - full for i in range(len(level)) if steady(classes, i, "sound", margin)]
    assert len(silent) > 50 and len(under) > 50, (len(silent), len(under))
    assert max(abs(value) for value in silent) < 0.5, f"full level varies by {max(abs(v) for v in silent):.2f} dB"
    assert abs(np.median(under) - DUCK_DB) < 1, f"ducked by {np.median(under):.2f} dB"
    assert all(abs(value - DUCK_DB) < 1 for value in under), f"ducked level from {min(under):.2f} to {max(under):.2f} dB"
    # In between (the fades), never a dip below the ducked level nor a rise above full; the
    # windows where an item's tone starts or stops (neither class) are left out: its click
    # leaks into the 1 kHz bin.
    relative = np.array([level[i] - full for i in range(len(level)) if classes[i] is not None])
    assert relative.min() > DUCK_DB - 1 and relative.max() < 0.5, (relative.min(), relative.max())


def test_replace_silences_the_bed_under_sound(replaced):
    seams, samples, _ = replaced
    assert seams >= 20
    bed, classes = judged(samples)
    level = 20 * np.log10(np.abs(bed) + 1e-12)
    margin = int(FADE * RATE / WINDOW) + 3
    full = np.median([level[i] for i in range(len(level)) if steady(classes, i, "silent", margin)])
    under = [level[i] - full for i in range(len(level)) if steady(classes, i, "sound", margin)]
    assert len(under) > 50 and max(under) < -40, f"the bed under an item's sound: up to {max(under):.1f} dB"
