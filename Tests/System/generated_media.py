"""Media the system tests make at test time (nothing large is committed): FFmpeg, quietly."""
import subprocess


def ffmpeg(*args):
    """Runs ffmpeg with `args` (inputs, filters, the output path), overwriting; fails the test
    on error."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)
