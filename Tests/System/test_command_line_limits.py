"""Values on the command line and in kiosk.conf that once stopped kiosk or overwrote a file
(a new user's session, 2026-12-01): each is now one clear line and the right exit status, or
plays. Host only (headless displays, no sound)."""
import hashlib
import json
import os
import signal
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

PLAY = ["play", "--display", "headless:320x180", "--audio", "none", "--no-input"]


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} missing: run `swift build` first")
    d = tmp_path_factory.mktemp("limits")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2",
                    "-pix_fmt", "yuv420p", str(d / "clip.mp4")], check=True)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "smptehdbars=s=320x180",
                    "-frames:v", "1", str(d / "still.png")], check=True)
    (d / "zero.mp4").write_bytes(b"")
    return d


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(KIOSK)] + args, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("option", ["--image-duration", "--duration", "--stall-timeout", "--seek-step", "--overlay-hide-after"])
@pytest.mark.parametrize("value", ["inf", "nan", "2e14"])
def test_an_endless_number_of_seconds_is_a_usage_error(media: Path, option: str, value: str) -> None:
    """inf trapped at once; 2e14 s in MediaTime's ticks (Int64 of seconds x 90000) too."""
    result = run(PLAY + [option, value, str(media / "still.png")])
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert option in result.stderr and "seconds" in result.stderr and "under 1e12" in result.stderr, result.stderr
    for other in (["run", "--snapshot-every", value], ["snapshot", str(media / "clip.mp4"), "--size", "320x180", "--at", value,
                                                        "-o", "/tmp/never-written.png"]):
        refused = run(other)
        assert refused.returncode == 2 and "under 1e12" in refused.stderr, (other, refused.stderr)


