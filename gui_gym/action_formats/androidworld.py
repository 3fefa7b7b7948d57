"""AndroidWorld's JSONAction: ``{"action_type": "click", "index": 3}`` or ``{..., "x": 10, "y": 20}``.

The format of AndroidWorld's agents (M3A, T3A, SeeAct-V) and of AndroidControl-style data,
read as a dict or JSON text (optionally in a ```json fence); a list gives several actions.
Fields are AndroidWorld's: action_type, index, x, y, text, direction, goal_status,
app_name, keycode, clear_text. ``index`` (into the UI element list) becomes ``element``;
it and x, y are exclusive.

Meanings, checked against AndroidWorld's ``env/actuation.py``:
- ``scroll`` direction is the direction the view moves to reveal content ("down" swipes the
  finger up and shows what is below), the same meaning as a desktop scroll, so it maps
  one-to-one; AndroidWorld has no amount, so the canonical default is used and an amount is
  not written. ``swipe`` direction is the finger's direction (AndroidWorld calls it "the
  inverse of scroll"), as in the canonical swipe.
- ``input_text`` focuses its target (index or x, y) if any, types, then presses Enter. The
  canonical form of "then Enter" is a trailing newline, so it reads as
  ``type(text + "\\n")``, and only a type ending in a newline is written as input_text.
  AndroidControl-style data, whose input_text does not submit, is read and written
  verbatim with ``input_text_submits=False``. ``clear_text`` is accepted and not carried:
  the canonical type has no "clear first" flag.
- ``keyboard_enter`` is key enter; ``status`` complete/infeasible is done/fail (a done or
  fail text is not written: status has no text field; ``answer`` carries text); ``wait``
  carries no duration.
``keycode`` (AndroidWorld's press_keyboard) is not supported. Kinds with no JSONAction form
(drag, right_click, hotkey, goto, ...) raise on `format`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text
from gui_gym.action_formats.reading import load_json, strip_fence
from gui_gym.errors import ActionParseError, excerpt

FIELDS = ("action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode",
          "clear_text")
EXAMPLE = '{"action_type": "click", "index": 3}'
_TARGET = ("index", "x", "y")
_ALLOWED: dict[str, tuple[str, ...]] = {
    "click": _TARGET, "double_tap": _TARGET, "long_press": _TARGET,
    "scroll": ("direction", *_TARGET), "swipe": ("direction", "x", "y"),
    "input_text": ("text", "clear_text", *_TARGET), "keyboard_enter": (), "navigate_home": (),
    "navigate_back": (), "open_app": ("app_name",), "status": ("goal_status",), "wait": (),
    "answer": ("text",),
}
"""action_type -> the fields it takes (besides action_type)."""


def parse(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> Action:
    """Exactly one canonical action from a JSONAction; see `parse_many` for the context."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one AndroidWorld action, received {len(actions)}")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", *, input_text_submits: bool = True,
               **_context: Any) -> list[Action]:
    """Every action in a JSONAction dict, a list of them, or JSON text.

    `input_text_submits`: whether input_text presses Enter after typing (AndroidWorld's
    actuation does; AndroidControl's data does not).
    """
    if isinstance(value, str):
        check_text(value, "the AndroidWorld output", MAX_OUTPUT_CHARS)
        text = strip_fence(value, ("json",)).strip()
        if not text:
            raise ActionParseError(f"expected an AndroidWorld action like {EXAMPLE}, received an empty string")
        value = load_json(text, f"an AndroidWorld action like {EXAMPLE}")
    items = [value] if isinstance(value, Mapping) else value
    if not isinstance(items, list) or not items:
        received = "an empty list" if isinstance(items, list) else type(value).__name__
        raise ActionParseError(f"expected an AndroidWorld action like {EXAMPLE} (or a list of them), "
                               f"received {received}")
    check_action_count(len(items))
    return [_read(item, f"action {n}" if len(items) > 1 else "AndroidWorld", input_text_submits)
            for n, item in enumerate(items, 1)]


def _read(item: Any, where: str, submits: bool) -> Action:
    if not isinstance(item, Mapping):
        raise ActionParseError(f"{where}: expected an object like {EXAMPLE}, received {type(item).__name__}")
    unknown = sorted(set(item) - set(FIELDS))
    if unknown:
        raise ActionParseError(f"{where}: unknown field(s) {excerpt(unknown)}; JSONAction fields are {list(FIELDS)}")
    kind = item.get("action_type")
    if kind not in _ALLOWED:
        raise ActionParseError(f"{where}: unknown action_type {excerpt(kind)}; expected one of {list(_ALLOWED)}")
    fields = {key: v for key, v in item.items() if v is not None and key != "action_type"}
    extra = sorted(set(fields) - set(_ALLOWED[kind]))
    if extra:
        takes = ", ".join(_ALLOWED[kind]) or "no other fields"
        raise ActionParseError(f"{where}: {kind} takes {takes}; received {excerpt(extra)}")
    return _READERS[kind](_Fields(fields, f"{where} ({kind})"), submits)


