"""`kiosk record` in the VM bed, from the kernel's vivid driver (issue 17, "recording").

The guest loads vivid (Bed(modules=["vivid"]), as test_capture.py does) and runs, in its shared
work directory:

1. `kiosk record` of a device that is not there: one line naming it, exit 1, nothing written;
2. `kiosk record --device <vivid's capture node> --duration 3 -o rec/clip.mp4`: exit 0, and on
   the host ffprobe finds 3 s of H.264 (by the file's timestamps, which are the device's: within
   two frames) that decodes cleanly, and no temporary file is left in rec/;
3. a long recording stopped with SIGTERM once its progress line says it is past half a second
   (an event, not a time): exit 0, a finished, playable file of what was recorded, no temporary;
   while it records, a second recorder of the same device is refused: busy, one line, exit 1;
4. `--audio` from snd-aloop's capture side while aplay plays a steady 440 Hz tone into its
   playback side (the recorder started once the loopback says the tone runs): an AAC track as long as the pictures, the tone heard in it without a gap; a
   PCM that is not there is one line and exit 1.

Every wait is for a file or a log line, with deadlines meant for a hang (TCG is slow, and a debug
kiosk encodes 720p there at a few frames a second). Needs a kiosk build: `swift build` first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy" / "vm"))

from bed import Bed  # noqa: E402
from vivid_node import FIND_CAPTURE_NODE  # noqa: E402

from built_kiosk import KIOSK  # noqa: E402  (the release build when fresh: the guests run it)
BOOT_TIMEOUT = 300
RUN_TIMEOUT = 900

GUEST_COMMAND = r'''
K=@KIOSK@
@FIND_CAPTURE_NODE@mkdir -p rec
"$K" record --device /dev/video9 --duration 3 -o rec/missing.mp4 > missing.log 2>&1; echo $? > missing.rc
"$K" record --device "$CAP" --duration 3 -o rec/clip.mp4 > clip.log 2>&1; echo $? > clip.rc
ls -a rec > after-record.ls
"$K" record --device "$CAP" --duration 600 -o rec/stopped.mp4 > stopped.log 2>&1 &
pid=$!
i=0
while ! grep -Eq 'record: ([1-9][0-9]*|0\.[5-9])' stopped.log && [ $i -lt 6000 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1; i=$((i+1))
done
ls -a rec > during-stop.ls
# The device is busy now: a second recorder of it is refused.
"$K" record --device "$CAP" --duration 1 -o rec/busy.mp4 > busy.log 2>&1; echo $? > busy.rc
kill -TERM $pid; wait $pid; echo $? > stopped.rc
ls -a rec > after-stop.ls
"$K" record --device "$CAP" --audio hw:9,0 --duration 3 -o rec/no-pcm.mp4 > no-pcm.log 2>&1; echo $? > no-pcm.rc
# Sound: a steady 440 Hz tone played into snd-aloop's playback side, recorded from its capture side.
# At real-time priority with a second of buffer: the recorder's H.264 encoder takes every vCPU of a
# starved guest, and an aplay left behind it underran, so the loopback carried silence (a fresh-clone
# CI recorded 3 s of digital silence with the tone's stream RUNNING; -q hides aplay's underrun line).
chrt -f 10 aplay -q --buffer-time=1000000 -D hw:Loopback,0,0 tone.wav > aplay.log 2>&1 &
tone=$!
# The recorder starts once the tone flows (an event): a starved guest may take seconds to start aplay.
i=0
while ! grep -q 'state: RUNNING' /proc/asound/Loopback/pcm0p/sub0/status 2>/dev/null && [ $i -lt 3000 ] && kill -0 $tone 2>/dev/null; do
    sleep 0.1; i=$((i+1))
done
cat /proc/asound/Loopback/pcm0p/sub0/status > tone-status.txt 2>&1
"$K" record --device "$CAP" --audio hw:Loopback,1,0 --duration 3 -o rec/sound.mp4 > sound.log 2>&1; echo $? > sound.rc
kill $tone
ls -a rec > after-sound.ls
echo done > all-done
'''


def probe(path: Path) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries",
                          "format=duration:stream=codec_name,width,height,nb_read_packets,duration",
                          "-of", "json", str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def decodes(path: Path) -> str:
    # The device's timestamps as they are: a variable rate (vivid in a TCG guest stamps frames
    # 8 to 25 ms apart); ffmpeg's default would put them on a grid of its guessed rate and
    # complain where two land in one slot.
    result = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-fps_mode", "passthrough",
                             "-enc_time_base:v", "1/90000", "-f", "null", "-"],
                            capture_output=True, text=True)
    return f"exit {result.returncode}: {result.stderr}" if result.returncode or result.stderr else ""


@pytest.fixture(scope="module")
def guest(tmp_path_factory):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    workdir = tmp_path_factory.mktemp("record")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=30:sample_rate=48000",
                    "-ac", "2", "-c:a", "pcm_s16le", str(workdir / "tone.wav")], check=True)
    with Bed(driver="bochs", size=(640, 480), workdir=workdir, modules=["vivid"]) as bed:
        bed.start(GUEST_COMMAND.replace("@KIOSK@", str(KIOSK)).replace("@FIND_CAPTURE_NODE@", FIND_CAPTURE_NODE))
        bed.wait_for_file("capture-node", timeout=BOOT_TIMEOUT)
        bed.wait_for_file("all-done", timeout=RUN_TIMEOUT)
        code = bed.wait(timeout=120)
    assert code == 0, bed.console_log()[-3000:]
    return workdir


def read(workdir: Path, name: str) -> str:
    return (workdir / name).read_text(errors="replace")


def assert_refused(guest: Path, run: str, words: tuple[str, ...], listing: str) -> None:
    """Recording `run` ended with exit 1 and one line holding `words`, and wrote nothing."""
    log = read(guest, f"{run}.log")
    assert read(guest, f"{run}.rc").strip() == "1", log
    assert log.count("\n") == 1 and all(word in log for word in words), log
    assert f"{run}.mp4" not in read(guest, listing)


def finished(guest: Path, run: str, listing: str) -> tuple[Path, dict]:
    """Recording `run` ended with exit 0 in a file that decodes, renamed into place (no .part
    left in the listing taken after it); the file and ffprobe's view of it."""
    assert read(guest, f"{run}.rc").strip() == "0", read(guest, f"{run}.log")
    clip = guest / "rec" / f"{run}.mp4"
    assert decodes(clip) == ""
    assert [n for n in read(guest, listing).split() if n.endswith(".part")] == []
    return clip, probe(clip)


