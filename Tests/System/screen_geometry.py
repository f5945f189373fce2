"""Where kiosk must put a picture on the screen, and how to find it in a screendump.

The layout rules are GravityLayout's (Sources/KioskBasics/Geometry/VideoGravity.swift), written
again here on purpose: the system tests check kiosk's geometry against an independent reading
of the rules, not against kiosk's own arithmetic.

- fit: scale by the smaller ratio, round to whole pixels, center; an odd remainder goes
  right/bottom (the left/top bar is the floor of half).
- fill: scale by the larger ratio, crop the picture centered (floor of half on the left/top),
  fill the whole screen.
- stretch: the whole picture on the whole screen.
- rotation: the picture is turned clockwise first, then laid out (90: the source's top-left
  corner ends up top-right).

Rectangles are (x0, y0, x1, y1) in continuous pixel coordinates, x1/y1 exclusive.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "vm"))

from bed import read_png  # noqa: E402

Rect = tuple[float, float, float, float]

PALETTE = {
    "black": (0, 0, 0), "gray": (0x80, 0x80, 0x80), "magenta": (0xFF, 0, 0xFF),
    "red": (0xFF, 0, 0), "green": (0, 0xFF, 0), "blue": (0, 0, 0xFF), "yellow": (0xFF, 0xFF, 0),
}
BORDER, SQUARE = 8, 48


def pattern_filter(width: int, height: int, rate: int = 25, seconds: float = 1) -> str:
    """The lavfi source of Tests/Support/MediaFixtures.swift `patternFilter`: gray field,
    8 px magenta border, 48 px corner squares red TL, green TR, blue BL, yellow BR."""
    return (f"color=c=0x808080:s={width}x{height}:r={rate}:d={seconds},"
            "drawbox=x=0:y=0:w=iw:h=ih:color=0xFF00FF:t=8,"
            "drawbox=x=8:y=8:w=48:h=48:color=0xFF0000:t=fill,"
            "drawbox=x=iw-56:y=8:w=48:h=48:color=0x00FF00:t=fill,"
            "drawbox=x=8:y=ih-56:w=48:h=48:color=0x0000FF:t=fill,"
            "drawbox=x=iw-56:y=ih-56:w=48:h=48:color=0xFFFF00:t=fill")


def pattern_features(width: int, height: int) -> list[tuple[str, str, Rect]]:
    """(name, colour, source rectangle) of every feature of the pattern."""
    far_x, far_y, end = width - BORDER - SQUARE, height - BORDER - SQUARE, BORDER + SQUARE
    return [
        ("top-left square", "red", (BORDER, BORDER, end, end)),
        ("top-right square", "green", (far_x, BORDER, width - BORDER, end)),
        ("bottom-left square", "blue", (BORDER, far_y, end, height - BORDER)),
        ("bottom-right square", "yellow", (far_x, far_y, width - BORDER, height - BORDER)),
        ("top border", "magenta", (0, 0, width, BORDER)),
        ("bottom border", "magenta", (0, height - BORDER, width, height)),
        ("left border", "magenta", (0, 0, BORDER, height)),
        ("right border", "magenta", (width - BORDER, 0, width, height)),
    ]


def _round(value: float) -> int:
    return math.floor(value + 0.5)   # Swift's .rounded(): halves away from zero (all positive here)


def rotate_rect(rect: Rect, size: tuple[int, int], degrees: int) -> Rect:
    """`rect` of a picture of `size` after turning the picture clockwise by `degrees`."""
    x0, y0, x1, y1 = rect
    w, h = size
    return {0: (x0, y0, x1, y1), 90: (h - y1, x0, h - y0, x1),
            180: (w - x1, h - y1, w - x0, h - y0), 270: (y0, w - x1, y1, w - x0)}[degrees]


@dataclass(frozen=True)
class Layout:
    source: tuple[int, int]
    rotation: int
    crop: Rect           # in the turned picture
    destination: Rect    # on the screen

    def to_screen(self, rect: Rect) -> Rect | None:
        """Where a source rectangle lands on the screen; None when the crop cuts it off."""
        x0, y0, x1, y1 = rotate_rect(rect, self.source, self.rotation)
        cx0, cy0, cx1, cy1 = self.crop
        x0, y0, x1, y1 = max(x0, cx0), max(y0, cy0), min(x1, cx1), min(y1, cy1)
        if x0 >= x1 or y0 >= y1:
            return None
        dx0, dy0, dx1, dy1 = self.destination
        sx, sy = (dx1 - dx0) / (cx1 - cx0), (dy1 - dy0) / (cy1 - cy0)
        return (dx0 + (x0 - cx0) * sx, dy0 + (y0 - cy0) * sy, dx0 + (x1 - cx0) * sx, dy0 + (y1 - cy0) * sy)


def gravity_layout(source: tuple[int, int], rotation: int, target: tuple[int, int], gravity: str) -> Layout:
    w, h = (source[1], source[0]) if rotation in (90, 270) else source
    tw, th = target
    crop: Rect = (0, 0, w, h)
    destination: Rect = (0, 0, tw, th)
    if gravity == "fit":
        scale = min(tw / w, th / h)
        dw, dh = min(tw, max(1, _round(w * scale))), min(th, max(1, _round(h * scale)))
        x, y = (tw - dw) // 2, (th - dh) // 2
        destination = (x, y, x + dw, y + dh)
    elif gravity == "fill":
        scale = max(tw / w, th / h)
        cw, ch = min(w, max(1, _round(tw / scale))), min(h, max(1, _round(th / scale)))
        x, y = (w - cw) // 2, (h - ch) // 2
        crop = (x, y, x + cw, y + ch)
    elif gravity != "stretch":
        raise ValueError(f"unknown gravity {gravity!r}")
    return Layout(source, rotation, crop, destination)


class Screen:
    """A screendump with the lookups the checks need."""

    def __init__(self, path: Path):
        self.image = read_png(path)
        self.width, self.height = self.image.width, self.image.height

    def colour(self, x: int, y: int) -> str:
        """The palette colour nearest the pixel (scaling blurs edges over a pixel or two; the
        nearest colour switches half way, where the edge is)."""
        r, g, b = self.image.pixel(x, y)
        return min(PALETTE, key=lambda n: (PALETTE[n][0] - r) ** 2 + (PALETTE[n][1] - g) ** 2
                   + (PALETTE[n][2] - b) ** 2)

    def run(self, x: int, y: int, horizontal: bool) -> tuple[int, int]:
        """The run of pixels of the colour at (x, y) along a row or column: [start, end)."""
        colour = self.colour(x, y)
        if horizontal:
            a, b = x, x + 1
            while a > 0 and self.colour(a - 1, y) == colour:
                a -= 1
            while b < self.width and self.colour(b, y) == colour:
                b += 1
        else:
            a, b = y, y + 1
            while a > 0 and self.colour(x, a - 1) == colour:
                a -= 1
            while b < self.height and self.colour(x, b) == colour:
                b += 1
        return a, b

    def lit_extent(self, along_row: int | None = None, along_column: int | None = None) -> tuple[int, int]:
        """First and one-past-last pixel that is not black along a row or column."""
        if along_row is not None:
            lit = [x for x in range(self.width) if max(self.image.pixel(x, along_row)) > 24]
        else:
            lit = [y for y in range(self.height) if max(self.image.pixel(along_column, y)) > 24]
        return (lit[0], lit[-1] + 1) if lit else (0, 0)


def layout_mismatches(screen: Screen, layout: Layout, features, tolerance: float = 2) -> list[str]:
    """Every way the screen differs from `layout` by more than `tolerance` pixels: the picture's
    extent (bars), and each feature's colour and edges (crop, scale, rotation)."""
    problems = []
    dx0, dy0, dx1, dy1 = layout.destination
    mid_x, mid_y = int((dx0 + dx1) / 2), int((dy0 + dy1) / 2)
    found_x, found_y = screen.lit_extent(along_row=mid_y), screen.lit_extent(along_column=mid_x)
    for axis, found, wanted in (("x", found_x, (dx0, dx1)), ("y", found_y, (dy0, dy1))):
        if abs(found[0] - wanted[0]) > tolerance or abs(found[1] - wanted[1]) > tolerance:
            problems.append(f"picture spans {axis} {found[0]}..{found[1]}, expected {wanted[0]}..{wanted[1]}")
    for name, colour, source_rect in features:
        rect = layout.to_screen(source_rect)
        if rect is None:
            continue   # cropped away; the snapshot comparison covers what is there instead
        x0, y0, x1, y1 = rect
        cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
        if screen.colour(cx, cy) != colour:
            problems.append(f"{name}: ({cx}, {cy}) is {screen.colour(cx, cy)} {screen.image.pixel(cx, cy)}, not {colour}")
            continue
        (ax0, ax1), (ay0, ay1) = screen.run(cx, cy, horizontal=True), screen.run(cx, cy, horizontal=False)
        if max(abs(ax0 - x0), abs(ax1 - x1), abs(ay0 - y0), abs(ay1 - y1)) > tolerance:
            problems.append(f"{name}: found at x {ax0}..{ax1} y {ay0}..{ay1}, expected "
                            f"x {x0:.1f}..{x1:.1f} y {y0:.1f}..{y1:.1f}")
    return problems


