"""A/V sync of `kiosk play` in the VM bed: a flash frame's flip against its beep's onset.

The clip (made at test time): 320x240 at 10 fps, 32 s, black with one white frame at every
whole second, and a 1 kHz, 40 ms beep starting at the same instants (PCM audio in mkv: no
encoder priming delay to blur the start). One guest boots (bochs at 320x240, the clip's own
size, so no scaling loads the emulated CPU):

- timestamped_capture.c (compiled here with gcc against libasound; the guest sees the host's
  root) records hw:Loopback,1,0 with its own CLOCK_MONOTONIC stamps: after each read, the
  driver's hardware pointer (frames read + avail) and the timestamp taken when that pointer
  last moved. The player's opinion of its sync is not used.
- then `kiosk play clip --display drm --audio hw:Loopback,0,0 --stats-file` plays it to the end.

On the host: flash flips are the stats lines whose pts is a whole second; beep onsets are the
first sample above a threshold after half a second of silence, mapped to CLOCK_MONOTONIC
through the recorder's stamps; offset = onset time - flip time, per second.

Error of the recorder's clock: snd-aloop moves its pointer on jiffies (4 ms at HZ=250), and
a stamp is taken when the pointer is read, 0 to one jiffy (plus scheduling) after the
position it reports. So `stamp - index / rate` is the true mapping plus a delay >= 0; its
minimum over the stamps within 2 s of an onset (hundreds of reads at random phase) has an
error well under 1 ms. Sample-level onset detection adds < 0.1 ms.

The first 2 s are excluded while the audio clock settles. An emulated guest on a loaded host
starves, and then the offsets measure TCG, not kiosk: a second counts as starved when the
recording shows the audio broke up near it (beeps not exactly one second of samples apart: the
loopback filled in silence because the player underran, or the recorder overran), a frame was
dropped near it, or its flip stalled. The others are judged as a distribution: the median
offset and 80 % of them within TOLERANCE (20 ms), every one within OUTLIER_TOLERANCE (50 ms).
A single second 22 ms off among a dozen at 5-12 ms was seen with the guest 67 % idle on a
busy host: the emulated timer and vCPU scheduling add jitter that no starvation sign shows;
a player out of sync is off in most seconds, not one. With fewer than MIN_CLEAN_SECONDS
unstarved seconds the test skips, printing why.

Needs kiosk (`swift build -c release --product kiosk`, preferred, or `swift build`), ffmpeg,
gcc and libasound2-dev on the host.
"""

from __future__ import annotations

import array
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402

# The release build when there is one: a debug kiosk alone keeps the emulated guest's CPUs
# busy (unoptimised Swift per sample and per pixel, 10-50x slower again under TCG), and a
# starved guest measures TCG, not kiosk. KIOSK_BINARY picks another.
KIOSK = Path(os.environ.get("KIOSK_BINARY") or next(
    (p for p in (REPO / ".build" / "release" / "kiosk", REPO / ".build" / "debug" / "kiosk") if p.exists()),
    REPO / ".build" / "debug" / "kiosk"))
RECORDER_SOURCE = Path(__file__).with_name("timestamped_capture.c")
RATE, CHANNELS = 48000, 2
# 10 fps, not 25: under TCG on a shared host the guest starves at 25 (decode and colour
# conversion of every frame); the flash frame then lasts 100 ms, its first flip is what counts.
FPS, SECONDS = 10, 32
BEEP_SECONDS, BEEP_HZ, BEEP_LEVEL = 0.04, 1000, 0.5
SETTLE_SECONDS = 2           # flashes before this are not judged: the audio clock settles
TOLERANCE = 0.020
OUTLIER_TOLERANCE = 0.050
THRESHOLD = 0.1 * 32768      # a fifth of the beep's amplitude; silence is digital zero
STAMP_WINDOW = 2 * RATE      # stamps within this many frames of an onset map it to time
MIN_CLEAN_SECONDS = 10      # a starved run still judges its unstarved seconds if this many

