"""The accessibility tree's text form, ``obs["a11y_tree"]``: one line per element,

    [index] role "name" value="..." checked disabled ...

(BrowserGym-like). The browser backend writes it (`format_elements`) from its element list;
agents that act on elements read it back (`parse_elements`); this module owns both
directions, so a change to one is a change to the other (a round-trip test holds them
together). Names and values are quoted with backslash escapes; flags are bare words after the
quoted fields. The index is what element actions (``click(element=3)``) refer to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

FLAGS = ("checked", "disabled", "expanded", "selected", "focused")
"""The boolean states a line may carry, in the order they are written."""

_HEAD = re.compile(r'^\[(\d+)\] (\S+) ("(?:[^"\\]|\\.)*")')
_FIELD = re.compile(r'\s+(\w+)=("(?:[^"\\]|\\.)*")')
_WORD = re.compile(r"\s+(\w+)")


@dataclass(frozen=True)
class Element:
    """One line of the tree: ``[index] role "name" value="..." flags``."""

    index: int
    role: str
    name: str
    value: str = ""
    flags: tuple[str, ...] = ()


def quote(text: str) -> str:
    """`text` as a double-quoted field, backslash-escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unquote(field: str) -> str:
    """The text of a field `quote` wrote (quotes included)."""
    return re.sub(r"\\(.)", r"\1", field[1:-1])


def format_elements(elements: Iterable[Mapping[str, Any]]) -> str:
    """One line per element dict (``index``, ``role``, ``name``, optional ``value`` and the
    `FLAGS` as booleans), in the given order."""
    lines = []
    for el in elements:
        parts = [f"[{el['index']}]", el["role"], quote(el.get("name", ""))]
        if el.get("value"):
            parts.append(f"value={quote(el['value'])}")
        parts += [flag for flag in FLAGS if el.get(flag) is True]
        lines.append(" ".join(parts))
    return "\n".join(lines)


def parse_elements(text: str) -> list[Element]:
    """The elements of a tree text. Lines that are not element lines are skipped; quoted
    fields other than ``value`` (the Android backend's ``desc``, ``hint``) and words other
    than `FLAGS` are read past."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        head = _HEAD.match(line)
        if not head:
            continue
        value, flags, at = "", [], head.end()
        while at < len(line):
            field = _FIELD.match(line, at)
            if field:
                value = unquote(field.group(2)) if field.group(1) == "value" else value
                at = field.end()
                continue
            word = _WORD.match(line, at)
            if not word:
                break
            if word.group(1) in FLAGS:
                flags.append(word.group(1))
            at = word.end()
        out.append(Element(int(head.group(1)), head.group(2), unquote(head.group(3)), value, tuple(flags)))
    return out
