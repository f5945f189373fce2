"""A file's own frame times kept when they are merely uneven (issue 34), on the host: a GIF
and an MP4 with variable frame durations (made here with ffmpeg: 100 ms frames, then a 500 ms
and a 600 ms hold at the end, where a real 45-frame GIF lost its last delays) play headless,
and every frame's presented media time in kiosk's stats file is ffprobe's time for that frame.
A damaged file's frozen-screen timestamps are test_hostile's; this is the opposite promise."""
import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KIOSK = REPO / ".build" / "debug" / "kiosk"

# Frame N at N/10 s, then frame 12 held 500 ms and frame 13 600 ms (more than four of the
# stream's 100 ms steps, as the real GIF's 300 and 330 ms holds were of its 70 ms): 1.7 and 2.3 s.
SETPTS = "setpts='(N*0.1+gte(N\\,13)*0.4+gte(N\\,14)*0.5)/TB'"
EXPECTED = [round(n * 0.1, 3) for n in range(13)] + [1.7, 2.3]


def make(path: Path, codec):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1.5",
                    "-vf", SETPTS, "-fps_mode", "passthrough", *codec, str(path)], check=True)
    return path


def probed_times(path: Path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                          "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout
    return [round(float(frame["pts_time"]), 3) for frame in json.loads(out)["frames"]]


@pytest.mark.parametrize("name, codec", [
    ("uneven.gif", []),
    ("uneven.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-video_track_timescale", "1000"]),
])
def test_uneven_frame_times_are_the_files_own_to_the_last_frame(tmp_path, name, codec):
    if not KIOSK.exists():
        pytest.fail(f"{KIOSK} is missing: run swift build first")
    clip = make(tmp_path / name, codec)
    source = probed_times(clip)
    assert source == EXPECTED, f"ffmpeg made other times than meant: {source}"
    stats = tmp_path / "stats.jsonl"
    result = subprocess.run([str(KIOSK), "play", str(clip), "--display", "headless:160x120", "--audio", "none",
                             "--no-input", "--stats-file", str(stats)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    frames = [json.loads(line) for line in stats.read_text().splitlines() if line.endswith("}")]
    shown = [round(frame["pts"], 3) for frame in frames if frame.get("video") and frame["item"] == 0]
    assert shown == source, f"presented {shown}, the file says {source}"
    assert "timestamp" not in result.stderr.lower(), result.stderr