def test_a_missing_device_is_one_line(guest):
    assert_refused(guest, "missing", ("/dev/video9", "no such device"), "after-record.ls")


def test_a_busy_device_is_one_line(guest):
    assert_refused(guest, "busy", ("/dev/video", "busy"), "after-stop.ls")


def test_a_missing_pcm_is_one_line(guest):
    assert_refused(guest, "no-pcm", ("hw:9,0",), "after-sound.ls")


def test_a_recording_has_its_length_and_decodes(guest):
    _, info = finished(guest, "clip", "after-record.ls")
    video = info["streams"][0]
    assert video["codec_name"] == "h264", info
    assert int(video["nb_read_packets"]) >= 2, info
    # By the device's timestamps: 3 s within two frames (vivid sends 30 or fewer a second).
    assert abs(float(video["duration"]) - 3.0) <= 2 / 30 + 0.001, info


def test_a_stop_keeps_a_playable_file(guest):
    assert ".stopped.mp4.part" in read(guest, "during-stop.ls"), read(guest, "during-stop.ls")
    _, info = finished(guest, "stopped", "after-stop.ls")
    assert 0.5 <= float(info["streams"][0]["duration"]) < 600, info


def level(path: Path, start: float, end: float) -> float:
    """The mean level (0...32768) of the sound between two times, decoded to mono."""
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-ss", str(start), "-to", str(end),
                          "-vn", "-ac", "1", "-ar", "8000", "-f", "s16le", "-"], check=True, capture_output=True).stdout
    samples = [int.from_bytes(raw[i:i + 2], "little", signed=True) for i in range(0, len(raw) - 1, 2)]
    return sum(abs(s) for s in samples) / max(1, len(samples))


def test_sound_is_recorded_beside_the_pictures(guest):
    clip, info = finished(guest, "sound", "after-sound.ls")
    kinds = {s["codec_name"]: s for s in info["streams"]}
    assert set(kinds) == {"h264", "aac"}, info
    assert abs(float(kinds["aac"]["duration"]) - float(kinds["h264"]["duration"])) < 0.05, info
    # ffmpeg's sine is at -18 dBFS: well above the silence of an idle loopback; and no gap in it.
    said = f"{read(guest, 'sound.log')}\naplay: {read(guest, 'aplay.log')}\ntone: {read(guest, 'tone-status.txt')}"
    assert level(clip, 1.0, 2.5) > 1000, (level(clip, 1.0, 2.5), said)
    gaps = subprocess.run(["ffmpeg", "-nostdin", "-i", str(clip), "-vn", "-af", "silencedetect=n=-40dB:d=0.05", "-f", "null", "-"],
                          capture_output=True, text=True).stderr
    starts = [float(line.split("silence_start: ")[1]) for line in gaps.splitlines() if "silence_start: " in line]
    assert [t for t in starts if 0.3 < t < 2.7] == [], (gaps[-2000:], said)
