"""Read the PNG files QEMU's screendump writes, with the standard library only.

QEMU writes 8-bit, non-interlaced RGB or RGBA PNGs; that is what this reads
(grey and palette images too, since they cost nothing; 16-bit and interlaced
images are refused with a clear error). Tests use it to check pixels without
Pillow:

    img = read_png("shot.png")
    img.width, img.height        # size in pixels
    img.pixel(10, 20)            # (r, g, b) -- alpha is dropped
    img.rows[20]                 # bytes of row 20, img.channels bytes a pixel
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# colour type -> channels per pixel
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


class PngError(ValueError):
    """The file is not a PNG this reader understands."""


class PngImage:
    """A decoded image: width, height, channels and rows of unfiltered bytes."""

    def __init__(self, width: int, height: int, color_type: int,
                 rows: list[bytes], palette: bytes | None = None):
        self.width = width
        self.height = height
        self.color_type = color_type
        self.channels = _CHANNELS[color_type]
        self.rows = rows
        self._palette = palette

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        """The (r, g, b) colour at column x, row y (alpha, if any, dropped)."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) outside {self.width}x{self.height} image")
        c = self.channels
        p = self.rows[y][x * c:(x + 1) * c]
        if self.color_type == 3:  # palette index
            i = p[0] * 3
            return tuple(self._palette[i:i + 3])  # type: ignore[return-value,index]
        if c <= 2:  # grey, grey + alpha
            return (p[0], p[0], p[0])
        return (p[0], p[1], p[2])

    def __iter__(self):
        """Unpacks as (width, height, rows)."""
        return iter((self.width, self.height, self.rows))

    def __repr__(self) -> str:
        return f"PngImage({self.width}x{self.height}, {self.channels} channels)"


def read_png(path: str | Path) -> PngImage:
    """Decode an 8-bit non-interlaced PNG file into a PngImage."""
    data = Path(path).read_bytes()
    if not data.startswith(PNG_SIGNATURE):
        raise PngError(f"{path}: not a PNG file")
    pos = len(PNG_SIGNATURE)
    header = None
    palette = None
    idat = []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise PngError(f"{path}: bad CRC in {kind!r} chunk (truncated file?)")
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise PngError(f"{path}: no IHDR chunk")
    width, height, depth, color_type, _compression, _filter, interlace = header
    if depth != 8 or color_type not in _CHANNELS:
        raise PngError(f"{path}: only 8-bit PNGs are supported "
                       f"(bit depth {depth}, colour type {color_type})")
    if interlace:
        raise PngError(f"{path}: interlaced PNGs are not supported")
    if color_type == 3 and palette is None:
        raise PngError(f"{path}: palette image without PLTE chunk")
    raw = zlib.decompress(b"".join(idat))
    bpp = _CHANNELS[color_type]
    rows = _unfilter(raw, width * bpp, height, bpp, path)
    return PngImage(width, height, color_type, rows, palette)


def _unfilter(raw: bytes, stride: int, height: int, bpp: int, path) -> list[bytes]:
    """Undo PNG's per-row filters (types 0-4, PNG spec section 9)."""
    if len(raw) < (stride + 1) * height:
        raise PngError(f"{path}: image data too short")
    rows: list[bytes] = []
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = raw[start + 1:start + 1 + stride]
        if ftype == 0:
            cur = bytes(line)
        elif ftype == 1:
            cur = _sub(line, bpp)
        elif ftype == 2:
            cur = _up(line, prev)
        elif ftype == 3:
            cur = _average(line, prev, bpp)
        elif ftype == 4:
            cur = _paeth(line, prev, bpp)
        else:
            raise PngError(f"{path}: unknown filter type {ftype} in row {y}")
        rows.append(cur)
        prev = cur
    return rows


# Adding two byte strings bytewise (mod 256) with one big-int addition: the low
# seven bits of every byte are summed without carrying into the next byte, and
# the top bits are restored with XOR. Much faster than a Python loop.
def _up(line: bytes, prev: bytes) -> bytes:
    n = len(line)
    low = int.from_bytes(b"\x7f" * n, "big")
    high = int.from_bytes(b"\x80" * n, "big")
    a = int.from_bytes(line, "big")
    b = int.from_bytes(prev, "big")
    return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")


def _sub(line: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for i in range(bpp, len(out)):
        out[i] = (out[i] + out[i - bpp]) & 0xFF
    return bytes(out)


def _average(line: bytes, prev: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
    return bytes(out)


def _paeth(line: bytes, prev: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        if pa <= pb and pa <= pc:
            pred = a
        elif pb <= pc:
            pred = b
        else:
            pred = c
        out[i] = (out[i] + pred) & 0xFF
    return bytes(out)
