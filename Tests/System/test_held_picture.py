"""A picture held while the sound plays on (HeldPicture, SeamTiming.soundTail), on the host,
headless, the sound recorded with the file sink (`--audio file:PATH.wav`):

- a song with its cover (an MP3 with an attached MJPEG picture, as nearly every song a shop's
  music folder holds): the cover is shown, the whole song is heard, and the next item follows
  the song's end. Before, the cover never came out of the frame-threaded decoder until the
  file's end, the clock waited for it with the sound, and the item was skipped as stalled;
- a clip whose picture ends 2 s in while its sound runs 16 s (a slideshow exported shorter than
  its music): the last frame holds and the sound is heard to its end. Before, a tail the sound
  queue could not hold ran the picture dry, the clock stopped with the sound, and the item was
  skipped as stalled; a shorter one was cut a frame after the picture;
- a seek into each: the song from 9 s shows its cover again and plays on; the clip from 12 s,
  where only sound is left, shows its last frame and plays on;
- an ordinary clip after them starts at the end of the sound, not of the picture.

The songs are 16 s: longer than the ~10 s of sound the demuxer queues ahead, so the picture's
end is found while the sound plays, not only at the end of the file."""
import json
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from control_client import ControlClient, wait_until
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

SECONDS = 16
RATE = 48000


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    directory = tmp_path_factory.mktemp("held-picture")
    song = directory / "song.mp3"
    ffmpeg("-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=44100:duration={SECONDS}",
           "-f", "lavfi", "-i", "smptehdbars=size=300x300:duration=0.04", "-map", "0", "-map", "1",
           "-c:a", "libmp3lame", "-c:v", "mjpeg", "-disposition:v", "attached_pic", song)
    slideshow = directory / "slideshow.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
           "-f", "lavfi", "-i", f"sine=frequency=660:sample_rate=48000:duration={SECONDS}",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", slideshow)
    after = directory / "after.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", after)
    return song, slideshow, after


def play(tmp_path: Path, files, seek_to=None, watch=None):
    """`kiosk play FILES`; with `seek_to` {item: seconds}, each item is sought there once its
    first frame is up; `watch(client)` runs once the first item's picture is up. The stats
    lines, the log and the recording's samples (mono)."""
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    stats, recording, sock = tmp_path / "stats.jsonl", tmp_path / "sound.wav", tmp_path / "ctl.sock"
    process = subprocess.Popen([str(KIOSK), "play", *map(str, files), "--display", "headless:320x240", "--no-input",
                                "--audio", f"file:{recording}", "--stats-file", str(stats), "--control-socket", str(sock)],
                               stderr=subprocess.PIPE, text=True)
    try:
        if watch:
            assert wait_until(lambda: any(r.get("item") == 0 for r in records(stats)), timeout=120), "no first picture"
            client = ControlClient(sock)
            watch(client)
            client.close()
        for item, seconds in (seek_to or {}).items():
            assert wait_until(lambda: any(r.get("item") == item for r in records(stats)), timeout=120), \
                f"item {item} never began"
            client = ControlClient(sock)
            client.ok("seek", seconds)
            client.close()
        log = process.communicate(timeout=240)[1]
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, log
    with wave.open(str(recording)) as w:
        assert w.getframerate() == RATE
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).reshape(-1, w.getnchannels())[:, 0]
    return records(stats), log, samples


def records(stats: Path):
    if not stats.exists():
        return []
    return [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")]


def first_flip(stats, item):
    return next(r for r in stats if r.get("item") == item and r.get("video"))


def tone_seconds(samples, frequency):
    """How many seconds of the recording carry `frequency` (10 ms windows, Hann, one bin)."""
    window = 480
    count = len(samples) // window
    blocks = samples[:count * window].reshape(count, window).astype(np.float64) / 32768 * np.hanning(window)
    level = np.abs(blocks @ np.exp(-2j * np.pi * frequency * np.arange(window) / RATE))
    return float(np.sum(level > 3)) / 100   # ffmpeg's sine is 1/8 full scale: a full window reads ~15


def the_song_goes_on_to_its_watchers(client):
    """While the cover is held (no frame comes for seconds), the loop keeps its turns: the time
    events go out and `get time` moves with the sound."""
    ticks = client.time_events_within(4.5)
    assert len(ticks) >= 3, f"time events while the cover was held: {ticks}"
    assert ticks[-1]["time"] - ticks[0]["time"] >= 1.5, ticks
    assert client.ok("get", "time") >= 3.5


def test_the_song_and_the_long_sound_play_to_their_end_over_their_held_picture(tmp_path, media):
    song, slideshow, after = media
    stats, log, samples = play(tmp_path, [song, slideshow, after], watch=the_song_goes_on_to_its_watchers)
    assert "skipping item" not in log and "stalled" not in log, log[-3000:]
    cover = [r for r in stats if r.get("item") == 0 and r.get("video")]
    assert cover, f"the cover never shown: {stats[:5]}"
    song_length = first_flip(stats, 1)["t"] - cover[0]["t"]
    slideshow_length = first_flip(stats, 2)["t"] - first_flip(stats, 1)["t"]
    # The next item follows the sound's end (a seam's frame and the clock's rounding aside).
    assert SECONDS - 0.5 <= song_length <= SECONDS + 1.0, f"the song's item lasted {song_length:.2f} s: {log[-2000:]}"
    assert SECONDS - 0.5 <= slideshow_length <= SECONDS + 1.0, f"the slideshow lasted {slideshow_length:.2f} s: {log[-2000:]}"
    pictures = [r["pts"] for r in stats if r.get("item") == 1 and r.get("video")]
    assert max(pictures) < 2.0, f"the slideshow's picture is 2 s: {pictures[-3:]}"
    heard_song, heard_slideshow = tone_seconds(samples, 440), tone_seconds(samples, 660)
    assert heard_song >= SECONDS - 0.5, f"the song heard for {heard_song:.2f} s of {SECONDS}"
    assert heard_slideshow >= SECONDS - 0.5, f"the slideshow's sound heard for {heard_slideshow:.2f} s of {SECONDS}"


def test_a_seek_into_the_song_or_the_sound_alone_shows_the_picture_and_plays_on(tmp_path, media):
    song, slideshow, after = media
    stats, log, samples = play(tmp_path, [song, slideshow, after], seek_to={0: 9, 1: 12})
    assert "skipping item" not in log and "stalled" not in log, log[-3000:]
    # After each seek the held picture is on screen again at the time sought, and the item
    # plays on to its sound's end from there.
    for item, target in ((0, 9), (1, 12)):
        shown = [r["pts"] for r in stats if r.get("item") == item and r.get("video") and r["pts"] >= target - 0.1]
        assert shown, f"item {item}: no picture at or after {target} s: {[r for r in stats if r.get('item') == item][-3:]}"
    song_rest = first_flip(stats, 1)["t"] - first_flip(stats, 0)["t"]
    slideshow_rest = first_flip(stats, 2)["t"] - first_flip(stats, 1)["t"]
    assert song_rest < SECONDS - 3, f"the song did not skip ahead: {song_rest:.2f} s"
    assert slideshow_rest < SECONDS - 6, f"the slideshow did not skip ahead: {slideshow_rest:.2f} s"
    assert tone_seconds(samples, 440) >= SECONDS - 9 - 1, "the song's rest heard after the seek"
    assert tone_seconds(samples, 660) >= SECONDS - 12 - 1, "the slideshow's rest heard after the seek"
