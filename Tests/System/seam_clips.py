"""Small test clips (seam tests headless and in the bed, service and signal tests): testsrc2 pictures, with or
without a sine tone, made with ffmpeg at test time."""
import subprocess
from pathlib import Path


def make_clip(directory: Path, name, size, fps, seconds, sound, gop=None) -> Path:
    """`gop`: frames between keyframes (x264's default otherwise)."""
    path = directory / name
    args = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi",
            "-i", f"testsrc2=size={size}:rate={fps}:duration={seconds}"]
    if sound:
        args += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}", "-c:a", "aac"]
    args += ["-c:v", "libx264", "-preset", "ultrafast"] + (["-g", str(gop)] if gop else []) + ["-pix_fmt", "yuv420p", str(path)]
    subprocess.run(args, check=True)
    return path