def rgb_rows(path: Path) -> tuple[int, int, list[bytes]]:
    image = read_png(path)
    if image.channels == 3:
        return image.width, image.height, image.rows
    rows = []
    for row in image.rows:   # RGBA (or grey): keep r, g, b
        if image.channels == 4:
            packed = bytearray(row)
            del packed[3::4]
            rows.append(bytes(packed))
        else:
            rows.append(bytes(v for v in row[::image.channels] for _ in range(3)))
    return image.width, image.height, rows


def mean_abs_difference(a: Path, b: Path) -> float:
    """Mean absolute difference per channel (0-255); infinite when the sizes differ."""
    wa, ha, rows_a = rgb_rows(a)
    wb, hb, rows_b = rgb_rows(b)
    if (wa, ha) != (wb, hb):
        return math.inf
    total = sum(sum(abs(x - y) for x, y in zip(ra, rb)) for ra, rb in zip(rows_a, rows_b) if ra != rb)
    return total / (wa * ha * 3)


def differing_fraction(a: Path, b: Path) -> float:
    """The share of pixels that differ at all; 1 when the sizes differ."""
    wa, ha, rows_a = rgb_rows(a)
    wb, hb, rows_b = rgb_rows(b)
    if (wa, ha) != (wb, hb):
        return 1.0
    differing = sum(1 for ra, rb in zip(rows_a, rows_b) if ra != rb
                    for x in range(0, len(ra), 3) if ra[x:x + 3] != rb[x:x + 3])
    return differing / (wa * ha)


def colours_where_different(a: Path, b: Path) -> set[tuple[int, int, int]]:
    """The colours `b` has where it differs from `a` (same size)."""
    wa, _, rows_a = rgb_rows(a)
    _, _, rows_b = rgb_rows(b)
    return {tuple(rb[x:x + 3]) for ra, rb in zip(rows_a, rows_b) if ra != rb
            for x in range(0, len(ra), 3) if ra[x:x + 3] != rb[x:x + 3]}


def pixel(rows: list[bytes], x: int, y: int) -> tuple[int, int, int]:
    """The (r, g, b) at (x, y) of `rgb_rows`' rows."""
    return tuple(rows[y][3 * x:3 * x + 3])


def nearest(colours: dict, value) -> str:
    """The name of the colour in `colours` (name -> (r, g, b)) closest to `value`."""
    return min(colours, key=lambda name: sum((a - b) ** 2 for a, b in zip(colours[name], value)))
