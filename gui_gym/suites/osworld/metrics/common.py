"""Helpers the metric families share: OSWorld's ``{"method", "ref"}`` value rules, the fuzzy
string ratio, reading text files as OSWorld does, and lazy optional imports.

Text files are read as OSWorld's metrics read them: `read_text` is Python's text mode
(UTF-8, as on OSWorld's Linux hosts, newlines translated: ``\\r\\n`` and ``\\r`` become
``\\n``; undecodable bytes raise, and OSWorld's evaluation fails on them), and
`read_lines_any_encoding` is OSWorld's ``_safe_read_file`` (UTF-8, else Latin-1, which
decodes anything).
"""

from __future__ import annotations

import builtins
import functools
import importlib
import operator
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from gui_gym.errors import MissingResourceError

TEXT_ENCODING = "utf-8"


def require(module: str, pip_name: str, metric: str) -> ModuleType:
    """Import an optional dependency of one metric, or say which package to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingResourceError(f"OSWorld metric {metric!r} needs the {pip_name!r} package: "
                                   f"pip install {pip_name} (or gui-gym[desktop])") from exc


def fuzzy_ratio(a: str, b: str) -> float:
    """Similarity in [0, 1]: rapidfuzz's ``fuzz.ratio`` / 100 (normalised indel distance),
    the function OSWorld scores with."""
    return require("rapidfuzz.fuzz", "rapidfuzz", "fuzzy matching").ratio(a, b) / 100.0


def read_text(path: str | Path) -> str:
    """A file as ``open(path).read()`` gives it on OSWorld's hosts (see the module docstring)."""
    with open(path, encoding=TEXT_ENCODING) as handle:
        return handle.read()


def read_lines(path: str | Path) -> list[str]:
    """The lines ``for line in open(path)`` yields: newline-translated, each ending with its
    ``\\n`` (but the last, when the file does not end with one)."""
    with open(path, encoding=TEXT_ENCODING) as handle:
        return list(handle)


def read_lines_any_encoding(path: str | Path) -> list[str]:
    """OSWorld's ``_safe_read_file``: the text's ``splitlines()``, UTF-8 or else Latin-1."""
    for encoding in (TEXT_ENCODING, "latin-1"):
        try:
            with open(path, encoding=encoding) as handle:
                return handle.read().splitlines()
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def match_value(value: Any, rule: dict[str, Any]) -> bool:
    """OSWorld's value rule (``_match_value_to_rule``), with its exact semantics, errors included:

    - ``re`` / ``re.IGNORECASE.MULTILINE``...: ``re.search(ref, value, flags)`` (a value that
      is not a string raises, as in OSWorld);
    - ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge``: the Python operator (incomparable types raise);
    - ``approx:<tolerance>``: ``|float(value) - ref| <= tolerance``, False when the value is
      not a number;
    - ``spreadsheet_range``: ``ref = [inner, outer]``, the value (a MultiCellRange) holds every
      range of ``inner`` and lies within ``outer``;
    - ``range.<l><r>`` (``range.te``: ``ref[0] < value <= ref[1]``; ``t``: strict, ``e``: or equal);
    - ``str_list_eq`` / ``str_set_eq``: the string, outer quotes stripped, split at commas
      (items not stripped), equals ``ref`` as a list / a set.
    """
    method, ref = rule["method"], rule.get("ref")
    if method.startswith("re"):
        flags = functools.reduce(operator.or_, (getattr(re, name) for name in method.split(".")[1:]),
                                 re.RegexFlag(0))
        return re.search(ref, value, flags) is not None
    if method in ("eq", "ne", "lt", "le", "gt", "ge"):
        return getattr(operator, method)(value, ref)
    if method.startswith("approx"):
        tolerance = float(method.split(":")[1])
        try:
            number = float(value)
        except (TypeError, ValueError):
            return False
        return abs(number - ref) <= tolerance
    if method == "spreadsheet_range":
        from openpyxl.worksheet.cell_range import MultiCellRange

        inner, outer = MultiCellRange(ref[0]), MultiCellRange(ref[1])
        return all(r in value for r in inner) and all(r in outer for r in value)
    if method.startswith("range."):
        left, right = method[6], method[7]
        return getattr(operator, "l" + left)(ref[0], value) and getattr(operator, "l" + right)(value, ref[1])
    if method in ("str_list_eq", "str_set_eq"):
        container = getattr(builtins, method[4:-3])
        return container(value.strip("\"'").split(",")) == container(ref)
    raise NotImplementedError(f"OSWorld value rule method {method!r} does not exist")


def match_record(pattern: dict[str, Any], record: dict[str, Any]) -> bool:
    """OSWorld's ``_match_record``: every key of the pattern is in the record with that value."""
    return all(key in record and record[key] == value for key, value in pattern.items())


def lists_equal(a: list[Any], b: list[Any], same: Any) -> bool:
    """OSWorld's ``are_lists_equal``: same length, and each item of `a` has a `same` item in `b`."""
    return len(a) == len(b) and all(any(same(x, y) for y in b) for x in a)
