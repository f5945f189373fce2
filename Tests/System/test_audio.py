"""System test of kiosk's ALSA output (KioskAudio) on a real kernel driver: snd-aloop.

One guest boots (~10-20 s under TCG). arecord records the loopback's capture end
(hw:Loopback,1,0) while the KioskAudioTests' real-device suite (RealDeviceTests, enabled by
KIOSK_TEST_PCM) plays to hw:Loopback,0,0 through PCMSink and the AudioWriter thread:

- two seconds of a 440 Hz tone, the first at volume 100, the second at 50, the volume changed
  when the device reports media time 1.0 s as heard; the guest checks its audio clock follows
  the device, the host checks the recording: the tone's pitch, its length, the level step and
  how long after the change it is heard (those checks skip when arecord overran: a starved
  guest's recording has gaps);
- an underrun (a pause in writing longer than the buffer) recovered and counted;
- pause and resume on the device; a busy device refused with one clear error.

Needs the test binary: `swift build --build-tests` in this worktree first.
"""

from __future__ import annotations

import array
import json
import math
import os
import sys
import wave
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402

from built_kiosk import TEST_BINARY  # noqa: E402  (deploy/test: the optimised build; else the debug one)
RATE = 48000

GUEST_COMMAND = r'''
T=@BINARY@
# Recorded into the guest's tmpfs, copied once done: the work share is 9p, a QEMU round trip a
# write, and a starved guest writing there can fall behind the capture (an overrun).
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -t wav /tmp/recording.wav 2> arecord.log &
rec=$!
# Once arecord has the capture end set up, the loopback holds the playback end to its format.
i=0
while ! grep -q "^rate: 48000" /proc/asound/Loopback/pcm1c/sub0/hw_params 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i+1))
done
KIOSK_TEST_PCM=hw:Loopback,0,0 KIOSK_TEST_OUT=$PWD \
    "$T" --testing-library swift-testing --filter RealDeviceTests > tests.log 2>&1
echo $? > tests.rc
sleep 0.3
kill -INT $rec
wait $rec
cp /tmp/recording.wav recording.wav
'''


@dataclass
class Guest:
    workdir: Path
    exit_code: int
    boot_seconds: float
    tests_rc: int
    tests_log: str
    left: list[float]
    right: list[float]


