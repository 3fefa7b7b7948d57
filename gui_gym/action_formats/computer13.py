"""OSWorld's ``computer_13`` action space: ``{"action_type": "CLICK", "parameters": {...}}``.

OSWorld's controller accepts the parameters nested under ``"parameters"`` (the shape of its
``ACTION_SPACE``) or flat beside ``action_type`` (what its prompts ask models to write), and
the bare strings ``WAIT``/``DONE``/``FAIL``; all are read here, as a dict, a list of them, or
JSON text (optionally in a ```json fence). Coordinates are screen pixels. `format` writes
the nested shape, with ints for coordinates.

OSWorld executes these through pyautogui, so the pointer rules of `pyautogui_code` apply:
CLICK / RIGHT_CLICK / DOUBLE_CLICK without x, y act at the pointer left by an earlier action
of the same output, or (single clicks only) become a press and release where the pointer is;
DRAG_TO drags from the known pointer (absorbing a preceding MOVE_TO), else becomes
mouse_down, move, mouse_up. SCROLL's dy > 0 scrolls up and dx > 0 right; both non-zero give
two scrolls, horizontal first as OSWorld runs them. A SCROLL or MOUSE_DOWN/UP right after a
MOVE_TO reads as that action at the point, which is how `format` writes actions at a point
(a drag is written as MOVE_TO then DRAG_TO): those return a list of two dicts.
CLICK's num_clicks 1/2/3 (left) give click/double_click/triple_click; right with 1 click is
right_click; other combinations have no canonical action and raise. WAIT, DONE and FAIL
carry no text or duration, so a done/fail text and a wait duration are not written.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_text, finite_float
from gui_gym.action_formats.pyautogui_code import PointerTrail
from gui_gym.action_formats.reading import load_json, strip_fence
from gui_gym.errors import ActionParseError, excerpt

PARAMETERS: dict[str, tuple[str, ...]] = {
    "MOVE_TO": ("x", "y"), "CLICK": ("button", "x", "y", "num_clicks"), "MOUSE_DOWN": ("button",),
    "MOUSE_UP": ("button",), "RIGHT_CLICK": ("x", "y"), "DOUBLE_CLICK": ("x", "y"), "DRAG_TO": ("x", "y"),
    "SCROLL": ("dx", "dy"), "TYPING": ("text",), "PRESS": ("key",), "KEY_DOWN": ("key",), "KEY_UP": ("key",),
    "HOTKEY": ("keys",), "WAIT": (), "FAIL": (), "DONE": (),
}
"""action_type -> the parameters OSWorld's ACTION_SPACE defines for it."""

EXAMPLE = '{"action_type": "CLICK", "parameters": {"x": 100, "y": 200}}'
_SIMPLE = {"WAIT": Action("wait"), "DONE": Action.done(), "FAIL": Action.fail()}
_CLICKS = {(1, None): "click", (1, "middle"): "click", (2, None): "double_click", (3, None): "triple_click",
           (1, "right"): "right_click"}
_TO_OSWORLD_KEY = {"meta": "win"}


