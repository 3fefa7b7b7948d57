"""Reading answers and boxes the way MMBench-GUI's official evaluation does.

Scores are only comparable with published numbers if a model's text is read as the official
code reads it, so the rules here follow open-compass/MMBench-GUI:

- L1 option letter: six patterns tried in order, case-insensitively and per line; the first
  pattern that matches anywhere wins (so ``"B. because A is wrong"`` reads B, and a lone
  ``"a"`` at the end of a sentence reads A, exactly as the official parser does). Which text
  they run over is the `ANSWER_MODES` choice: by default the answer the output carries (the
  content of a UI-TARS ``finished(content=...)``, the text of a JSON answer); officially the
  whole output, which on UI-TARS answers reads the "A" of ``Action:`` (see docs/mmbench.md).
- L2 point: the first pair of numbers in the text, optionally bracketed and labelled
  ``x=``/``y:``; a pair with both values <= 1 is normalized, anything else is pixels.
- L2 box: all four values in [0, 1] means normalized, otherwise pixels of the actual image;
  a -1 then stands for 0; a hit is a point inside the box with the edges included.

Points are handed to the env as screen pixels (the `Action` convention); `point_in_box`
compares in normalized space as the official code does, with a tolerance of 1e-9 so that a
point written on an edge in normalized or 0-1000 space still lands on it after the exact
mapping to pixels and back.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping, Sequence

from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.errors import ActionParseError, TaskConfigError

LETTERS = "ABCDEF"
ANSWER_MODES = ("meant", "official")
"""How L1 answers are read: ``meant``, the answer the output carries (the default), or
``official``, MMBench-GUI's parser over the whole output with its quirks, and its NaN level
score where a platform has no question of a difficulty (see docs/mmbench.md, Comparability)."""
COORDINATE_MODES = ("auto", "absolute", "normalized", "relative1000", "smart_resize")
"""How bare numbers in an answer map to pixels: ``auto`` is the official rule (both <= 1:
normalized, else pixels); the others name the space explicitly (see `CoordinateMapping`)."""
EDGE_TOLERANCE = 1e-9

_OPTION_PATTERNS = tuple(re.compile(p, re.IGNORECASE | re.MULTILINE) for p in (
    r"\b([A-F])[.:](?!\w)",            # "B." or "B:" not glued to a word
    r"\bOption\s+([A-F])\b",           # "Option C"
    r"\bAnswer\s*(?:[:：]\s*)?([A-F])\b",  # "Answer: D", full-width colon too
    r"^[ \t]*([A-F])[.:]?",            # a letter opening a line
    r"['\"]([A-F])['\"]",              # a quoted letter
    r"\b([A-F])\b(?!\s+\w)",           # a lone letter not followed by a word
))
_NUMBER = r"[-+]?(?<!\d)(?:\d+\.\d+|\.\d+|\d+)"
_POINT = re.compile(
    rf"(?:x\s*(?:[:=]\s*)?)?(?:[(\[{{]\s*)?({_NUMBER})[,\s;]+(?:y\s*(?:[:=]\s*)?)?({_NUMBER})\s*[)\]}}]?",
    re.IGNORECASE)
"""A number pair. Written so that no two adjacent parts can take the same characters (and a
number only starts where a digit run does): otherwise a long run of digits or spaces makes
the search backtrack quadratically or worse (0.8 s for 5,000 digits)."""


def parse_option_letter(text: str | None) -> str | None:
    """The option letter (A-F) an answer names, or None when it names none.

    >>> parse_option_letter("The answer is C.")
    'C'
    >>> parse_option_letter("Answer: b"), parse_option_letter("I am not sure")
    ('B', None)
    """
    if not text:
        return None
    for pattern in _OPTION_PATTERNS:
        match = pattern.search(text)
        if match:
            return match.group(1).upper()
    return None


def find_point(text: str) -> tuple[float, float] | None:
    """The first number pair in `text` as written (no mapping), or None.

    >>> find_point("I would click at (0.25, 0.5) here")
    (0.25, 0.5)
    >>> find_point("x=120 y: 45")
    (120.0, 45.0)
    """
    match = _POINT.search(text)
    return None if match is None else (float(match.group(1)), float(match.group(2)))


def to_pixels(x: float, y: float, screen_size: tuple[int, int], coordinates: str = "auto") -> tuple[float, float]:
    """Map a point in `coordinates` space to pixels of a `screen_size` (width, height) image.

    >>> to_pixels(0.5, 0.25, (1920, 1080))
    (960.0, 270.0)
    >>> to_pixels(500, 250, (1920, 1080)), to_pixels(500, 250, (1920, 1080), "relative1000")
    ((500.0, 250.0), (960.0, 270.0))
    """
    if coordinates not in COORDINATE_MODES:
        raise ActionParseError(f"unknown coordinate mode {coordinates!r}; expected one of {list(COORDINATE_MODES)}")
    if coordinates == "auto":
        coordinates = "absolute" if x > 1 or y > 1 else "normalized"
    return CoordinateMapping(coordinates, screen_size).to_screen(x, y)


def normalize_box(bbox: Sequence[float], image_size: tuple[int, int], where: str = "bbox") -> tuple[float, float, float, float]:
    """An [x1, y1, x2, y2] box, normalized or in pixels of `image_size` (width, height), as
    normalized (x1, y1, x2, y2), by the official rule.

    >>> normalize_box([0.1, 0.2, 0.3, 0.4], (1000, 500))
    (0.1, 0.2, 0.3, 0.4)
    >>> normalize_box([100, 100, 300, 200], (1000, 500))
    (0.1, 0.2, 0.3, 0.4)
    """
    if (isinstance(bbox, (str, bytes)) or len(bbox) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in bbox)):
        raise TaskConfigError(f"{where}: expected 4 finite numbers [x1, y1, x2, y2], received {bbox!r}")
    values = [0.0 if v == -1 else float(v) for v in bbox]
    if not all(0 <= v <= 1 for v in bbox):  # decided on the raw values, -1 included, as officially
        width, height = image_size
        values = [values[0] / width, values[1] / height, values[2] / width, values[3] / height]
    if not all(0 <= v <= 1 for v in values):
        raise TaskConfigError(f"{where}: box {list(bbox)} lies outside the {image_size[0]}x{image_size[1]} image")
    x1, y1, x2, y2 = values
    if x2 < x1 or y2 < y1:
        raise TaskConfigError(f"{where}: expected x1 <= x2 and y1 <= y2, received {list(bbox)}")
    return x1, y1, x2, y2


def xywh_to_xyxy(bbox: Sequence[float], where: str = "bbox") -> list[float]:
    """ScreenSpot's [x, y, w, h] as [x1, y1, x2, y2]."""
    if isinstance(bbox, (str, bytes)) or len(bbox) != 4:
        raise TaskConfigError(f"{where}: expected [x, y, w, h], received {bbox!r}")
    x, y, w, h = bbox
    return [x, y, x + w, y + h]


