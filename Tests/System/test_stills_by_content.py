"""Stills whose name does not say what they are (PlaylistExpander.pictureByContent,
StillSignature), played on the host, headless, each for `--image-duration`:

- a GIF of one picture (a poster or logo exported as GIF): before, a GIF was always a video,
  and a one-picture GIF was up for its one frame's delay (0.1 s), not `image_duration`;
- a JPEG with no extension (a CMS's download, `asset_1234`): before, a one-frame video;
- a PNG behind an http URL with a query (`menu.png?v=3`): before, every URL was a video;
- an animated WebP plays its frames for their own times (libwebpdemux, WebPAnimationReader):
  before, it was refused (FFmpeg 5.1 and 7.1 decode WebP stills only);
- and, as before, an animated GIF plays its frames for their own delays, and an MP4 with no
  extension plays as the video it is."""
import functools
import http.server
import json
import subprocess
import threading
from pathlib import Path

import pytest

from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)

IMAGE_SECONDS = 2.0


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    directory = tmp_path_factory.mktemp("stills-by-content")
    ffmpeg("-f", "lavfi", "-i", "smptehdbars=size=320x240", "-frames:v", "1", directory / "poster.gif")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", "-c:v", "mjpeg", "-f", "image2",
           directory / "asset_1234")
    ffmpeg("-f", "lavfi", "-i", "smptebars=size=320x240", "-frames:v", "1", directory / "menu.png")
    # 10 pictures at 5 a second: 2 s of animation, its frames' own delays.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=5", "-frames:v", "10", directory / "moving.gif")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=5", "-frames:v", "10", "-c:v", "libwebp_anim", "-loop", "0",
           directory / "moving.webp")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", "-f", "mp4", directory / "clip_download")
    return directory


@pytest.fixture(scope="module")
def server(media):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(media))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def records(stats: Path):
    if not stats.exists():
        return []
    return [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")]


def median_step(records):
    """The median time between one frame's media time and the next's."""
    steps = sorted(b["pts"] - a["pts"] for a, b in zip(records, records[1:]))
    return steps[len(steps) // 2] if steps else 0.0


def test_stills_are_known_by_their_bytes(tmp_path, media, server):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    items = [media / "poster.gif", media / "asset_1234", f"{server}/menu.png?v=3", media / "moving.gif",
             media / "moving.webp", media / "clip_download"]
    stats = tmp_path / "stats.jsonl"
    result = subprocess.run([str(KIOSK), "play", *map(str, items), "--display", "headless:320x240", "--no-input",
                             "--audio", "none", "--image-duration", str(IMAGE_SECONDS), "--stats-file", str(stats)],
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    lines = records(stats)
    starts = {}
    for record in lines:
        starts.setdefault(record["item"], record["t"])
    assert sorted(starts) == [0, 1, 2, 3, 4, 5], f"items shown: {sorted(starts)}\n{result.stderr}"
    lengths = [starts[i + 1] - starts[i] for i in range(5)]
    for index, name in enumerate(["the one-picture GIF", "the JPEG named without an extension", "the PNG URL"]):
        assert IMAGE_SECONDS - 0.1 <= lengths[index] <= IMAGE_SECONDS + 1.0, \
            f"{name} was up {lengths[index]:.2f} s, not the image duration; lengths {lengths}\n{result.stderr}"
    # The animation keeps its own frames and delays: 10 frames over ~2 s.
    animation = [r for r in lines if r["item"] == 3]
    assert len(animation) >= 8, f"the animated GIF showed {len(animation)} frames\n{result.stderr}"
    assert 1.6 <= lengths[3] <= 3.0, f"the animated GIF lasted {lengths[3]:.2f} s"
    assert 0.15 <= median_step(animation) <= 0.25, [r["pts"] for r in animation]
    # So does the animated WebP: 10 frames over 2 s, each its own picture.
    webp = [r for r in lines if r["item"] == 4]
    assert len(webp) >= 8, f"the animated WebP showed {len(webp)} frames\n{result.stderr}"
    assert 1.6 <= lengths[4] <= 3.0, f"the animated WebP lasted {lengths[4]:.2f} s"
    # Each frame up for its own 0.2 s (the first version raced through them at every refresh,
    # the presenter taking its 0.2 s steps for a drift).
    assert 0.15 <= median_step(webp) <= 0.25, [r["pts"] for r in webp]
    assert "follows the clock" not in result.stderr, result.stderr
    # The extensionless MP4 plays as a video: its 25 frames.
    assert len([r for r in lines if r["item"] == 5]) >= 20, result.stderr
    assert "stalled" not in result.stderr and "error" not in result.stderr.lower(), result.stderr
