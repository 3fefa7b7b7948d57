"""Action format ``point``: a point on the screenshot, as grounding benchmarks take it
(MMBench-GUI L2, ScreenSpot, ScreenSpot-Pro).

Grounding models answer in every spelling there is. Read here, in this order:
- a JSON action (``{"kind": "click", "x": .., "y": ..}``) or an `Action`: its point, in pixels;
- UI-TARS (``Action: click(start_box='(x,y)')``, ``<point>x y</point>``, box tokens): parsed
  by `gui_gym.action_formats.uitars`, which maps its coordinate space (``coordinates``;
  ``auto`` means UI-TARS-1.5's ``smart_resize``);
- anything else: the first number pair in the text, the official MMBench-GUI way (``(x,y)``,
  ``[x, y]``, ``x=.., y=..``), mapped by ``coordinates``: ``auto`` (the official rule: both
  values <= 1 are normalized, else pixels), ``absolute``, ``normalized``, ``relative1000``
  (Qwen2-VL and older UI-TARS) or ``smart_resize``.

Every reading becomes a ``click`` at screen pixels of the screenshot the agent saw. Output
with no point is an `ActionParseError` (reported as ``info["action_error"]``, scored a miss).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from gui_gym.actions import Action
from gui_gym.action_formats import json_format, uitars
from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.errors import ActionParseError
from gui_gym.suites.mmbench.answers import find_point, json_output, kind_phrase, to_pixels

_UITARS = re.compile(
    r"^[ \t]*Action[ \t]*:|^[ \t]*[A-Za-z_]\w*\s*\(\s*(?:start_box|point|start_point)\s*=", re.MULTILINE)
_TAGS = re.compile(r"<\|box_start\|>|<\|box_end\|>|</?point>")


def parse(value: "str | Mapping[str, Any]", **context: Any) -> Action:
    """Exactly one click."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected one point, received {len(actions)} actions")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", *, screen_size: tuple[int, int] | None = None,
               coordinates: str = "auto", **_context: Any) -> list[Action]:
    """The click(s) an agent's output points at, in pixels of a `screen_size` screenshot."""
    if screen_size is None:
        raise ActionParseError("reading a point needs screen_size=(width, height) of the screenshot")
    structured = json_output(value)
    if structured is not None:
        actions = json_format.parse_many(structured)
    elif not isinstance(value, str):
        raise ActionParseError(f"expected a point as text or a click action, received {type(value).__name__}")
    elif _UITARS.search(value):
        mode = "smart_resize" if coordinates == "auto" else coordinates
        actions = uitars.parse_many(value, screen_size=screen_size, coordinates=mode)
    else:
        point = find_point(_TAGS.sub(" ", value))
        if point is None:
            shown = value if len(value) <= 80 else value[:80] + "..."
            raise ActionParseError(
                f"expected a point like '(x,y)', '[x, y]', 'x=.., y=..' or a click action, received {shown!r}")
        actions = [Action.click(*to_pixels(point[0], point[1], screen_size, coordinates))]
    for action in actions:
        check(action)
    return [Action.click(*action.point) for action in actions]


def check(action: Action, **_context: Any) -> None:
    """Raise `ActionParseError` unless `action` points at pixels."""
    if action.point is None:
        what = kind_phrase(action.kind) + (" on an element index" if action.element is not None else " without x,y")
        raise ActionParseError(f"this is a grounding task: expected a click or a point (x,y) on the screenshot, received {what}")


def format(action: Action, *, screen_size: tuple[int, int] | None = None, coordinates: str = "auto",
           **_context: Any) -> str:
    """``(x,y)``: whole pixels for ``auto``/``absolute``, else in the named space."""
    check(action)
    if coordinates in ("auto", "absolute"):
        return f"({round(action.x)},{round(action.y)})"
    x, y = CoordinateMapping(coordinates, screen_size).to_model(action.x, action.y)
    return f"({x:.4g},{y:.4g})" if coordinates == "normalized" else f"({round(x)},{round(y)})"

