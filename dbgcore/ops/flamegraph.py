"""A flame graph of a profile: one self-contained SVG file a person opens in
a browser (no script, no font or style sheet fetched), the answer of `dbg
profile` giving its path.

Stacks are merged from the outermost frame (at the bottom) in; each frame
is a box as wide as its share of the samples, its tooltip (``<title>``) the
function, its place and its share. The program's own frames are warm,
library frames grey, as `dbg hot` tells them apart. A deterministic profile
(call edges, not stacks) has no stacks to draw: none is written for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from dbgcore.vocab.profiles import STACKS, Profile, ProfileFrame

#: The picture's width and one frame's height, in pixels.
WIDTH = 1200
ROW = 18
#: Boxes narrower than this are left out (a reader could not see them).
MIN_WIDTH = 0.5
#: Characters a box's label fits per pixel, roughly (7 px a character).
CHAR_PX = 7.0


@dataclass
class _Node:
    frame: ProfileFrame | None
    weight: float = 0.0
    children: dict[tuple[str, str | None], _Node] = field(default_factory=dict)


def tree(profile: Profile) -> _Node:
    """The profile's stacks merged into one tree, by function and file
    (the line each was at is the one detail a box does not split by)."""
    root = _Node(None)
    for sample in profile.samples:
        node = root
        node.weight += sample.weight
        for frame in sample.frames:
            key = (frame.function, frame.file)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = _Node(ProfileFrame(
                    frame.function, frame.file, None, frame.library))
            child.weight += sample.weight
            node = child
    return root


def svg(profile: Profile, title: str) -> str | None:
    """The flame graph's SVG text (None for a profile with no stacks)."""
    if profile.shape != STACKS or not profile.samples:
        return None
    root = tree(profile)
    depth = _depth(root)
    height = (depth + 2) * ROW + 30
    boxes: list[str] = []
    _draw(root, 0.0, WIDTH / root.weight if root.weight else 0.0, depth, root.weight, boxes,
          height)
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="monospace" font-size="11">',
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" font-size="14">'
        f"{escape(title)}</text>",
        *boxes, "</svg>", ""])


def _depth(node: _Node) -> int:
    return 1 + max((_depth(c) for c in node.children.values()), default=0) if node.frame \
        else max((_depth(c) for c in node.children.values()), default=0)


def _draw(node: _Node, x: float, scale: float, depth: int, whole: float, out: list[str],
          height: int, level: int = -1) -> None:
    if node.frame is not None:
        width = node.weight * scale
        if width < MIN_WIDTH:
            return
        y = height - (level + 2) * ROW
        frame = node.frame
        share = 100.0 * node.weight / whole if whole else 0.0
        place = frame.file or "?"
        label = frame.function
        fits = int(width / CHAR_PX)
        text = label if len(label) <= fits else (label[:fits - 2] + ".." if fits > 3 else "")
        colour = "#c8c8c8" if frame.library else _warm(frame.function)
        out.append(
            f'<g><title>{escape(frame.function)} ({escape(place)}): {share:.1f}%'
            f'{" [" + escape(frame.library) + "]" if frame.library else ""}</title>'
            f'<rect x="{x:.2f}" y="{y}" width="{width:.2f}" height="{ROW - 1}" '
            f'fill="{colour}" rx="2"/>'
            + (f'<text x="{x + 3:.2f}" y="{y + ROW - 5}">{escape(text)}</text>' if text else "")
            + "</g>")
    for child in sorted(node.children.values(), key=lambda c: -c.weight):
        _draw(child, x, scale, depth, whole, out, height, level + 1)
        x += child.weight * scale


def _warm(name: str) -> str:
    """A warm colour, the same for a function in every graph."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(name))
    return f"rgb({205 + seed % 50},{90 + seed % 120},{40 + seed % 40})"