GUEST_COMMAND = r'''
K=@KIOSK@
await() {  # FILE: up to 60 s
    i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
}
mkdir -p /tmp/av
# Played from the guest's tmpfs: the work share is 9p without cache, a QEMU round trip a read.
cp clip.mkv /tmp/av/
./timestamped_capture hw:Loopback,1,0 @RATE@ @CHANNELS@ /tmp/av/capture.raw /tmp/av/stamps.txt \
    capturing 2> recorder.log &
rec=$!
await capturing
read -r cpu_before < /proc/stat
"$K" play --display drm --audio hw:Loopback,0,0 --stats-file /tmp/av/stats.jsonl /tmp/av/clip.mkv \
    > kiosk.log 2>&1
echo $? > kiosk.rc
# How busy the guest was while playing (/proc/stat's cpu line, in ticks) and what kiosk used
# (the shell's `times`: its waited children), to tell a starved guest from a busy player.
read -r cpu_after < /proc/stat
{ echo "$cpu_before"; echo "$cpu_after"; times; } > guest-cpu.txt
sleep 0.3
kill -INT $rec
wait $rec
echo $? > recorder.rc
# The recording goes to the guest's tmpfs while playing: a 9p round trip per write would
# load the guest being measured. Copied once it is done.
cp /tmp/av/capture.raw /tmp/av/stamps.txt /tmp/av/stats.jsonl .
'''


@dataclass
class Run:
    workdir: Path
    exit_code: int
    bed_seconds: float
    kiosk_rc: int
    kiosk_log: str
    recorder_rc: int
    recorder_log: str
    samples: array.array        # left channel, S16
    stamps: list[tuple[int, float]]
    xruns: list[int]
    stats: list[dict]


def make_clip(path: Path) -> None:
    video = (f"color=c=black:s=320x240:r={FPS}:d={SECONDS},"
             f"drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(mod(n\\,{FPS})\\,0)'")
    # Frame and sample numbers, not t: mod(t, 1) in floating point lets 16.04 pass as < 0.04.
    beep_samples = round(BEEP_SECONDS * RATE)
    audio = (f"aevalsrc='if(lt(mod(n\\,{RATE})\\,{beep_samples})\\,{BEEP_LEVEL}*sin(2*PI*{BEEP_HZ}*n/{RATE})\\,0)'"
             f":s={RATE}:c=stereo:d={SECONDS}")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio,
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", str(FPS), "-pix_fmt", "yuv420p",
                    "-c:a", "pcm_s16le", str(path)], check=True)


def read_stamps(path: Path) -> tuple[list[tuple[int, float]], list[int]]:
    stamps, xruns = [], []
    for line in path.read_text().splitlines():
        first, second = line.split()
        if first == "xrun":
            xruns.append(int(second))
        else:
            stamps.append((int(first), float(second)))
    return stamps, xruns


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    if not KIOSK.exists():
        pytest.skip(f"{KIOSK} missing: run `swift build -c release --product kiosk` (or `swift build`) first")
    workdir = tmp_path_factory.mktemp("av-sync")
    make_clip(workdir / "clip.mkv")
    subprocess.run(["gcc", "-O2", "-Wall", "-o", str(workdir / "timestamped_capture"), str(RECORDER_SOURCE),
                    "-lasound"], check=True)
    command = (GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@RATE@", str(RATE))
               .replace("@CHANNELS@", str(CHANNELS)))
    started = time.monotonic()
    with Bed(driver="bochs", size=(320, 240), workdir=workdir) as bed:
        code = bed.run(command, timeout=240)
    bed_seconds = time.monotonic() - started
    read = lambda name: (workdir / name).read_text(errors="replace") if (workdir / name).exists() else ""
    raw = array.array("h")
    if (workdir / "capture.raw").exists():
        raw.frombytes((workdir / "capture.raw").read_bytes())
    stamps, xruns = read_stamps(workdir / "stamps.txt") if (workdir / "stamps.txt").exists() else ([], [])
    stats = [json.loads(line) for line in read("stats.jsonl").splitlines() if line.strip()]
    print(f"{KIOSK}: bed time {bed_seconds:.1f} s (boot {bed.boot_seconds or 0:.1f} s), host load "
          f"{os.getloadavg()[0]:.1f}, {guest_cpu(workdir)}")
    return Run(workdir, code, bed_seconds, int(read("kiosk.rc") or -1), read("kiosk.log"),
               int(read("recorder.rc") or -1), read("recorder.log"), raw[0::CHANNELS], stamps, xruns, stats)


def guest_cpu(workdir: Path) -> str:
    """The guest's idle share while kiosk played and kiosk's CPU time, from guest-cpu.txt."""
    path = workdir / "guest-cpu.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    if len(lines) < 4:
        return "guest CPU use not recorded"
    before, after = ([int(v) for v in line.split()[1:]] for line in lines[:2])
    delta = [b - a for a, b in zip(before, after)]
    idle = (delta[3] + delta[4]) / max(sum(delta), 1)

    def seconds(text: str) -> float:
        minutes, _, rest = text.partition("m")
        return int(minutes) * 60 + float(rest.rstrip("s"))
    kiosk = sum(seconds(v) for v in lines[3].split())
    return f"guest CPUs {idle:.0%} idle while playing, kiosk used {kiosk:.1f} CPU s"


