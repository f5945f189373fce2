"""Hostile media, made at test time (issue 7, "Hostile inputs and faults"): files a signage box
meets in the field when a USB stick is pulled, an upload is cut short or someone drops the wrong
file in the folder. Each maker writes one file and returns its path; `EXPECTED_FAILURES` names
the ones that can never play, so the test can ask for exactly one log line per pass for them."""
import os
import random
import signal
import struct
import subprocess
import zlib
from pathlib import Path


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *map(str, args)], check=True)


def good_clip(path: Path, seconds=1.0, size="320x240", rate=25, sound=True, pattern="testsrc2", faststart=True):
    """A small H.264 clip (+ AAC sound); faststart so a truncated copy still has its index
    (without: the index is written last, as a camera or a plain `ffmpeg -i ... out.mp4` does)."""
    args = ["-f", "lavfi", "-i", f"{pattern}=size={size}:rate={rate}:duration={seconds}"]
    if sound:
        args += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}", "-c:a", "aac"]
    ffmpeg(*args, "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p",
           *(["-movflags", "+faststart"] if faststart else []), path)
    return path


def truncated(source: Path, path: Path, fraction: float):
    data = source.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])
    return path


def zero_bytes(path: Path):
    path.write_bytes(b"")
    return path


def random_bytes(path: Path, seed: int, size=64 * 1024):
    path.write_bytes(random.Random(seed).randbytes(size))
    return path


def named_pipe(path: Path):
    """A FIFO with no writer, as a misbehaving sync tool leaves: opening it would block."""
    os.mkfifo(path)
    return path


def text_file(path: Path):
    path.write_text("This is a shopping list, not a video.\nmilk\neggs\n" * 20)
    return path


def unsupported_codec(path: Path):
    """a64multi (Commodore 64 multicolour): this FFmpeg encodes it but has no decoder for it."""
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=320x200:rate=25:duration=1", "-c:v", "a64multi", "-f", "nut", path)
    return path


def huge_png(path: Path, side=16384):
    """A valid 16384x16384 1-bit greyscale PNG: ~32 MiB of pixels, a few KiB on disk."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    row = b"\x00" + b"\x00" * (side // 8)
    pixels = zlib.compress(row * side, 9)
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))
    return path


def huge_video(path: Path, side=16384):
    """A y4m stream whose header says 16384x16384 (the frame data is not there)."""
    path.write_bytes(f"YUV4MPEG2 W{side} H{side} F25:1 Ip A1:1 C420jpeg\nFRAME\n".encode() + b"\x80" * 4096)
    return path


def corrupt_middle(source: Path, path: Path, seed: int):
    """A good clip with 16 bytes of noise every KiB or so of its middle third: the decoder
    meets damaged packets (and the demuxer a few broken blocks) and must carry on to the end."""
    data = bytearray(source.read_bytes())
    noise = random.Random(seed)
    start, end = len(data) // 3, 2 * len(data) // 3
    for offset in range(start, end, 997):
        data[offset:offset + 16] = noise.randbytes(16)
    path.write_bytes(bytes(data))
    return path


def joined_transport_streams(path: Path, offsets=(0, 3600)):
    """Two 1 s MPEG-TS recordings joined with `cat`, the second one's clock `offsets` seconds
    on (or back): the timestamps jump by an hour in the middle, as in a cut-and-joined capture."""
    parts = []
    for number, offset in enumerate(offsets):
        part = path.with_name(f"{path.stem}-part{number}.ts")
        ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "aac",
               "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
               "-output_ts_offset", str(offset), "-f", "mpegts", part)
        parts.append(part.read_bytes())
        part.unlink()
    path.write_bytes(b"".join(parts))
    return path


def audio_only(path: Path):
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "aac", path)
    return path


def overwrite_with_garbage(path: Path, seed: int):
    """Replaces the file's content in place (same inode, as a careless copy does)."""
    size = max(4096, path.stat().st_size)
    with open(path, "r+b") as handle:
        handle.write(random.Random(seed).randbytes(size))
        handle.truncate(size)


def replace_atomically(path: Path, source: Path):
    """Replaces the file by another valid clip, as a sync tool does (write aside, rename)."""
    temporary = path.with_name(path.name + ".part")
    temporary.write_bytes(source.read_bytes())
    os.replace(temporary, path)


def stop(process: subprocess.Popen, timeout=30):
    """SIGTERM, as systemd stops the service; (stdout, stderr) once kiosk has exited. One that
    does not stop in time is killed, and its exit code (-9) then says so."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()
