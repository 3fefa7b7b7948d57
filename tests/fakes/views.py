"""Views of the virtual device: a node tree that is both the uiautomator dump and the picture.

`Node` is one view (what uiautomator reports for it plus how it reacts to touch), `App` an
app's screens built from current state, `draw_node` how a node is painted in a screenshot.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from PIL import ImageDraw, ImageFont

if TYPE_CHECKING:
    from .virtual_device import VirtualDevice

W, H = 360, 800
STATUS_BOTTOM, BAR_BOTTOM, NAV_TOP = 24, 80, 752
ROW_H = 56


@dataclass
class Node:
    """One view: what uiautomator reports for it, plus how it reacts to touch."""

    cls: str
    bounds: tuple[int, int, int, int]
    text: str = ""
    desc: str = ""
    rid: str = ""
    hint: str = ""
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    focused: bool = False
    selected: bool = False
    progress: float | None = None
    on_tap: Callable[[int, int], None] | None = None
    on_long: Callable[[], None] | None = None
    on_drag: Callable[[int, int], None] | None = None
    on_scroll: Callable[[int], None] | None = None
    children: list["Node"] = field(default_factory=list)

    def contains(self, x: int, y: int) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def text_view(text: str, box, **kw) -> Node:
    return Node("android.widget.TextView", box, text=text, **kw)


def button(label: str, box, on_tap, **kw) -> Node:
    return Node("android.widget.Button", box, text=label, clickable=True, on_tap=lambda x, y: on_tap(), **kw)


def image_button(desc: str, box, on_tap, **kw) -> Node:
    return Node("android.widget.ImageButton", box, desc=desc, clickable=True, on_tap=lambda x, y: on_tap(), **kw)


def switch(on: bool, box, **kw) -> Node:
    return Node("android.widget.Switch", box, text="ON" if on else "OFF", checkable=True, checked=on,
                rid="android:id/switch_widget", **kw)


class App:
    """An app's screens. `nodes` builds the content below the app bar from current state."""

    package = ""
    label = ""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.reset()

    def reset(self) -> None:
        """Force-stop: the next launch starts at the first screen with nothing typed."""
        self.fields: dict[str, str] = {}
        self.focus: str | None = None

    def clear_data(self) -> None:
        self.reset()

    @property
    def activity(self) -> str:
        raise NotImplementedError

    def title(self) -> str:
        return self.label

    def nodes(self) -> list[Node]:
        raise NotImplementedError

    def back(self) -> bool:
        """Handle Back inside the app; False leaves the app."""
        return False

    def edit(self, name: str, box, rid: str) -> Node:
        def focus(x: int, y: int) -> None:
            self.focus = name
        return Node("android.widget.EditText", box, text=self.fields.get(name, ""), hint=name, rid=rid,
                    clickable=True, long_clickable=True, focused=self.focus == name, on_tap=focus)


@functools.lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def draw_node(draw: ImageDraw.ImageDraw, node: Node) -> None:
    x1, y1, x2, y2 = node.bounds
    kind = node.cls.rsplit(".", 1)[-1]
    if node.selected:
        draw.rectangle(node.bounds, fill="#d6e4ff")
    if kind == "Switch":
        draw.rounded_rectangle(node.bounds, radius=(y2 - y1) // 2, fill="#2e7d32" if node.checked else "#9e9e9e")
        cx = x2 - (y2 - y1) // 2 if node.checked else x1 + (y2 - y1) // 2
        draw.ellipse((cx - 12, y1 + 4, cx + 12, y2 - 4), fill="white")
    elif kind == "EditText":
        draw.line((x1, y2 - 2, x2, y2 - 2), fill="#1a73e8" if node.focused else "#777777", width=3 if node.focused else 1)
        draw.text((x1 + 4, y1 + 12), node.text or node.hint, fill="black" if node.text else "#999999", font=_font(18))
    elif kind == "Button":
        draw.rounded_rectangle(node.bounds, radius=8, fill="#e3ecfa", outline="#1a73e8")
        draw.text(((x1 + x2) // 2, (y1 + y2) // 2), node.text, fill="#1a73e8", font=_font(18), anchor="mm")
    elif kind == "ImageButton":
        draw.ellipse(node.bounds, fill="#1a73e8")
        draw.text(((x1 + x2) // 2, (y1 + y2) // 2), node.desc[:1], fill="white", font=_font(22), anchor="mm")
    elif kind == "SeekBar":
        mid = (y1 + y2) // 2
        draw.line((x1, mid, x2, mid), fill="#9e9e9e", width=4)
        thumb = x1 + round((node.progress or 0.0) * (x2 - x1))
        draw.line((x1, mid, thumb, mid), fill="#1a73e8", width=4)
        draw.ellipse((thumb - 10, mid - 10, thumb + 10, mid + 10), fill="#1a73e8")
    elif kind == "TextView" and node.text:
        big = node.rid.endswith(("clock", "_time_text", "timer_setup_time", "action_bar_title"))
        draw.text((x1, y1 + 4), node.text, fill="black", font=_font(28 if big else 18))
