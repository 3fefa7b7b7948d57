"""Any Python value as something JSON can hold, within bounds: what a record writes.

Records take whatever an agent or an env hands over: an action that is a mapping nested 600
deep, a list that holds itself, a structure whose parts are shared so that writing it out
doubles at each level, an integer of a million digits, an object whose ``str`` raises. Writing
one must neither raise (the episode would become an error, not the agent's failure) nor run
without end. So `json_safe` keeps at most `MAX_DEPTH` levels of nesting, marks a container that
holds itself, and with ``max_chars`` writes about that many characters at most; what it leaves
out is a marker string that says what was there (``"<cut: ...>"``), never a silent gap.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from gui_gym.actions import Action

MAX_DEPTH = 100
"""Levels of nesting a record keeps (what gui-gym itself writes nests about ten deep). Deeper
values are a marker, so writing a record stays far inside Python's recursion limit."""
MAX_INT_BITS = 10_000
"""Larger integers are a marker: Python refuses to turn one past 4,300 digits into text."""
SCALAR_CHARS = 8
"""What a number, a boolean or null counts for against ``max_chars`` (about its JSON text)."""


class _Budget:
    """The characters of JSON one `json_safe` call may still write (None: no bound)."""

    def __init__(self, max_chars: int | None):
        self.left = max_chars

    @property
    def spent(self) -> bool:
        return self.left is not None and self.left <= 0

    def take(self, chars: int) -> None:
        if self.left is not None:
            self.left -= chars

    def text(self, text: str) -> str:
        """`text`, cut to what is left (with a marker)."""
        if self.left is not None and len(text) > self.left:
            kept = max(self.left, 0)
            self.left = 0
            return f"{text[:kept]}<cut: {len(text) - kept} more characters>"
        self.take(len(text) + 2)
        return text


def json_safe(value: Any, *, max_chars: int | None = None) -> Any:
    """`value` with everything JSON cannot hold turned into something it can: numpy scalars
    to numbers, arrays and bytes to a short description, Actions to dicts, non-finite floats
    and huge integers to strings, anything else to its ``str``; nesting past `MAX_DEPTH` and a
    container inside itself to markers; with `max_chars`, strings cut and values left out
    past that many characters of JSON (a marker in their place: one more per level open at
    the cut, so at most `MAX_DEPTH` short markers more). Never raises."""
    return _safe(value, 0, _Budget(max_chars), set())


def _safe(value: Any, depth: int, budget: _Budget, path: set[int]) -> Any:
    if isinstance(value, str):
        return budget.text(value)
    if value is None or isinstance(value, bool):
        budget.take(SCALAR_CHARS)
        return value
    if isinstance(value, int):
        budget.take(SCALAR_CHARS)
        return value if value.bit_length() <= MAX_INT_BITS else f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, float):
        budget.take(SCALAR_CHARS)
        return value if math.isfinite(value) else str(value)
    if isinstance(value, np.generic):
        return _safe(value.item(), depth, budget, path)
    if isinstance(value, np.ndarray):
        return budget.text(f"<array shape={list(value.shape)} dtype={value.dtype}>")
    if isinstance(value, (bytes, bytearray)):
        return budget.text(f"<{len(value)} bytes>")
    if isinstance(value, Action):
        return _safe(value.to_dict(), depth, budget, path)
    if isinstance(value, os.PathLike):
        return budget.text(_text(os.fspath(value)))
    if not isinstance(value, (dict, list, tuple, set, frozenset)):
        return budget.text(_text(value))
    if depth >= MAX_DEPTH:
        return budget.text(f"<cut: nested deeper than {MAX_DEPTH} levels>")
    if id(value) in path:
        return budget.text("<cut: a container inside itself>")
    path.add(id(value))
    budget.take(2)
    try:
        if isinstance(value, dict):
            mapping: dict[str, Any] = {}
            for key, item in value.items():
                if budget.spent:
                    mapping["<cut>"] = f"{len(value) - len(mapping)} more entries"
                    break
                mapping[budget.text(_text(key))] = _safe(item, depth + 1, budget, path)
            return mapping
        items: list[Any] = []
        for item in value:
            if budget.spent:
                items.append(f"<cut: {len(value) - len(items)} more values>")
                break
            items.append(_safe(item, depth + 1, budget, path))
        return items
    finally:
        path.discard(id(value))


def _text(value: Any) -> str:
    """``str(value)``, or a marker naming its type when that raises."""
    if isinstance(value, str):
        return value
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - an object that cannot show itself is still recorded
        return f"<a {type(value).__name__} that cannot be shown>"
    return text if isinstance(text, str) else f"<a {type(value).__name__} that cannot be shown>"
