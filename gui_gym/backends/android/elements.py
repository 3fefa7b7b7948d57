"""Android UI elements from a `uiautomator dump`, with AndroidWorld's fields and indexing.

AndroidWorld's agents see a flat list of UI elements (text, content_description, class_name,
bbox_pixels, is_clickable, is_editable, is_checked, is_scrollable, resource_id,
package_name, ...) and click by index into it. The list keeps the nodes AndroidWorld keeps:
leaves, and containers that carry a content description or scroll. Element-index actions on
the Android backend, the ``a11y_tree`` observation and recorded AndroidControl-style episodes
all index this same list.

Pure parsing, no device access: the offline replay reads recorded dumps with it too.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Mapping

from gui_gym.errors import ActionExecutionError

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_FLAGS = {"is_checkable": "checkable", "is_checked": "checked", "is_clickable": "clickable",
          "is_enabled": "enabled", "is_focusable": "focusable", "is_focused": "focused",
          "is_long_clickable": "long-clickable", "is_scrollable": "scrollable", "is_selected": "selected"}
_EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete")


@dataclass(frozen=True)
class BoundingBox:
    """Pixel box, AndroidWorld's field names: x_min, x_max, y_min, y_max."""

    x_min: int
    x_max: int
    y_min: int
    y_max: int

    @property
    def center(self) -> tuple[float, float]:
        return (self.x_min + self.x_max) / 2, (self.y_min + self.y_max) / 2

    @property
    def area(self) -> int:
        return max(0, self.x_max - self.x_min) * max(0, self.y_max - self.y_min)

    def contains(self, x: float, y: float) -> bool:
        """Edges included."""
        return self.x_min <= x <= self.x_max and self.y_min <= y <= self.y_max


@dataclass(frozen=True)
class UIElement:
    """One element of the screen, as AndroidWorld's ``representation_utils.UIElement``."""

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox_pixels: BoundingBox | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_id: str | None = None

    @property
    def label(self) -> str:
        """What a person would call it: text, else content description, else hint."""
        return self.text or self.content_description or self.hint_text or ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict; None fields left out, the box as {x_min, x_max, y_min, y_max}."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "UIElement":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown UI element field(s) {sorted(unknown)}; expected some of {sorted(names)}")
        fields = dict(data)
        if fields.get("bbox_pixels") is not None:
            fields["bbox_pixels"] = BoundingBox(**fields["bbox_pixels"])
        return cls(**fields)


def parse_uiautomator_xml(xml_text: str) -> list[UIElement]:
    """The element list of a ``uiautomator dump`` (AOSP or androidx dumper format).

    Raises ValueError on text that is not a uiautomator hierarchy."""
    try:
        root = ET.fromstring(xml_text.encode("utf-8") if isinstance(xml_text, str) else xml_text)
    except ET.ParseError as exc:
        raise ValueError(f"expected uiautomator XML, received text that does not parse ({exc})") from None
    if root.tag != "hierarchy":
        raise ValueError(f"expected a uiautomator <hierarchy> root, received <{root.tag}>")
    elements = []
    for node in root.iter("node"):
        children = node.findall("node")
        element = _element(node)
        if element.bbox_pixels is None or element.bbox_pixels.area == 0:
            continue
        if not children or element.content_description or element.is_scrollable:
            elements.append(element)
    return elements


def _element(node: ET.Element) -> UIElement:
    attrs = node.attrib
    match = _BOUNDS.fullmatch(attrs.get("bounds", ""))
    box = None
    if match:
        x1, y1, x2, y2 = (int(v) for v in match.groups())
        box = BoundingBox(x_min=x1, x_max=x2, y_min=y1, y_max=y2)
    class_name = attrs.get("class") or None
    flags = {field: attrs.get(attr) == "true" for field, attr in _FLAGS.items()}
    return UIElement(
        text=attrs.get("text") or None, content_description=attrs.get("content-desc") or None,
        class_name=class_name, bbox_pixels=box, hint_text=attrs.get("hint") or None,
        is_editable=bool(class_name and class_name.endswith(_EDITABLE_CLASSES)),
        is_visible=attrs.get("visible-to-user", "true") == "true",
        package_name=attrs.get("package") or None, resource_id=attrs.get("resource-id") or None, **flags)


def element_at(elements: list[UIElement], index: int) -> UIElement:
    """Element `index` (with bounds), or ActionExecutionError naming how many there are."""
    if index >= len(elements):
        raise ActionExecutionError(
            f"element index {index} does not exist; the screen has {len(elements)} indexed elements")
    if elements[index].bbox_pixels is None:
        raise ActionExecutionError(f"element {index} has no bounds on screen")
    return elements[index]


def elements_text(elements: list[UIElement]) -> str:
    """One line per element: ``[index] Class "label" id=... desc=... clickable checked ...``."""
    lines = []
    for index, el in enumerate(elements):
        parts = [f"[{index}]", (el.class_name or "View").rsplit(".", 1)[-1], _quote(el.text or "")]
        if el.content_description:
            parts.append(f"desc={_quote(el.content_description)}")
        if el.hint_text:
            parts.append(f"hint={_quote(el.hint_text)}")
        if el.resource_id:
            parts.append(f"id={el.resource_id.rsplit('/', 1)[-1]}")
        for name in ("clickable", "long_clickable", "editable", "scrollable", "focused", "selected"):
            if getattr(el, f"is_{name}"):
                parts.append(name)
        if el.is_checkable:
            parts.append("checked" if el.is_checked else "unchecked")
        if el.is_enabled is False:
            parts.append("disabled")
        if el.bbox_pixels is not None:
            b = el.bbox_pixels
            parts.append(f"bounds=[{b.x_min},{b.y_min},{b.x_max},{b.y_max}]")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