def read_wav(path: Path) -> tuple[list[float], list[float]]:
    with wave.open(str(path), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (2, 2, RATE)
        # arecord stopped by a signal may leave the header's sizes unwritten: read what is there.
        data = w.readframes(w.getnframes() or 1 << 30)
    samples = array.array("h")
    samples.frombytes(data[: len(data) - len(data) % 4])
    return [s / 32768 for s in samples[0::2]], [s / 32768 for s in samples[1::2]]


def rms(samples: list[float]) -> float:
    return math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0


def segments(samples: list[float], block: int = 480, threshold: float = 0.01) -> list[tuple[int, int]]:
    """Runs of 10 ms blocks louder than `threshold`, as (start, end) sample indices."""
    runs, start = [], None
    for index in range(0, len(samples) - block + 1, block):
        loud = rms(samples[index:index + block]) > threshold
        if loud and start is None:
            start = index
        elif not loud and start is not None:
            runs.append((start, index))
            start = None
    if start is not None:
        runs.append((start, len(samples)))
    return runs


def frequency(samples: list[float]) -> float:
    rising = [i - 1 + (-samples[i - 1]) / (samples[i] - samples[i - 1])
              for i in range(1, len(samples)) if samples[i - 1] < 0 <= samples[i]]
    return (len(rising) - 1) / ((rising[-1] - rising[0]) / RATE) if len(rising) > 1 else 0.0


@pytest.fixture(scope="module")
def guest(tmp_path_factory) -> Guest:
    if not TEST_BINARY.exists():
        # deploy/test names the one it built: missing, that is a failure, not a skip.
        (pytest.fail if os.environ.get("KIOSK_TEST_BINARY") else pytest.skip)(
            f"{TEST_BINARY} missing: run `swift build --build-tests` first")
    workdir = tmp_path_factory.mktemp("audio")
    with Bed(driver="virtio-gpu", size=(640, 480), workdir=workdir) as bed:
        code = bed.run(GUEST_COMMAND.replace("@BINARY@", str(TEST_BINARY)), timeout=600)
        boot_seconds = bed.boot_seconds or 0.0
    left, right = read_wav(workdir / "recording.wav")
    return Guest(workdir, code, boot_seconds, int((workdir / "tests.rc").read_text()),
                 (workdir / "tests.log").read_text(errors="replace"), left, right)


def tone_segment(guest: Guest) -> tuple[int, int]:
    """The two-second tone: the longest run of sound in the recording."""
    runs = segments(guest.left)
    assert runs, "the recording is silent"
    return max(runs, key=lambda run: run[1] - run[0])


def windows(samples: list[float], start: int, end: int, size: int = RATE // 20) -> list[list[float]]:
    return [samples[i:i + size] for i in range(start, end - size + 1, size)]


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def discontinuities(samples: list[float]) -> list[float]:
    """Times (s) where a half-scale 440 Hz sine jumps more than it can between two samples:
    the loopback repeating or dropping a stretch (the emulated guest stalls under load)."""
    limit = 0.5 * 2 * math.pi * 440 / RATE * 1.05
    return [i / RATE for i in range(1, len(samples)) if abs(samples[i] - samples[i - 1]) > limit]


def tone_report(guest: Guest) -> dict:
    return json.loads((guest.workdir / "audio-tone.json").read_text())


def overruns(guest: Guest) -> list[str]:
    """arecord's "overrun" lines: the starved guest did not read the capture end in time, and
    the recording goes on after a gap."""
    return [line for line in (guest.workdir / "arecord.log").read_text(errors="replace").splitlines()
            if "overrun" in line]


def require_clean_recording(guest: Guest):
    """The recording is only measurable without gaps (see overruns)."""
    if overruns(guest):
        pytest.skip(f"the starved guest's arecord overran (host load {os.getloadavg()[0]:.1f}): "
                    f"{overruns(guest)[0]}; the recording has gaps, not measurable in this run")


def require_clean_run(guest: Guest):
    """Timing is only measurable when the device played without a gap (an emulated guest on a
    loaded machine can be starved for longer than the 40 ms buffer) and was recorded without one."""
    require_clean_recording(guest)
    underruns = tone_report(guest)["underruns"]
    if underruns:
        pytest.skip(f"the starved guest underran {underruns} time(s) while playing the tone "
                    f"(host load {os.getloadavg()[0]:.1f}): timing not measurable in this run")


def test_device_tests_pass_in_the_guest(guest: Guest):
    assert guest.tests_rc == 0, guest.tests_log
    assert "Test run with 4 tests" in guest.tests_log and "passed" in guest.tests_log, guest.tests_log
    assert "skipped" not in guest.tests_log, guest.tests_log
    tone = tone_report(guest)
    underrun = json.loads((guest.workdir / "audio-underrun.json").read_text())
    if overruns(guest):
        print(f"arecord overran, the recording is not reported on: {overruns(guest)}")
        return
    start, end = tone_segment(guest)
    print(f"guest command started {guest.boot_seconds:.1f} s after boot; {tone['format']}, "
          f"period {tone['periodFrames']} frames, buffer {tone['bufferFrames']} frames, "
          f"max delay {tone['maxDelayFrames']} frames, {tone['reports']} clock reports, "
          f"{tone['underruns']} underruns while playing the tone; heard time ran at "
          f"{tone['clockSlope']:.4f} s/s; underrun test counted {underrun['underruns']}; "
          f"recorded tone {(end - start) / RATE:.3f} s with discontinuities at "
          f"{[round(t, 3) for t in discontinuities(guest.left[start:end])]} s")


def test_the_tone_comes_through_at_its_pitch_and_level(guest: Guest):
    require_clean_recording(guest)
    start, end = segments(guest.left)[0]
    assert end - start > RATE // 4, "the recording starts with the tone"
    heard = windows(guest.left, start + RATE // 20, min(end, start + 19 * RATE // 20))
    assert abs(median([frequency(w) for w in heard]) - 440) < 1
    assert abs(median([rms(w) for w in heard]) - 0.5 / math.sqrt(2)) < 0.01
    assert guest.left[start:end] == guest.right[start:end], "both channels carry the tone"


def test_the_tone_lasts_as_long_as_written(guest: Guest):
    require_clean_run(guest)
    start, end = tone_segment(guest)
    seconds = (end - start) / RATE
    # Exact on an idle machine; a stall of the emulated guest can repeat a few ms.
    assert abs(seconds - 2.0) < 0.03, f"{seconds:.3f} s of tone"


def test_volume_fifty_halves_the_level_within_fifty_milliseconds(guest: Guest):
    require_clean_run(guest)
    start, end = tone_segment(guest)
    before = median([rms(w) for w in windows(guest.left, start + RATE // 20, start + 19 * RATE // 20)])
    after = median([rms(w) for w in windows(guest.left, start + 23 * RATE // 20, end - RATE // 20)])
    assert abs(after / before - 0.5) < 0.015, f"levels {before:.4f} then {after:.4f}"
    # The guest saved the media time heard when it changed the volume; the first 2.5 ms block
    # below 90 % of the full level is when the change was heard. Counted back from the end of
    # the tone (media time 2 s), which the start-up of the writer cannot shift.
    changed_at = tone_report(guest)["volumeChangedAtMediaSeconds"]
    block = 120
    step = next(index for index in range(start + RATE // 2, end - block, block)
                if rms(guest.left[index:index + block]) < 0.9 * before)
    heard_at = 2.0 - (end - step) / RATE
    latency = heard_at - changed_at
    print(f"volume change heard {latency * 1000:.1f} ms after it was made")
    assert -0.005 < latency < 0.050, f"heard after {latency * 1000:.1f} ms"
