#!/usr/bin/env python3
"""Draw the site's PNG icons (the favicon's die) with the standard library only.

    python tools/make_icons.py          # writes site/static/icon-*.png and apple-touch-icon.png

The icons are committed; tests/test_offline_build.py checks that they are what
this script draws. Drawing is by coverage (a signed distance per pixel, no
supersampling), so a 512 px icon takes about a second.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLUE = (0x1F, 0x5F, 0x9E)
WHITE = (0xFF, 0xFF, 0xFF)
# The favicon's die on a 32-unit grid: a rounded square and three pips.
PIPS = ((11, 11), (16, 16), (21, 21))
PIP_R = 2.6

ICONS = {
    # name: (size, full bleed?) -- a full-bleed icon (no transparent corners) for
    # iOS, which fills transparency with black, and for Android's maskable shape.
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "icon-maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """An 8-bit RGBA PNG of ``rows`` (each width * 4 bytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def draw(size: int, full_bleed: bool) -> bytes:
    scale = size / 32
    # A full-bleed icon keeps the die's pips inside the maskable safe zone (the middle 80 %).
    if full_bleed:
        box, radius = (0.0, 0.0, 32.0, 32.0), 0.0
        pips = [(16 + (x - 16) * 0.8, 16 + (y - 16) * 0.8) for x, y in PIPS]
        pip_r = PIP_R * 0.8
    else:
        box, radius, pips, pip_r = (3.0, 3.0, 29.0, 29.0), 6.0, list(PIPS), PIP_R
    rows = []
    for py in range(size):
        row = bytearray()
        y = (py + 0.5) / scale
        for px in range(size):
            x = (px + 0.5) / scale
            # signed distance to the rounded square, in pixels
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            hx, hy = (box[2] - box[0]) / 2 - radius, (box[3] - box[1]) / 2 - radius
            qx, qy = abs(x - cx) - hx, abs(y - cy) - hy
            outside = math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - radius
            alpha = min(max(0.5 - outside * scale, 0.0), 1.0)
            pip = 0.0
            for ox, oy in pips:
                d = (math.hypot(x - ox, y - oy) - pip_r) * scale
                pip = max(pip, min(max(0.5 - d, 0.0), 1.0))
            colour = [round(b + (w - b) * pip) for b, w in zip(BLUE, WHITE)]
            row += bytes((*colour, round(255 * alpha)))
        rows.append(bytes(row))
    return png(size, size, rows)


def icons() -> dict[str, bytes]:
    return {name: draw(size, full) for name, (size, full) in ICONS.items()}


def main() -> int:
    out = ROOT / "site" / "static"
    for name, data in icons().items():
        (out / name).write_bytes(data)
        print(f"wrote {out / name} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
