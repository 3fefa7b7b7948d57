"""The accessibility tree as agents read it: OSWorld's XML flattened to one line per visible
element (tag, name, text, position, size), as OSWorld's agents are prompted with.

Only elements that are showing and visible, with a name or text, and a non-empty box on the
screen are kept, so the text stays short enough for a prompt.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

STATE_NS = "https://accessibility.ubuntu.example.org/ns/state"
COMPONENT_NS = "https://accessibility.ubuntu.example.org/ns/component"
HEADER = "tag\tname\ttext\tposition (top-left x&y)\tsize (w&h)"
MAX_TEXT_CHARS = 200


def _pair(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    try:
        x, y = (int(part) for part in value.strip("()").split(","))
    except ValueError:
        return None
    return x, y


def linearize(xml_text: str, max_lines: int = 1000) -> str:
    """One tab-separated line per visible, named element of an OSWorld accessibility XML."""
    root = ET.fromstring(xml_text)
    lines = [HEADER]
    for element in root.iter():
        if element is root:
            continue
        if element.get(f"{{{STATE_NS}}}showing") != "true" or element.get(f"{{{STATE_NS}}}visible") != "true":
            continue
        position = _pair(element.get(f"{{{COMPONENT_NS}}}screencoord"))
        size = _pair(element.get(f"{{{COMPONENT_NS}}}size"))
        if position is None or size is None or size[0] <= 0 or size[1] <= 0:
            continue
        name = (element.get("name") or "").strip()
        text = " ".join((element.text or "").split())[:MAX_TEXT_CHARS]
        if not name and not text:
            continue
        lines.append(f"{element.tag}\t{name}\t{text}\t{position}\t{size}")
        if len(lines) > max_lines:
            break
    return "\n".join(lines)