def test_a_still_of_a_trillion_seconds_plays(media: Path, tmp_path: Path) -> None:
    """999999999999 s passes kiosk check (a typo, or 'forever'); its first wait trapped in
    Foundation (a deadline in nanoseconds past Int64: SIGILL, exit 132), on the command line and
    from kiosk.conf alike. Now it shows the still until stopped."""
    stats = tmp_path / "stats.jsonl"
    proc = subprocess.Popen([str(KIOSK)] + PLAY + ["--image-duration", "999999999999", "--stats-file", str(stats),
                                                   str(media / "still.png")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not (stats.exists() and stats.stat().st_size > 0):
        time.sleep(0.1)
    time.sleep(1.5)   # past the presenter's first long wait
    assert proc.poll() is None, f"kiosk ended (exit {proc.returncode}): {proc.stderr.read()[-2000:]}"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    conf = tmp_path / "kiosk.conf"
    conf.write_text("display:\n  output: headless\naudio:\n  device: none\ninput:\n  enabled: false\n"
                    f"items:\n  - {{path: {media / 'still.png'}, duration: 999999999999}}\n")
    assert run(["check", str(conf)]).returncode == 0
    proc = subprocess.Popen([str(KIOSK), "run", "--config", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(4)
    assert proc.poll() is None, f"kiosk run ended (exit {proc.returncode}): {proc.stderr.read()[-2000:]}"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("args", [
    ["play", "--display", "headless:100000x100000", "--audio", "none", "--no-input", "{clip}"],
    ["snapshot", "{clip}", "--size", "100000x100000", "-o", "{out}"],
    ["bench", "{clip}", "--size", "20000x100"],
], ids=["play-headless", "snapshot", "bench"])
def test_a_screen_larger_than_drm_allows_is_a_usage_error(media: Path, tmp_path: Path, args: list[str]) -> None:
    """A side over 16384 asked for tens of gigabytes and stopped kiosk with Swift's allocation
    failure (exit 134); kiosk.conf refused it already."""
    result = run([a.format(clip=media / "clip.mp4", out=tmp_path / "x.png") for a in args])
    assert result.returncode == 2, (result.returncode, result.stderr[-1500:])
    assert "16384" in result.stderr and "Fatal error" not in result.stderr, result.stderr


def test_snapshot_never_writes_over_its_media(media: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.mp4"
    copy.write_bytes((media / "clip.mp4").read_bytes())
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    result = run(["snapshot", str(copy), "--size", "320x180", "-o", str(copy)])
    assert result.returncode == 2 and "would be overwritten" in result.stderr, result.stderr
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    negative = run(["snapshot", str(media / "clip.mp4"), "--size", "320x180", "--at", "-1", "-o", str(tmp_path / "y.png")])
    assert negative.returncode == 2 and "--at must be a number of seconds from 0" in negative.stderr, negative.stderr


def test_report_says_once_what_is_not_a_proof_of_play_file(media: Path, tmp_path: Path) -> None:
    good = tmp_path / "plays.jsonl"
    lines = ['{"item": 0, "path": "/m/a.mp4", "start": "2026-12-01T10:00:00+00:00", "seconds": 5, "outcome": "completed"}',
             '{"item": 0, "path": "/m/a.mp4", "start": "2026-12-01T10:01:00+00:00", "seconds": -5, "outcome": "completed"}',
             '{"item": 0, "path": "/m/a.mp4", "start": "2026-12-01T10:02:00+00:00", "seconds": 1e308, "outcome": "completed"}',
             '{"item": 0, "path": "/m/a.mp4", "start": "2026-12-01T10:03:00+00:00", "seconds": 1e308, "outcome": "completed"}']
    good.write_text("\n".join(lines) + "\n" + "garbage\n" * 30)
    result = run(["report", str(good), str(media / "clip.mp4"), str(tmp_path / "missing.jsonl"), str(tmp_path), "--csv"])
    assert result.returncode == 1, result.stderr
    errors = result.stderr.splitlines()
    assert sum(str(media / "clip.mp4") in e for e in errors) == 1 and "not a proof-of-play file" in result.stderr, errors[:5]
    assert f"cannot read {tmp_path / 'missing.jsonl'}: no such file" in result.stderr
    assert f"cannot read {tmp_path}: a folder, not a file" in result.stderr
    assert "line 2: seconds shown is -5, not 0 to 1e9; skipped" in result.stderr
    assert f"{good}: 23 more lines that are not play records; skipped" in result.stderr, errors
    rows = result.stdout.splitlines()
    assert rows[1:] == ["2026-12-01,0,/m/a.mp4,,1,1,5.000,,loop,"], rows   # the good file still reported, no inf


def test_play_stopped_by_sigterm_exits_zero_even_when_nothing_could_play(media: Path) -> None:
    proc = subprocess.Popen([str(KIOSK)] + PLAY + ["--loop", str(media / "zero.mp4")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, proc.stderr.read()[-1500:]
    once = run(PLAY + [str(media / "zero.mp4")])
    assert once.returncode == 1 and "nothing could be played" in once.stderr, once.stderr[-1500:]


def test_a_file_cut_short_is_said_once_and_plays_to_where_it_ends(tmp_path: Path) -> None:
    """A faststart mp4 whose copy stopped at 60 KB (its header says 6 s, its packets end near
    2 s) played its first seconds every pass without a word; now one warning for the run, and
    none for the whole file."""
    full, cut = tmp_path / "full.mp4", tmp_path / "cut.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6",
                    "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(full)], check=True)
    cut.write_bytes(full.read_bytes()[:60000])
    stats = tmp_path / "stats.jsonl"
    looped = run(PLAY + ["--loop", "--duration", "6", "--stats-file", str(stats), str(cut)])
    said = [line for line in looped.stderr.splitlines() if "cut short" in line]
    assert len(said) == 1, looped.stderr[-2000:]
    assert f"{cut}: the file ends at " in said[0] and "of the 6.0 s its header promises" in said[0], said
    shown = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    assert sum(1 for s in shown if s.get("video")) > 25, "it still plays to where it ends, looped"
    whole = run(PLAY + ["--duration", "8", str(full)])
    assert whole.returncode == 0 and "cut short" not in whole.stderr, whole.stderr[-2000:]


def test_probe_decodes_a_one_frame_video_as_playback_does(tmp_path: Path) -> None:
    """A one-frame H.264 mp4 plays as a video (its 0.04 s, hwdec as set), not as a picture
    (held for image_duration, always in software): probe said "a picture" for it."""
    one = tmp_path / "one.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25",
                    "-frames:v", "1", "-pix_fmt", "yuv420p", str(one)], check=True)
    text = run(["probe", str(one), "--config", "none", "--hwdec", "off"]).stdout
    assert "decoding: h264 in software (hwdec: off)" in text, text
    png = tmp_path / "one.png"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(one), str(png)], check=True)
    assert "(a picture: pictures always are)" in run(["probe", str(png), "--config", "none", "--hwdec", "off"]).stdout


def test_a_clip_whose_sound_outlasts_its_picture_is_not_cut_short_on_a_silent_box(tmp_path: Path) -> None:
    """Without sound only the picture is read; the container's length is the sound's (6 s of
    it under 2 s of picture): that is the file's own shape, not a cut."""
    clip = tmp_path / "long-sound.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2",
                    "-f", "lavfi", "-i", "sine=duration=6", "-pix_fmt", "yuv420p", "-c:a", "aac", str(clip)], check=True)
    silent = run(PLAY + ["--duration", "8", str(clip)])
    assert silent.returncode == 0 and "cut short" not in silent.stderr, silent.stderr[-2000:]


def png_sized(source: Path, target: Path, width: int, height: int) -> None:
    """`source` with its IHDR saying width x height (CRC fixed): a header FFmpeg cannot decode."""
    data = bytearray(source.read_bytes())
    assert data[12:16] == b"IHDR", data[:16]
    data[16:24] = width.to_bytes(4, "big") + height.to_bytes(4, "big")
    data[29:33] = zlib.crc32(bytes(data[12:29])).to_bytes(4, "big")
    target.write_bytes(bytes(data))


def test_probe_exits_1_for_a_picture_kiosk_would_not_show(media: Path, tmp_path: Path) -> None:
    """A 20 MP PNG and one whose header says 60000x60000 printed 'cannot decode' and exited 0,
    and the JSON said decodable: true, isStillImage: false, 25 fps and width 0 beside it. Now
    exit 1 (a media error, as README says), the reason still printed, and the JSON agrees."""
    big, huge = tmp_path / "big.png", tmp_path / "huge.png"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=5000x4000",
                    "-frames:v", "1", str(big)], check=True)
    png_sized(media / "still.png", huge, 60000, 60000)
    for picture, reason in [(big, "picture is 5000x4000 (20.0 MP); kiosk shows PNG and WebP stills up to 16 MP"),
                            (huge, "60000x60000")]:
        text = run(["probe", str(picture), "--config", "none"])
        said = [line.strip() for line in text.stdout.splitlines() if "decoding: " in line]
        assert text.returncode == 1, (picture.name, text.returncode, text.stdout, text.stderr[-1000:])
        assert len(said) == 1 and said[0].startswith("decoding: cannot decode: ") and reason in said[0], text.stdout
        assert "no decoder in this FFmpeg" not in text.stdout, text.stdout
        answer = run(["probe", str(picture), "--config", "none", "--json"])
        assert answer.returncode == 1, answer.stderr[-1000:]
        video = json.loads(answer.stdout)["streams"][0]
        assert video["decodable"] is False and video["decoding"].startswith("cannot decode: "), video
        assert video["isStillImage"] is True and "frameRate" not in video, video
    assert "width" not in video and "height" not in video, video   # huge.png's size unread: not 0
    fine = run(["probe", str(media / "still.png"), "--config", "none", "--json"])
    assert fine.returncode == 0, fine.stderr[-1000:]
    still = json.loads(fine.stdout)["streams"][0]
    assert still["decodable"] is True and still["isStillImage"] is True and "frameRate" not in still, still
    assert (still["width"], still["height"]) == (320, 180), still
    clip = json.loads(run(["probe", str(media / "clip.mp4"), "--config", "none", "--json"]).stdout)["streams"][0]
    assert clip["isStillImage"] is False and clip["frameRate"] == {"numerator": 25, "denominator": 1}, clip


