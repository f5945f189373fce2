"""Decoded frames are released as soon as they are shown (host, headless): kiosk's peak RSS
playing a 720p clip for 4 s is about what it is after 1 s. A queue that kept popped frames
referenced (BoundedQueue did, until its array was compacted every 64 pops) held ~65 decoded
frames: +90 MB at 720p, +200 MB at 1080p, growing over the first two seconds."""
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)


def peak_rss_mb(clip: Path, seconds: float) -> float:
    process = subprocess.Popen([str(KIOSK), "play", str(clip), "--display", "headless:640x360", "--audio", "none",
                                "--no-input", "--duration", str(seconds)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, process.stderr.read().decode()
    return usage.ru_maxrss / 1024


def test_peak_memory_does_not_grow_with_frames_shown(tmp_path):
    assert KIOSK.exists(), f"{KIOSK} is missing: run swift build first"
    clip = tmp_path / "720p.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=5",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(clip)], check=True)
    early, late = peak_rss_mb(clip, 1), peak_rss_mb(clip, 4)
    # 90 frames more shown; each decoded frame is 1.4 MB. Allow a few frames' worth of slack.
    assert late - early < 15, f"peak RSS {early:.1f} MB after 1 s, {late:.1f} MB after 4 s"
