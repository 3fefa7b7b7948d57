"""Helpers the metric families share: OSWorld's ``{"method", "ref"}`` value rules, a fuzzy
string ratio, reading text files whatever their encoding, and lazy optional imports."""

from __future__ import annotations

import difflib
import functools
import importlib
import operator
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from gui_gym.errors import MissingResourceError

ENCODINGS = ("utf-8-sig", "utf-8", "latin-1")


def require(module: str, pip_name: str, metric: str) -> ModuleType:
    """Import an optional dependency of one metric, or say which package to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingResourceError(f"OSWorld metric {metric!r} needs the {pip_name!r} package: "
                                   f"pip install {pip_name}") from exc


def fuzzy_ratio(a: str, b: str) -> float:
    """Similarity in [0, 1] of two strings by normalised indel distance (rapidfuzz's
    ``fuzz.ratio`` / 100); difflib's ratio when rapidfuzz is not installed."""
    try:
        from rapidfuzz import fuzz
    except ImportError:
        return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    return fuzz.ratio(a, b) / 100.0


def read_text(path: str | Path) -> str:
    """A text file's content, trying UTF-8 (with and without BOM) then Latin-1."""
    data = Path(path).read_bytes()
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def match_value(value: Any, rule: dict[str, Any]) -> bool:
    """OSWorld's value rule: ``method`` is ``eq``/``ne``/``lt``/``le``/``gt``/``ge``,
    ``re`` (optionally ``re.IGNORECASE`` etc.: a regex search), ``approx:<tolerance>``,
    ``str_list_eq``/``str_set_eq`` (a comma-separated string against a list), or
    ``spreadsheet_range``; ``ref`` is the reference."""
    method, ref = rule["method"], rule.get("ref")
    if method.startswith("re"):
        flags = functools.reduce(operator.or_, (getattr(re, name) for name in method.split(".")[1:]),
                                 re.RegexFlag(0))
        return re.search(ref, "" if value is None else str(value), flags) is not None
    if method in ("eq", "ne", "lt", "le", "gt", "ge"):
        try:
            return bool(getattr(operator, method)(value, ref))
        except TypeError:
            return method == "ne"
    if method.startswith("approx"):
        tolerance = float(method.split(":", 1)[1])
        try:
            return abs(float(value) - float(ref)) <= tolerance
        except (TypeError, ValueError):
            return False
    if method in ("str_list_eq", "str_set_eq"):
        items = [] if value is None else [s.strip() for s in str(value).split(",")]
        return items == list(ref) if method == "str_list_eq" else set(items) == set(ref)
    if method == "spreadsheet_range":
        from openpyxl.worksheet.cell_range import MultiCellRange

        inner, outer = MultiCellRange(ref[0]), MultiCellRange(ref[1])
        ranges = MultiCellRange(str(value)) if not isinstance(value, MultiCellRange) else value
        return all(r in ranges for r in inner) and all(r in outer for r in ranges)
    raise ValueError(f"unknown value-rule method {method!r}")


def missing(*paths: Any) -> bool:
    """True when any result/expected path is absent: OSWorld scores such a metric 0."""
    return any(p is None or p == "" or (isinstance(p, (str, Path)) and not Path(p).exists()) for p in paths)
