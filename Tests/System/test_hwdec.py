"""`playback.hwdec` (host, headless): kiosk play --hwdec auto plays every frame of each item whether
or not the box has a decoder block, and says once per codec what became of the hardware choice: on
a box with no device (CI, this host) each way's reason and "decoding in software"; a second item
of the same codec, and the next pass of the loop, say nothing more."""
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
from built_kiosk import KIOSK  # noqa: E402  (the release kiosk deploy/test built, else the newest build)


def test_auto_plays_every_frame_and_says_once_per_codec_why(tmp_path):
    assert KIOSK.exists(), f"{KIOSK} is missing: run swift build first"
    clips = []
    for name, codec in [("a.mp4", "libx264"), ("b.mp4", "libx264"), ("c.mkv", "libx265")]:
        clip = tmp_path / name
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                        "-c:v", codec, "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
                       + (["-x265-params", "log-level=error"] if codec == "libx265" else []) + [str(clip)], check=True)
        clips.append(str(clip))
    stats = tmp_path / "stats.jsonl"
    run = subprocess.run([str(KIOSK), "play", *clips, *clips, "--hwdec", "auto", "--display", "headless:320x240",
                          "--audio", "none", "--no-input", "--stats-file", str(stats), "--untimed"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in stats.read_text().splitlines()]
    shown = {}
    for line in lines:
        shown[line["item"]] = shown.get(line["item"], 0) + 1
    assert shown == {index: 25 for index in range(6)}, shown
    said = [line for line in run.stderr.splitlines() if "hardware decoding" in line]
    assert len(said) == 2, "\n".join(said)   # h264 once (a.mp4), hevc once (c.mkv)
    for line, codec, clip in zip(said, ["h264", "hevc"], [clips[0], clips[2]]):
        assert clip in line, line
        if "hardware decoding: " not in line:   # a box with a device decodes there instead
            assert f"hardware decoding (hwdec: auto) not available for {codec}: vaapi: " in line, line
            assert line.endswith("; decoding in software"), line


def test_probe_says_how_each_video_stream_would_decode(tmp_path):
    """kiosk probe FILE --hwdec MODE: the decoder opened as playback opens it, and its outcome said
    per video stream (text and JSON); the audio stream gets no such line."""
    assert KIOSK.exists(), f"{KIOSK} is missing: run swift build first"
    clip = tmp_path / "main10.mkv"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                    "-f", "lavfi", "-i", "sine=duration=1", "-c:v", "libx265", "-x265-params", "log-level=error",
                    "-pix_fmt", "yuv420p10le", "-c:a", "flac", str(clip)], check=True)
    text = subprocess.run([str(KIOSK), "probe", str(clip), "--hwdec", "auto"], capture_output=True, text=True, timeout=60,
                          check=True).stdout
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("decoding: ")]
    assert len(lines) == 1, text   # the video stream only
    said = lines[0].removeprefix("decoding: ")
    if not said.startswith("hardware decoding: "):   # a box with a device decodes there instead
        assert said.startswith("hardware decoding (hwdec: auto) not available for hevc: vaapi: "), said
        assert said.endswith("; decoding in software"), said
    off = json.loads(subprocess.run([str(KIOSK), "probe", str(clip), "--hwdec", "off", "--json"],
                                    capture_output=True, text=True, timeout=60, check=True).stdout)
    by_kind = {s["kind"]: s for s in off["streams"]}
    assert by_kind["video"]["decoding"] == "hevc in software (hwdec: off)"
    assert "decoding" not in by_kind["audio"]
    # Without kiosk.conf, as `kiosk run` would play it: hwdec off (probe once said auto's outcome).
    unset = subprocess.run([str(KIOSK), "probe", str(clip), "--config", "none"], capture_output=True, text=True, timeout=60,
                           check=True).stdout
    assert "decoding: hevc in software (hwdec: off)" in unset and "settings: none (--config none)" in unset, unset
    assert "Default: kiosk.conf's, else off" in " ".join(subprocess.run([str(KIOSK), "probe", "--help"], capture_output=True,
                                                                        text=True, timeout=60).stdout.split())
    bad = subprocess.run([str(KIOSK), "probe", str(clip), "--hwdec", "quicksync"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "quicksync" in bad.stderr