def beep_onsets(samples: array.array) -> list[int]:
    """Sample indices where a sample exceeds THRESHOLD after half a second without one."""
    onsets, last_loud = [], -RATE
    for index, value in enumerate(samples):
        if value > THRESHOLD or value < -THRESHOLD:
            if index - last_loud > RATE // 2:
                onsets.append(index)
            last_loud = index
    return onsets


def monotonic_time_of(frame: int, stamps: list[tuple[int, float]], xruns: list[int]) -> float | None:
    """CLOCK_MONOTONIC time of recorded frame `frame`: the least `stamp - index / RATE` (the
    stamp closest to its pointer update) among stamps near it and on its side of any overrun."""
    before = max((x for x in xruns if x <= frame), default=-1)
    after = min((x for x in xruns if x > frame), default=1 << 62)
    offsets = [t - index / RATE for index, t in stamps
               if abs(index - frame) <= STAMP_WINDOW and before < index <= after]
    return frame / RATE + min(offsets) if offsets else None


def flash_flips(stats: list[dict]) -> dict[int, float]:
    """Second -> flip time of the frame at that whole second (the first frame of its flash)."""
    return {round(s["pts"]): s["t"] for s in stats
            if s["video"] and s["item"] == 0 and abs(s["pts"] - round(s["pts"])) < 0.5 / FPS}