class _Fields:
    def __init__(self, fields: dict[str, Any], where: str) -> None:
        self.fields, self.where = fields, where

    def target(self, required: bool) -> dict[str, Any]:
        """{"element": i} or {"x": .., "y": ..} (or {} when optional and absent)."""
        index, x, y = (self.fields.get(k) for k in _TARGET)
        if index is not None and (x is not None or y is not None):
            raise ActionParseError(f"{self.where}: give either index or x, y, not both")
        if index is not None:
            if isinstance(index, str) and index.strip().isascii() and index.strip().isdigit() and len(index) < 12:
                index = int(index)
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise ActionParseError(f"{self.where}: index must be a non-negative int, received {excerpt(index)}")
            return {"element": index}
        if x is None and y is None:
            if required:
                raise ActionParseError(f"{self.where}: needs an element index or x, y")
            return {}
        for name, v in (("x", x), ("y", y)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ActionParseError(f"{self.where}: {name} must be a number of screen pixels, received {excerpt(v)}")
        return {"x": x, "y": y}

    def text(self, name: str) -> str:
        v = self.fields.get(name)
        if not isinstance(v, str) or not v:
            raise ActionParseError(f"{self.where}: {name} must be a non-empty string, received {excerpt(v)}")
        return v

    def choice(self, name: str, options: tuple[str, ...]) -> str:
        v = self.fields.get(name)
        if v not in options:
            raise ActionParseError(f"{self.where}: {name} must be one of {list(options)}, received {excerpt(v)}")
        return v


def _input_text(f: _Fields, submits: bool) -> Action:
    if not isinstance(f.fields.get("clear_text", False), bool):
        raise ActionParseError(f"{f.where}: clear_text must be true or false, received {f.fields['clear_text']!r}")
    return Action("type", text=f.text("text") + ("\n" if submits else ""), **f.target(required=False))


_DIRECTIONS = ("up", "down", "left", "right")
_READERS: dict[str, Callable[[_Fields, bool], Action]] = {
    "click": lambda f, s: Action("click", **f.target(required=True)),
    "double_tap": lambda f, s: Action("double_click", **f.target(required=True)),
    "long_press": lambda f, s: Action("long_press", **f.target(required=True)),
    "scroll": lambda f, s: Action("scroll", direction=f.choice("direction", _DIRECTIONS), **f.target(required=False)),
    "swipe": lambda f, s: Action("swipe", direction=f.choice("direction", _DIRECTIONS), **f.target(required=False)),
    "input_text": _input_text,
    "keyboard_enter": lambda f, s: Action.key("enter"),
    "navigate_home": lambda f, s: Action("navigate_home"),
    "navigate_back": lambda f, s: Action("navigate_back"),
    "open_app": lambda f, s: Action("open_app", text=f.text("app_name")),
    "status": lambda f, s: (Action.done() if f.choice("goal_status", ("complete", "infeasible")) == "complete"
                            else Action.fail()),
    "wait": lambda f, s: Action("wait"),
    "answer": lambda f, s: Action.answer(f.text("text")),
}


# Writing ---------------------------------------------------------------------------------

_POINTER_TYPES = {"click": "click", "double_click": "double_tap", "long_press": "long_press"}
_SIMPLE = {"navigate_home": {"action_type": "navigate_home"}, "navigate_back": {"action_type": "navigate_back"},
           "wait": {"action_type": "wait"}, "done": {"action_type": "status", "goal_status": "complete"},
           "fail": {"action_type": "status", "goal_status": "infeasible"}}


def _target(action: Action) -> dict[str, Any]:
    if action.element is not None:
        return {"index": action.element}
    return {"x": round(action.x), "y": round(action.y)} if action.x is not None else {}


def format(action: Action, *, input_text_submits: bool = True, **_context: Any) -> dict[str, Any]:
    """The JSONAction dict (None fields left out) for one action."""
    kind = action.kind
    if kind in _POINTER_TYPES:
        return {"action_type": _POINTER_TYPES[kind], **_target(action)}
    if kind == "scroll" or (kind == "swipe" and action.direction is not None):
        return {"action_type": kind, "direction": action.direction, **_target(action)}
    if kind == "type":
        text = action.text or ""
        if input_text_submits:
            if not text.endswith("\n") or text == "\n":
                raise ActionParseError(
                    f"type({text!r}) cannot be written as AndroidWorld input_text, which always presses Enter "
                    "after the text: only a type ending in a newline can (or pass input_text_submits=False)"
                )
            text = text[:-1]
        return {"action_type": "input_text", "text": text, **_target(action)}
    if kind == "key" and action.keys == ("enter",):
        return {"action_type": "keyboard_enter"}
    if kind in _SIMPLE:
        return dict(_SIMPLE[kind])
    if kind == "open_app":
        return {"action_type": "open_app", "app_name": action.text}
    if kind == "answer":
        return {"action_type": "answer", "text": action.text}
    if kind == "swipe":
        raise ActionParseError("a swipe between two points cannot be written as AndroidWorld: "
                               "its swipe takes a direction")
    raise ActionParseError(f"{kind} cannot be written as an AndroidWorld JSONAction: it has no AndroidWorld action")