def point_in_box(point: tuple[float, float], box: tuple[float, float, float, float],
                 screen_size: tuple[int, int]) -> bool:
    """Whether a pixel `point` lies in a normalized `box`, edges included.

    >>> point_in_box((300, 100), (0.1, 0.2, 0.3, 0.4), (1000, 500))
    True
    >>> point_in_box((301, 100), (0.1, 0.2, 0.3, 0.4), (1000, 500))
    False
    """
    width, height = screen_size
    x, y = point[0] / width, point[1] / height
    x1, y1, x2, y2 = box
    return (x1 - EDGE_TOLERANCE <= x <= x2 + EDGE_TOLERANCE) and (y1 - EDGE_TOLERANCE <= y <= y2 + EDGE_TOLERANCE)


def box_centre(box: tuple[float, float, float, float], screen_size: tuple[int, int]) -> tuple[float, float]:
    """Centre of a normalized box in pixels."""
    width, height = screen_size
    return (box[0] + box[2]) / 2 * width, (box[1] + box[3]) / 2 * height


def json_output(value: Any) -> Any:
    """`value` as a JSON action object (or list) when it is one, else None: text that merely
    starts like JSON (``"[B]"``, ``"[120, 45]"``) is left to be read as text."""
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or JSON too deep or with too long a number to read
            return None
    if isinstance(value, Mapping) or (isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value)):
        return value
    return None


def kind_phrase(kind: str) -> str:
    """``"a click action"``, ``"an answer action"``: for error messages."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} action"