def audio_breaks(onsets: list[int], xruns: list[int]) -> list[int]:
    """Onset indices where the recording is not one second of samples after the previous beep:
    silence filled in (the player underran) or samples lost (the recorder overran)."""
    return [b for a, b in zip(onsets, onsets[1:]) if abs((b - a) - RATE) > RATE // 1000] + xruns


def starved_near(second: int, stats: list[dict], onsets: list[int], xruns: list[int]) -> str | None:
    """Why the guest demonstrably starved around this flash, or None: audio not exactly one
    second of samples between the beeps from two before to one after (underrun or overrun), a video frame dropped
    within 0.3 s, or a flip up to the flash's late by over half the tolerance on the frame rate."""
    if len(onsets) != SECONDS:
        return "beeps missing"   # then which onset is which second is unknown
    beep = second
    # Two beeps back: the clock absorbs an error below its resync threshold (0.1 s) at up to
    # 10 % speed, so a break up to a second before the flash can still show in its offset.
    neighbours = onsets[max(beep - 2, 0):beep + 2]
    if any(abs((b - a) - RATE) > RATE // 1000 for a, b in zip(neighbours, neighbours[1:])) \
            or any(neighbours[0] <= x <= neighbours[-1] for x in xruns):
        return "audio broke up"
    near = [s for s in stats if s["video"] and abs(s["pts"] - second) < 0.3]
    if not near or near[0]["dropped"] != near[-1]["dropped"]:
        return "frames dropped"
    if any(b["t"] - a["t"] > 1 / FPS + TOLERANCE / 2 for a, b in zip(near, near[1:]) if b["pts"] <= second):
        return "flips stalled"
    return None


def test_kiosk_plays_the_clip_and_the_recorder_records(run: Run):
    assert run.exit_code == 0, (run.workdir / "console.log").read_text(errors="replace")[-3000:]
    assert run.kiosk_rc == 0, run.kiosk_log
    assert run.recorder_rc == 0, run.recorder_log
    assert len(run.samples) > (SECONDS - 1) * RATE, f"only {len(run.samples) / RATE:.1f} s recorded"
    assert len(run.stamps) > SECONDS * 50, f"only {len(run.stamps)} timestamps"
    onsets = beep_onsets(run.samples)
    assert len(onsets) == SECONDS, f"{len(onsets)} beeps heard, {SECONDS} played; {run.kiosk_log}"


def test_flashes_are_flipped_in_sync_with_their_beeps(run: Run):
    onsets = beep_onsets(run.samples)
    heard = [t for t in (monotonic_time_of(o, run.stamps, run.xruns) for o in onsets) if t is not None]
    flips = flash_flips(run.stats)
    offsets: dict[int, float] = {}
    for second, flip in sorted(flips.items()):
        nearest = min(heard, key=lambda t: abs(t - flip), default=None)
        if nearest is not None and abs(nearest - flip) < 0.5:
            offsets[second] = nearest - flip
    judged = {s: o for s, o in offsets.items() if SETTLE_SECONDS <= s < SECONDS}
    starved = {s: why for s in range(SETTLE_SECONDS, SECONDS)
               if (why := starved_near(s, run.stats, onsets, run.xruns))}
    describe(judged, "all")
    print("per second (ms): " + ", ".join(f"{s}: {o * 1000:+.1f}" + (f" ({starved[s]})" if s in starved else "")
                                          for s, o in sorted(offsets.items())))
    if not starved:
        # A clean run: every second from the settle time to the end is judged.
        missing = [s for s in range(SETTLE_SECONDS, SECONDS) if s not in judged]
        assert not missing, f"no flash flip paired with a beep at seconds {missing}; flips at {sorted(flips)}"
        assert_in_sync(judged)
        return
    # The emulated guest starved (TCG on a loaded host): seconds where it demonstrably did are
    # not kiosk's timing; the others are still judged, if there are enough of them.
    clean = {s: o for s, o in judged.items() if s not in starved}
    describe(clean, "unstarved")
    reason = (f"the guest starved around {len(starved)} of {SECONDS - SETTLE_SECONDS} flashes "
              f"({run.stats[-1]['dropped'] if run.stats else '?'} frames dropped, "
              f"{len(audio_breaks(onsets, run.xruns))} audio breaks, host load {os.getloadavg()[0]:.1f}; "
              f"{guest_cpu(run.workdir)})")
    if len(clean) < MIN_CLEAN_SECONDS:
        pytest.skip(f"{reason}: only {len(clean)} unstarved seconds, sync not measurable in this run")
    print(f"{reason}: judging the {len(clean)} unstarved seconds only")
    assert_in_sync(clean)


def assert_in_sync(offsets: dict[int, float]) -> None:
    """The median and 80 % of the offsets within TOLERANCE, none beyond OUTLIER_TOLERANCE."""
    by_second = {s: round(o * 1000, 1) for s, o in offsets.items()}
    assert abs(statistics.median(offsets.values())) <= TOLERANCE, f"median offset; ms by second: {by_second}"
    within = sum(1 for o in offsets.values() if abs(o) <= TOLERANCE)
    assert within >= 0.8 * len(offsets), f"only {within} of {len(offsets)} within {TOLERANCE * 1000:.0f} ms: {by_second}"
    outliers = {s: ms for s, ms in by_second.items() if abs(ms) > OUTLIER_TOLERANCE * 1000}
    assert not outliers, f"offsets over {OUTLIER_TOLERANCE * 1000:.0f} ms (ms by second): {outliers}"


def describe(offsets: dict[int, float], which: str) -> None:
    values = sorted(offsets.values())
    if values:
        print(f"A/V offsets (beep onset - flash flip), {which} seconds of {SETTLE_SECONDS}..{SECONDS - 1}: "
              f"min {values[0] * 1000:+.1f} ms, median {statistics.median(values) * 1000:+.1f} ms, "
              f"max {values[-1] * 1000:+.1f} ms over {len(values)} flashes")
    else:
        print(f"A/V offsets: no {which} flashes paired with beeps")


# The analysis itself, on made-up data (no guest): what the measurement rests on can fail.

def test_onsets_and_breaks_of_a_made_up_recording():
    beep = [0] * 3 + [20000, -20000] * 960
    second = beep + [0] * (RATE - len(beep))
    gap = [0] * 480                           # 10 ms of silence filled in before the third beep
    samples = array.array("h", second * 2 + gap + second)
    assert beep_onsets(samples) == [3, RATE + 3, 2 * RATE + 480 + 3]
    assert audio_breaks(beep_onsets(samples), []) == [2 * RATE + 480 + 3]
    assert audio_breaks([3, RATE + 3], [RATE // 2]) == [RATE // 2]


def test_a_frame_is_timed_by_the_stamp_nearest_its_pointer_update():
    # True mapping: frame 0 at 100 s. Stamps come 0-4 ms after the pointer moved.
    stamps = [(i * 480, 100 + i * 0.01 + delay) for i, delay in enumerate([0.004, 0.0021, 0.0003, 0.003, 0.001])]
    assert monotonic_time_of(RATE // 100, stamps, []) == pytest.approx(100.0103, abs=1e-6)
    # Across an overrun the stamps before it no longer say where the frames after it are.
    assert monotonic_time_of(4 * 480, stamps, [3 * 480]) == pytest.approx(100 + 0.04 + 0.001, abs=1e-6)
    assert monotonic_time_of(10 * RATE, stamps, []) is None
