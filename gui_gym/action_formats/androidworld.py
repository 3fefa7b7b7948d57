"""AndroidWorld's JSONAction: ``{"action_type": "click", "index": 3}`` or ``{..., "x": 10, "y": 20}``.

The format of AndroidWorld's agents (M3A, T3A, SeeAct-V) and of AndroidControl-style data,
read as a dict or JSON text (optionally in a ```json fence); a list gives several actions.
Fields are AndroidWorld's: action_type, index, x, y, text, direction, goal_status,
app_name, keycode, clear_text. ``index`` (into the UI element list) becomes ``element``;
it and x, y are exclusive.

What is accepted is what AndroidWorld's ``env/json_action.py`` accepts, and it means what
its ``env/actuation.py`` executes:
- A field AndroidWorld does not know is refused (its dataclass takes no other); a known field
  the action type does not use is ignored, as AndroidWorld ignores it, with a note in
  ``info["action_warnings"]`` (`gui_gym.action_formats.warn`). AndroidWorld's own checks hold
  for every type: index and x, y exclusive, a direction among the four, a keycode
  ``KEYCODE_...``.
- ``index`` is read with ``int()`` as AndroidWorld does: ``3``, ``3.0``, ``"3"``, and ``3.7``
  as 3 (noted). ``x``, ``y`` are numbers (or text ``int()`` reads).
- ``scroll`` direction is the direction the view moves to reveal content ("down" swipes the
  finger up and shows what is below), the same meaning as a desktop scroll. AndroidWorld
  scrolls the element ``index`` names, else the whole screen, and ignores x, y; so do we. Its
  test is ``if action.index:``, so index 0 scrolls the whole screen: a bug we follow by
  default (noted). ``swipe`` runs across the whole screen and ignores index, x, y; "up" and
  "down" name the finger's direction but "left" moves the finger from the left edge to the
  right one (and "right" the other way), so they become canonical finger swipes "right" and
  "left". ``androidworld_semantics="intended"`` (format context) reads instead what the
  fields say: scroll index 0 is element 0, scroll at x, y scrolls there, swipe from x, y, and
  every swipe direction is the finger's.
- ``input_text`` with text focuses its target (index or x, y) if any, clears the field first
  when ``clear_text`` is true (AndroidWorld's select-all and delete: ctrl+a then backspace,
  each its own canonical action), types, then presses Enter. The canonical form of "then
  Enter" is a trailing newline, so it reads as ``type(text + "\\n")``, and only a type ending
  in a newline is written as input_text. AndroidControl-style data, whose input_text does not
  submit, is read and written verbatim with ``input_text_submits=False``. With no text
  AndroidWorld does nothing at all, and neither do we (a ``wait`` of 0 s, noted).
- ``keyboard_enter`` is key enter; ``status`` ends the episode whatever its goal_status, as
  AndroidWorld's agents stop on any status: ``infeasible`` is fail, anything else done (a
  value other than ``complete`` is noted); ``answer`` carries its text (with no text
  AndroidWorld records nothing and goes on: a ``wait`` of 0 s, noted); ``wait`` carries no
  duration (1 s, as AndroidWorld sleeps).
``keycode`` (AndroidWorld's press_keyboard, not among its JSONAction types) is not an action.
Kinds with no JSONAction form (drag, right_click, hotkey, goto, ...) raise on `format`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text
from gui_gym.action_formats.notes import warn
from gui_gym.action_formats.reading import load_json, strip_fence
from gui_gym.errors import ActionParseError, excerpt

FIELDS = ("action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode",
          "clear_text")
EXAMPLE = '{"action_type": "click", "index": 3}'
SEMANTICS = ("androidworld", "intended")
"""How scroll and swipe read: as AndroidWorld executes them (default), or as their fields say."""
_TARGET = ("index", "x", "y")
_ALLOWED: dict[str, tuple[str, ...]] = {
    "click": _TARGET, "double_tap": _TARGET, "long_press": _TARGET,
    "scroll": ("direction", *_TARGET), "swipe": ("direction", *_TARGET),
    "input_text": ("text", "clear_text", *_TARGET), "keyboard_enter": (), "navigate_home": (),
    "navigate_back": (), "open_app": ("app_name",), "status": ("goal_status",), "wait": (),
    "answer": ("text",),
}
"""action_type -> the fields its execution reads (besides action_type); the rest are ignored."""
_SWIPE_FINGER = {"up": "up", "down": "down", "left": "right", "right": "left"}
"""AndroidWorld swipe direction -> the way its finger moves (actuation.py's swipe branch)."""


def parse(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> Action:
    """Exactly one canonical action from a JSONAction; see `parse_many` for the context."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one AndroidWorld action, received {len(actions)}")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", *, input_text_submits: bool = True,
               androidworld_semantics: str = "androidworld", **_context: Any) -> list[Action]:
    """Every action in a JSONAction dict, a list of them, or JSON text.

    `input_text_submits`: whether input_text presses Enter after typing (AndroidWorld's
    actuation does; AndroidControl's data does not). `androidworld_semantics`: one of
    `SEMANTICS` (see the module docstring).
    """
    if androidworld_semantics not in SEMANTICS:
        raise ActionParseError(f"androidworld_semantics must be one of {list(SEMANTICS)}, "
                               f"received {androidworld_semantics!r}")
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
    intended = androidworld_semantics == "intended"
    return [action for n, item in enumerate(items, 1)
            for action in _read(item, f"action {n}" if len(items) > 1 else "AndroidWorld", input_text_submits, intended)]


def _read(item: Any, where: str, submits: bool, intended: bool) -> list[Action]:
    if not isinstance(item, Mapping):
        raise ActionParseError(f"{where}: expected an object like {EXAMPLE}, received {type(item).__name__}")
    unknown = sorted(set(item) - set(FIELDS))
    if unknown:
        raise ActionParseError(f"{where}: unknown field(s) {excerpt(unknown)}; JSONAction fields are {list(FIELDS)}")
    kind = item.get("action_type")
    if kind not in _ALLOWED:
        raise ActionParseError(f"{where}: unknown action_type {excerpt(kind)}; expected one of {list(_ALLOWED)}")
    fields = {key: v for key, v in item.items() if v is not None and key != "action_type"}
    f = _Fields(fields, f"{where} ({kind})")
    f.check_like_androidworld()
    ignored = sorted(set(fields) - set(_ALLOWED[kind]))
    if ignored:
        warn(f"{where}: {kind} does not use {ignored}; ignored, as AndroidWorld ignores them")
    result = _READERS[kind](f, submits, intended)
    return result if isinstance(result, list) else [result]


class _Fields:
    def __init__(self, fields: dict[str, Any], where: str) -> None:
        self.fields, self.where = fields, where

    def check_like_androidworld(self) -> None:
        """The checks AndroidWorld's JSONAction makes whatever the action type
        (json_action.py, ``__post_init__``)."""
        if "index" in self.fields:
            self.fields["index"] = self._int("index", self.fields["index"])
            if "x" in self.fields or "y" in self.fields:
                raise ActionParseError(f"{self.where}: give either index or x, y, not both")
        direction = self.fields.get("direction")
        if direction and direction not in _DIRECTIONS:
            raise ActionParseError(f"{self.where}: direction must be one of {list(_DIRECTIONS)}, received {excerpt(direction)}")
        keycode = self.fields.get("keycode")
        if keycode is not None and not (isinstance(keycode, str) and keycode.startswith("KEYCODE_")):
            raise ActionParseError(f"{self.where}: keycode must be a name like 'KEYCODE_A', received {excerpt(keycode)}")
        if "text" in self.fields and not isinstance(self.fields["text"], str):  # as AndroidWorld does
            self.fields["text"] = str(self.fields["text"])

    def _int(self, name: str, value: Any) -> int:
        """`value` as AndroidWorld's ``int()`` reads it; a fraction it drops is noted."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise ActionParseError(f"{self.where}: {name} must be an integer, received {excerpt(value)}")
        try:
            number = int(value)
        except (ValueError, OverflowError):  # past the digit limit, or a float too large for an int
            raise ActionParseError(f"{self.where}: {name} must be an integer, received {excerpt(value)}") from None
        if isinstance(value, float) and value != number:
            warn(f"{self.where}: {name} {value!r} read as {number}, as AndroidWorld's int() reads it")
        return number

    def target(self, required: bool, *, use_point: bool = True, use_index: bool = True) -> dict[str, Any]:
        """{"element": i} or {"x": .., "y": ..} (or {} when optional and absent)."""
        index, x, y = (self.fields.get(k) for k in _TARGET)
        if index is not None and use_index:
            if index < 0:
                raise ActionParseError(f"{self.where}: index must be a non-negative int, received {excerpt(index)}")
            return {"element": index}
        if (x is None and y is None) or not use_point:
            if required:
                raise ActionParseError(f"{self.where}: needs an element index or x, y")
            return {}
        point = {}
        for name, v in (("x", x), ("y", y)):
            if isinstance(v, str):
                v = self._int(name, v)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ActionParseError(f"{self.where}: {name} must be a number of screen pixels, received {excerpt(v)}")
            point[name] = v
        return point

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


def _input_text(f: _Fields, submits: bool, intended: bool) -> list[Action]:
    """actuation.py's input_text branch: focus, clear if asked, type, Enter; no text, nothing."""
    if not f.fields.get("text"):
        warn(f"{f.where}: no text to type; AndroidWorld executes nothing for it (not even the tap), nor do we")
        return [Action.wait(0)]
    clear = f.fields.get("clear_text", False)
    if not isinstance(clear, bool):
        warn(f"{f.where}: clear_text {excerpt(clear)} read as {bool(clear)}, as AndroidWorld tests it")
    target = f.target(required=False)
    typed = Action("type", text=f.fields["text"] + ("\n" if submits else ""), **({} if clear else target))
    if not clear:
        return [typed]
    focus = [Action("click", **target)] if target else []
    return [*focus, Action.hotkey("ctrl", "a"), Action.key("backspace"), typed]


def _scroll(f: _Fields, submits: bool, intended: bool) -> Action:
    """actuation.py's scroll branch: the element ``if action.index`` (so not 0), else the
    screen; x, y unused."""
    direction = f.choice("direction", _DIRECTIONS)
    if intended:
        return Action("scroll", direction=direction, **f.target(required=False))
    index = f.fields.get("index")
    if f.fields.get("x") is not None or f.fields.get("y") is not None:
        warn(f"{f.where}: AndroidWorld's scroll ignores x, y; scrolling the whole screen")
    if index == 0:
        warn(f"{f.where}: AndroidWorld's scroll tests `if action.index:`, so index 0 scrolls the whole screen "
             "(pass androidworld_semantics='intended' to scroll element 0)")
    return Action("scroll", direction=direction, **f.target(required=False, use_point=False, use_index=bool(index)))


def _swipe(f: _Fields, submits: bool, intended: bool) -> Action:
    """actuation.py's swipe branch: edge to edge through the screen's middle; index, x, y unused."""
    direction = f.choice("direction", _DIRECTIONS)
    if intended:
        return Action("swipe", direction=direction, **f.target(required=False, use_index=False))
    if any(f.fields.get(k) is not None for k in _TARGET):
        warn(f"{f.where}: AndroidWorld's swipe ignores index, x, y; it crosses the whole screen")
    return Action("swipe", direction=_SWIPE_FINGER[direction])


def _status(f: _Fields, submits: bool, intended: bool) -> Action:
    goal = f.fields.get("goal_status")
    if goal not in ("complete", "infeasible"):
        warn(f"{f.where}: goal_status {excerpt(goal)} is neither 'complete' nor 'infeasible'; "
             "AndroidWorld's agents stop on any status, so the episode ends as done")
    return Action.fail() if goal == "infeasible" else Action.done()


def _answer(f: _Fields, submits: bool, intended: bool) -> Action:
    if not f.fields.get("text"):
        warn(f"{f.where}: an answer with no text; AndroidWorld records no answer and goes on, nor do we")
        return Action.wait(0)
    return Action.answer(f.fields["text"])


_DIRECTIONS = ("up", "down", "left", "right")
_READERS: dict[str, Callable[[_Fields, bool, bool], "Action | list[Action]"]] = {
    "click": lambda f, s, i: Action("click", **f.target(required=True)),
    "double_tap": lambda f, s, i: Action("double_click", **f.target(required=True)),
    "long_press": lambda f, s, i: Action("long_press", **f.target(required=True)),
    "scroll": _scroll,
    "swipe": _swipe,
    "input_text": _input_text,
    "keyboard_enter": lambda f, s, i: Action.key("enter"),
    "navigate_home": lambda f, s, i: Action("navigate_home"),
    "navigate_back": lambda f, s, i: Action("navigate_back"),
    "open_app": lambda f, s, i: Action("open_app", text=f.text("app_name")),
    "status": _status,
    "wait": lambda f, s, i: Action("wait"),
    "answer": _answer,
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


def format(action: Action, *, input_text_submits: bool = True, androidworld_semantics: str = "androidworld",
           **_context: Any) -> dict[str, Any]:
    """The JSONAction dict (None fields left out) for one action. A direction swipe is written
    as AndroidWorld will execute it (its left/right name the other way than the finger moves,
    and it takes no start point), unless ``androidworld_semantics="intended"``."""
    kind = action.kind
    if kind in _POINTER_TYPES:
        return {"action_type": _POINTER_TYPES[kind], **_target(action)}
    if kind == "swipe" and action.direction is not None and androidworld_semantics != "intended":
        return {"action_type": "swipe", "direction": _SWIPE_FINGER[action.direction]}  # the map is its own inverse
    if kind == "scroll" or (kind == "swipe" and action.direction is not None):
        return {"action_type": kind, "direction": action.direction, **_target(action)}
    if kind == "type":
        text = action.text or ""
        if input_text_submits:
            if not text.endswith("\n") or text == "\n":
                raise ActionParseError(
                    f"type({excerpt(text)}) cannot be written as AndroidWorld input_text, which always presses Enter "
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