def parse(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> Action:
    """Exactly one canonical action from a computer_13 action."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one computer_13 action, received {len(actions)} actions")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", **_context: Any) -> list[Action]:
    """Every action in a computer_13 dict, list of dicts, or JSON text."""
    items = _items(value)
    trail = PointerTrail()
    for number, item in enumerate(items, 1):
        _read(item, trail, f"action {number}" if len(items) > 1 else "computer_13")
    return trail.actions


def _items(value: Any) -> list[Any]:
    if isinstance(value, str):
        check_text(value, "the computer_13 output", MAX_OUTPUT_CHARS)
        text = strip_fence(value, ("json",)).strip()
        if text in _SIMPLE:
            return [text]
        if not text:
            raise ActionParseError(f"expected a computer_13 action like {EXAMPLE}, received an empty string")
        value = load_json(text, f"a computer_13 action like {EXAMPLE}")
    if isinstance(value, Mapping):
        return [value]
    if isinstance(value, list) and value:
        return value
    received = "an empty list" if isinstance(value, list) else type(value).__name__
    raise ActionParseError(f"expected a computer_13 action like {EXAMPLE} (or a list of them), received {received}")


def _read(item: Any, trail: PointerTrail, where: str) -> None:
    if isinstance(item, str) and item in _SIMPLE:
        trail.add(_SIMPLE[item])
        return
    if not isinstance(item, Mapping):
        raise ActionParseError(f"{where}: expected an object like {EXAMPLE}, received {type(item).__name__}")
    action_type = item.get("action_type")
    if not isinstance(action_type, str) or action_type.upper() not in PARAMETERS:
        raise ActionParseError(f"{where}: unknown action_type {excerpt(action_type)}; expected one of {list(PARAMETERS)}")
    action_type = action_type.upper()
    where = f"{where} ({action_type})"
    if "parameters" in item:
        extra = sorted(set(item) - {"action_type", "parameters"})
        if extra:
            raise ActionParseError(f"{where}: give parameters either under 'parameters' or flat, not both; "
                                   f"received {excerpt(extra)} beside 'parameters'")
        params = item["parameters"] if item["parameters"] is not None else {}
        if not isinstance(params, Mapping):
            raise ActionParseError(f"{where}: 'parameters' must be an object, received {excerpt(params)}")
    else:
        params = {key: v for key, v in item.items() if key != "action_type"}
    unknown = sorted(set(params) - set(PARAMETERS[action_type]))
    if unknown:
        expected = ", ".join(PARAMETERS[action_type]) or "no parameters"
        raise ActionParseError(f"{where} takes {expected}; received unknown {excerpt(unknown)}")
    _READERS[action_type](_Params(params, where), trail)


class _Params:
    def __init__(self, params: Mapping[str, Any], where: str) -> None:
        self.values = {key: v for key, v in params.items() if v is not None}
        self.where = where

    def point(self, required: bool = False) -> tuple[float, float] | None:
        x, y = self.values.get("x"), self.values.get("y")
        for name, v in (("x", x), ("y", y)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise ActionParseError(f"{self.where}: {name} must be a number of screen pixels, received {excerpt(v)}")
        if x is None and y is None and not required:
            return None
        if x is None or y is None:
            raise ActionParseError(f"{self.where}: needs both x and y (screen pixels), received {excerpt(dict(self.values))}")
        return finite_float(x, f"{self.where}: x"), finite_float(y, f"{self.where}: y")

    def button(self) -> str | None:
        button = self.values.get("button", "left")
        if button not in ("left", "middle", "right"):
            raise ActionParseError(f"{self.where}: button must be 'left', 'middle' or 'right', received {excerpt(button)}")
        return None if button == "left" else button

    def integer(self, name: str) -> int:
        v = self.values.get(name, 0)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ActionParseError(f"{self.where}: {name} must be an int, received {excerpt(v)}")
        return v

    def text(self, name: str) -> str:
        v = self.values.get(name)
        if not isinstance(v, str) or not v:
            raise ActionParseError(f"{self.where}: {name} must be a non-empty string, received {excerpt(v)}")
        return v


def _click(p: _Params, trail: PointerTrail) -> None:
    button, clicks = p.button(), p.values.get("num_clicks", 1)
    kind = _CLICKS.get((clicks, button)) if isinstance(clicks, int) and not isinstance(clicks, bool) else None
    if kind is None:
        raise ActionParseError(f"{p.where}: num_clicks={excerpt(clicks)} with button {button or 'left'!r} has no canonical "
                               "action; use num_clicks 1, 2 or 3 with the left button, or 1 with right/middle")
    trail.click(kind, p.point(), button if kind == "click" else None, p.where)


def _scroll(p: _Params, trail: PointerTrail) -> None:
    dx, dy = p.integer("dx"), p.integer("dy")
    if dx == 0 and dy == 0:
        raise ActionParseError(f"{p.where}: dx and dy are both 0; give a non-zero dy (up > 0) or dx (right > 0)")
    if dx:
        trail.add_at_last_move("scroll", direction="right" if dx > 0 else "left", amount=abs(dx))
    if dy:
        trail.add_at_last_move("scroll", direction="up" if dy > 0 else "down", amount=abs(dy))


def _hotkey(p: _Params, trail: PointerTrail) -> None:
    keys = p.values.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise ActionParseError(f"{p.where}: keys must be a non-empty list of key names, received {excerpt(keys)}")
    trail.add(Action("key" if len(keys) == 1 else "hotkey", keys=tuple(keys)))


_READERS = {
    "MOVE_TO": lambda p, t: t.add(Action.move(*p.point(required=True))),
    "CLICK": _click,
    "MOUSE_DOWN": lambda p, t: t.add_at_last_move("mouse_down", button=p.button()),
    "MOUSE_UP": lambda p, t: t.add_at_last_move("mouse_up", button=p.button()),
    "RIGHT_CLICK": lambda p, t: t.click("right_click", p.point(), None, p.where),
    "DOUBLE_CLICK": lambda p, t: t.click("double_click", p.point(), None, p.where),
    "DRAG_TO": lambda p, t: t.drag_to(*p.point(required=True)),
    "SCROLL": _scroll,
    "TYPING": lambda p, t: t.add(Action.type(p.text("text"))),
    "PRESS": lambda p, t: t.add(Action.key(p.text("key"))),
    "KEY_DOWN": lambda p, t: t.add(Action("key_down", keys=(p.text("key"),))),
    "KEY_UP": lambda p, t: t.add(Action("key_up", keys=(p.text("key"),))),
    "HOTKEY": _hotkey,
    "WAIT": lambda p, t: t.add(_SIMPLE["WAIT"]),
    "DONE": lambda p, t: t.add(_SIMPLE["DONE"]),
    "FAIL": lambda p, t: t.add(_SIMPLE["FAIL"]),
}


# Writing ---------------------------------------------------------------------------------

def _dict(action_type: str, **params: Any) -> dict[str, Any]:
    return {"action_type": action_type, "parameters": params}


def _key(key: str) -> str:
    return _TO_OSWORLD_KEY.get(key, key)


def format(action: Action, **_context: Any) -> "dict[str, Any] | list[dict[str, Any]]":
    """The computer_13 dict for one action, or [MOVE_TO, that action] for an action at a
    point that computer_13 can only do at the pointer (drag, scroll, mouse_down/up)."""
    kind = action.kind
    if action.element is not None:
        raise ActionParseError(f"{kind} on element {action.element} cannot be written as computer_13: it needs x, y")
    point = {"x": round(action.x), "y": round(action.y)} if action.x is not None else {}
    if kind == "move":
        return _dict("MOVE_TO", **point)
    if kind in ("click", "triple_click"):
        return _dict("CLICK", button=action.button or "left", **point, num_clicks=1 if kind == "click" else 3)
    if kind in ("double_click", "right_click"):
        return _dict(kind.upper(), **point)
    if kind == "drag":
        return [_dict("MOVE_TO", **point), _dict("DRAG_TO", x=round(action.to_x), y=round(action.to_y))]
    if kind in ("mouse_down", "mouse_up", "scroll"):
        if kind == "scroll":
            sign = 1 if action.direction in ("up", "right") else -1
            horizontal = action.direction in ("left", "right")
            delta = sign * action.amount
            main = _dict("SCROLL", dx=delta if horizontal else 0, dy=0 if horizontal else delta)
        else:
            main = _dict(kind.upper(), button=action.button or "left")
        return [_dict("MOVE_TO", **point), main] if point else main
    if kind == "type":
        if point:
            raise ActionParseError("type at a point cannot be written as computer_13: click there first")
        return _dict("TYPING", text=action.text)
    if kind in ("key", "key_down", "key_up"):
        return _dict({"key": "PRESS"}.get(kind, kind.upper()), key=_key(action.keys[0]))
    if kind == "hotkey":
        return _dict("HOTKEY", keys=[_key(k) for k in action.keys])
    if kind in ("wait", "done", "fail"):
        return {"action_type": kind.upper()}
    raise ActionParseError(f"{kind} cannot be written as computer_13: it has no computer_13 action")