def test_schedule_names_a_day_that_does_not_exist_and_an_unknown_tz(media: Path, tmp_path: Path) -> None:
    """--at 2026-02-30 was 'not an ISO 8601 time'; TZ=Nowhere/Bogus was read as UTC without a word."""
    conf = tmp_path / "kiosk.conf"
    conf.write_text(f"display:\n  output: headless\nitems: [{media / 'clip.mp4'}]\n")
    missing = run(["schedule", "--config", str(conf), "--at", "2026-02-30T10:00:00"])
    assert missing.returncode == 2 and "February 2026 has no day 30" in missing.stderr, missing.stderr
    bogus = subprocess.run([str(KIOSK), "schedule", "--config", str(conf), "--at", "2026-02-03T10:00:00"], capture_output=True,
                           text=True, timeout=60, env={**os.environ, "TZ": "Nowhere/Bogus"})
    said = [line for line in bogus.stderr.splitlines() if "TZ" in line]
    assert bogus.returncode == 0 and len(said) == 1 and "'Nowhere/Bogus'" in said[0] and "Etc/UTC" in said[0], bogus.stderr
    known = subprocess.run([str(KIOSK), "schedule", "--config", str(conf)], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "TZ": "Europe/Berlin"})
    assert known.returncode == 0 and "TZ" not in known.stderr, known.stderr
