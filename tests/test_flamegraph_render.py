"""The flame graph `dbg profile` writes is a picture a browser draws: the SVG
of a real py-spy profile (tests/targets/slow/regexes.py) is rendered by
headless Chromium (Debian's `chromium`), and the screenshot is read back
pixel by pixel (PNG decoded here, with zlib): the box of the hottest
function is painted in its own fill colour where the SVG puts it, and the
picture is more than its white background."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from xml.etree import ElementTree

from builds import copy_target

from dbgcore.api import pyspy
from dbgcore.testing import Dbg, require

SVG = "{http://www.w3.org/2000/svg}"


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) bytes of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    at, chunks, head = 8, b"", b""
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        if kind == b"IHDR":
            head = body
        elif kind == b"IDAT":
            chunks += body
        at += 12 + size
    width, height, depth, colour = struct.unpack(">IIBB", head[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    step = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(chunks), width * step
    rows: list[bytes] = []
    prior = bytearray(stride)
    for y in range(height):
        begin = y * (stride + 1)
        kind, line = raw[begin], bytearray(raw[begin + 1:begin + 1 + stride])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = prior[i], prior[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc
                                      else corner)) & 0xFF
        rows.append(bytes(line))
        prior = line
    return width, height, rows


def colour(fill: str) -> bytes:
    """An SVG fill (``#rrggbb`` or ``rgb(r,g,b)``) as three bytes."""
    if fill.startswith("#"):
        return bytes.fromhex(fill[1:])
    return bytes(int(part) for part in fill[fill.index("(") + 1:-1].split(","))


def test_the_flame_graph_renders_in_chromium_with_the_hot_box_where_the_svg_puts_it(
        dbg: Dbg, tmp_path: Path) -> None:
    browser = shutil.which("chromium")
    require(browser is not None, "chromium is not installed (apt install chromium)")
    require(pyspy.find() is not None, f"py-spy is not installed: {pyspy.INSTALL}")
    target = copy_target("slow/regexes.py", tmp_path)
    answer = dbg.json("profile", str(target.path), "1")
    assert answer["ok"] and answer["top"][0]["function"] == "is_word", answer
    picture = Path(answer["flamegraph"])
    graph = ElementTree.parse(picture).getroot()
    width, height = int(graph.get("width") or 0), int(graph.get("height") or 0)
    box = next(g.find(f"{SVG}rect") for g in graph.iter(f"{SVG}g")
               if (g.findtext(f"{SVG}title") or "").startswith("is_word "))
    assert box is not None
    x, y = float(box.get("x") or 0), float(box.get("y") or 0)
    fill = colour(str(box.get("fill")))

    shot = tmp_path / "shot.png"
    assert browser is not None
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={width},{height}", f"--screenshot={shot}", picture.as_uri()],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    shot_width, _, rows = png_pixels(shot.read_bytes())
    step = len(rows[0]) // shot_width
    # A pixel inside the box, clear of its label (on the left) and its round corners.
    px, py = int(x + float(box.get("width") or 0) * 0.75), int(y + 4)
    pixel = rows[py][px * step:px * step + 3]
    assert all(abs(a - b) <= 8 for a, b in zip(pixel, fill, strict=True)), (pixel.hex(), fill.hex())
    painted = sum(1 for row in rows for i in range(0, len(row), step)
                  if row[i:i + 3] != b"\xff\xff\xff")
    assert painted > 0.05 * len(rows) * shot_width, painted
