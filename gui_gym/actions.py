"""The canonical action every text format is read into and written out of.

Benchmarks disagree on what an action looks like (UI-TARS text, pyautogui code, OSWorld's
computer_13 dicts, AndroidWorld's JSONAction). Everything inside gui-gym speaks `Action`, a
frozen dataclass with a `kind` and typed fields; the per-format parsers and formatters live in
`gui_gym.action_formats`, one floor up, and are reached through its `parse_action` /
`format_action` (also exported by ``gui_gym``).

Coordinates are absolute pixels of the screen the agent saw, as floats: a model that answers
in a resized or 0-1000 space is mapped back exactly, and rounding happens only where a pixel is
finally pressed or a coordinate is written out as text.

Limits, checked at the door (`gui_gym.action_formats.read_actions`, which every env step
goes through, and `check_step` here), so that no agent output can hang or stall an env and
every rejection is an `ActionParseError` at once:

- an output string holds at most `MAX_OUTPUT_CHARS` characters of valid Unicode (no lone
  surrogates), so parsing is fast whatever comes;
- a point lies at most `SCREEN_MARGIN` screens beyond the edge: a drag may end past it, but
  no screen holds x=1e39 (past float32, where Chromium's input pipeline never answers);
- one step holds at most `MAX_ACTIONS_PER_STEP` actions, types at most `MAX_TEXT_CHARS`
  characters, and waits (wait, long_press) at most `MAX_WAIT_S` seconds in all;
- a scroll moves at most `MAX_SCROLL_AMOUNT` notches, a chord holds at most `MAX_KEYS`
  keys of at most `MAX_KEY_NAME_CHARS` characters, an element index is below
  `MAX_ELEMENT_INDEX`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

from gui_gym.errors import ActionParseError, excerpt

POINTER_KINDS = frozenset(
    {"click", "double_click", "triple_click", "right_click", "move", "long_press",
     "mouse_down", "mouse_up"}
)
"""Kinds that act at one point: (x, y) or an element index, or, for mouse_down/up, the
current pointer position when neither is given."""

KINDS = frozenset(
    POINTER_KINDS
    | {"drag", "swipe", "scroll", "type", "key", "hotkey", "key_down", "key_up", "wait",
       "done", "fail", "answer", "open_app", "navigate_back", "navigate_home", "goto"}
)
TERMINAL_KINDS = frozenset({"done", "fail", "answer"})
DIRECTIONS = ("up", "down", "left", "right")
BUTTONS = ("left", "middle", "right")
DEFAULT_SCROLL_AMOUNT = 5
"""Wheel notches when a format gives no amount (UI-TARS' scroll has none)."""
DEFAULT_WAIT_S = 1.0
"""How long a wait or a long press without a duration lasts, as the backends carry it out."""

MAX_OUTPUT_CHARS = 32_768
"""Longest agent output read: a UI-TARS thought and action are a few hundred characters, a
model's answer a few thousand at most, and parsing the longest takes a few tens of ms."""
MAX_TEXT_CHARS = 10_000
"""Most characters one step may type (a real browser types ~600 a second), answer or navigate to."""
MAX_ACTIONS_PER_STEP = 50
MAX_WAIT_S = 60.0
"""Most seconds one step may wait or press, its waits and long presses together."""
MAX_SCROLL_AMOUNT = 1_000
MAX_KEYS = 16
MAX_KEY_NAME_CHARS = 64
MAX_ELEMENT_INDEX = 2**31 - 1
SCREEN_MARGIN = 1.0
"""How far beyond the screen's edge a point may lie, in screen widths (heights)."""

_KEY_ALIASES = {
    "control": "ctrl", "ctl": "ctrl", "return": "enter", "escape": "esc", "del": "delete",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "cmd": "meta", "command": "meta", "win": "meta", "super": "meta", "windows": "meta",
    "option": "alt", "pgup": "pageup", "pgdn": "pagedown", "page_up": "pageup",
    "page_down": "pagedown", "spacebar": " ", "space": " ", "back": "backspace",
    "ins": "insert", "caps_lock": "capslock", "altleft": "alt", "altright": "alt",
    "ctrlleft": "ctrl", "ctrlright": "ctrl", "shiftleft": "shift", "shiftright": "shift",
    "winleft": "meta", "winright": "meta",
}
_CONTROL_CHARS = {"\n": "enter", "\r": "enter", "\t": "tab"}
"""pyautogui accepts these characters as key names; they are the same keys as the names."""


def normalize_key(key: str) -> str:
    """One spelling per key: lowercase pyautogui names (``ctrl``, ``enter``, ``esc``,
    ``up``, ``pagedown``, ``f5``), ``meta`` for the Windows/Command key, and single
    characters as themselves (``" "`` is the space bar)."""
    if not isinstance(key, str) or key == "":
        raise ActionParseError(f"expected a non-empty key name, received {excerpt(key)}")
    if len(key) == 1:
        return _CONTROL_CHARS.get(key, key.lower() if key.isalpha() else key)
    name = key.strip().lower().replace("-", "_")
    if name == "":
        return " "
    return _KEY_ALIASES.get(name, _KEY_ALIASES.get(name.replace("_", ""), name.replace("_", "")))


@dataclass(frozen=True)
class Action:
    """One GUI action. Only the fields its `kind` uses are set; the rest stay None.

    >>> Action.click(10, 20)
    Action(kind='click', x=10.0, y=20.0)
    >>> Action(kind="hotkey", keys=("Control", "C")).keys
    ('ctrl', 'c')
    """

    kind: str
    x: float | None = None
    y: float | None = None
    to_x: float | None = None
    to_y: float | None = None
    element: int | None = None
    button: str | None = None
    direction: str | None = None
    amount: int | None = None
    text: str | None = None
    keys: tuple[str, ...] | None = None
    duration_s: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ActionParseError(f"unknown action kind {excerpt(self.kind)}; expected one of {sorted(KINDS)}")
        for name in ("x", "y", "to_x", "to_y", "duration_s"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, finite_float(value, f"{self.kind}: {name}"))
        if self.keys is not None:
            if isinstance(self.keys, str) or not all(isinstance(k, str) for k in self.keys):
                raise ActionParseError(f"{self.kind}: keys must be a sequence of key names, received {excerpt(self.keys)}")
            if len(self.keys) > MAX_KEYS:
                raise ActionParseError(f"{self.kind}: at most {MAX_KEYS} keys are pressed together, received {len(self.keys)}")
            for key in self.keys:
                check_text(key, f"{self.kind}: a key name", MAX_KEY_NAME_CHARS)
            object.__setattr__(self, "keys", tuple(normalize_key(k) for k in self.keys))
        if self.element is not None and (isinstance(self.element, bool) or not isinstance(self.element, int)
                                         or not 0 <= self.element <= MAX_ELEMENT_INDEX):
            raise ActionParseError(f"{self.kind}: element must be a non-negative int (at most {MAX_ELEMENT_INDEX}), "
                                   f"received {excerpt(self.element)}")
        _REQUIREMENTS[self.kind](self)

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if f.name != "kind" and getattr(self, f.name) is not None
        )
        return f"Action(kind={self.kind!r}{', ' if fields else ''}{fields})"

    @property
    def is_terminal(self) -> bool:
        """True for done / fail / answer: the agent ends the episode."""
        return self.kind in TERMINAL_KINDS

    @property
    def point(self) -> tuple[float, float] | None:
        return None if self.x is None or self.y is None else (self.x, self.y)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict with only the fields that are set."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self)[1:]:
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if f.name == "keys" else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Action":
        if not isinstance(data, Mapping):
            raise ActionParseError(f"expected an action object, received {type(data).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        if len(data) > len(names):
            raise ActionParseError(f"an action object has at most {len(names)} fields, received {len(data)}")
        unknown = set(data) - names
        if unknown:
            raise ActionParseError(f"unknown action field(s) {excerpt(sorted(map(str, unknown)))}; "
                                   f"expected some of {sorted(names)}")
        if "kind" not in data:
            raise ActionParseError("action object has no 'kind'")
        fields = dict(data)
        if fields.get("keys") is not None:
            if isinstance(fields["keys"], str) or not isinstance(fields["keys"], (list, tuple)):
                raise ActionParseError(f"keys must be a list of key names, received {excerpt(fields['keys'])}")
            fields["keys"] = tuple(fields["keys"])
        try:
            return cls(**fields)
        except TypeError as exc:
            raise ActionParseError(str(exc)) from exc

    # Constructors with the argument names users expect.
    @classmethod
    def click(cls, x: float, y: float, button: str = "left") -> "Action":
        return cls("right_click", x=x, y=y) if button == "right" else cls("click", x=x, y=y, button=None if button == "left" else button)

    @classmethod
    def click_element(cls, index: int, kind: str = "click") -> "Action":
        return cls(kind, element=index)

    @classmethod
    def double_click(cls, x: float, y: float) -> "Action":
        return cls("double_click", x=x, y=y)

    @classmethod
    def right_click(cls, x: float, y: float) -> "Action":
        return cls("right_click", x=x, y=y)

    @classmethod
    def move(cls, x: float, y: float) -> "Action":
        return cls("move", x=x, y=y)

    @classmethod
    def drag(cls, x: float, y: float, to_x: float, to_y: float) -> "Action":
        return cls("drag", x=x, y=y, to_x=to_x, to_y=to_y)

    @classmethod
    def scroll(cls, direction: str, amount: int = DEFAULT_SCROLL_AMOUNT,
               x: float | None = None, y: float | None = None) -> "Action":
        return cls("scroll", direction=direction, amount=amount, x=x, y=y)

    @classmethod
    def type(cls, text: str) -> "Action":
        return cls("type", text=text)

    @classmethod
    def key(cls, key: str) -> "Action":
        return cls("key", keys=(key,))

    @classmethod
    def hotkey(cls, *keys: str) -> "Action":
        return cls("hotkey", keys=tuple(keys))

    @classmethod
    def wait(cls, seconds: float = 1.0) -> "Action":
        return cls("wait", duration_s=seconds)

    @classmethod
    def done(cls, text: str | None = None) -> "Action":
        return cls("done", text=text)

    @classmethod
    def fail(cls, text: str | None = None) -> "Action":
        return cls("fail", text=text)

    @classmethod
    def answer(cls, text: str) -> "Action":
        return cls("answer", text=text)

    @classmethod
    def goto(cls, url: str) -> "Action":
        return cls("goto", text=url)


def finite_float(value: Any, where: str) -> float:
    """`value` as a float, or `ActionParseError` (`where` names the field) unless it is a
    finite int or float: not a bool, not NaN or inf, not an integer too large for a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionParseError(f"{where} must be a finite number, received {excerpt(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ActionParseError(f"{where} must be a finite number, received an integer too large for a float "
                               f"({value.bit_length()} bits)") from None
    if not math.isfinite(number):
        raise ActionParseError(f"{where} must be a finite number, received {value!r}")
    return number


def check_text(text: str, what: str, limit: int) -> None:
    """Raise `ActionParseError` unless `text` is at most `limit` characters of valid Unicode
    (a lone surrogate cannot be typed, sent or written to a file)."""
    if len(text) > limit:
        raise ActionParseError(f"{what} is {len(text)} characters long; at most {limit} are accepted")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ActionParseError(f"{what} holds a lone surrogate (U+{ord(text[exc.start]):04X} at index {exc.start}); "
                               "expected valid Unicode text") from None


def _no_fields(*allowed: str):
    allowed_set = set(allowed) | {"kind"}

    def check(action: Action) -> None:
        extra = [f.name for f in dataclasses.fields(action)
                 if f.name not in allowed_set and getattr(action, f.name) is not None]
        if extra:
            raise ActionParseError(f"{action.kind}: unexpected field(s) {excerpt(extra)}")
    return check


def _require_point(action: Action, optional: bool = False) -> None:
    has_xy = action.x is not None and action.y is not None
    if (action.x is None) != (action.y is None):
        raise ActionParseError(f"{action.kind}: x and y must be given together")
    if has_xy and action.element is not None:
        raise ActionParseError(f"{action.kind}: give either x,y or element, not both")
    if not optional and not has_xy and action.element is None:
        raise ActionParseError(f"{action.kind}: needs x,y or an element index")


def _check_pointer(action: Action) -> None:
    _no_fields("x", "y", "element", "button", "duration_s")(action)
    _require_point(action, optional=action.kind in ("mouse_down", "mouse_up"))
    if action.button is not None:
        if action.button not in BUTTONS:
            raise ActionParseError(f"{action.kind}: button must be one of {BUTTONS}, received {excerpt(action.button)}")
        if action.kind not in ("click", "mouse_down", "mouse_up"):
            raise ActionParseError(f"{action.kind}: takes no button")
        if action.kind == "click" and action.button == "right":
            raise ActionParseError("click: a right-button click is kind 'right_click'")
        if action.button == "left":
            object.__setattr__(action, "button", None)  # left is the default; one spelling
    if action.duration_s is not None:
        if action.kind != "long_press":
            raise ActionParseError(f"{action.kind}: takes no duration_s")
        if not 0 < action.duration_s <= MAX_WAIT_S:
            raise ActionParseError(f"long_press: duration_s must be within (0, {MAX_WAIT_S:g}], received {action.duration_s:g}")


def _check_two_points(action: Action) -> None:
    _no_fields("x", "y", "to_x", "to_y", "direction", "duration_s")(action)
    if action.duration_s is not None and not 0 < action.duration_s <= MAX_WAIT_S:
        raise ActionParseError(f"{action.kind}: duration_s must be within (0, {MAX_WAIT_S:g}], received {action.duration_s:g}")
    if action.kind == "swipe" and action.direction is not None:
        if action.direction not in DIRECTIONS:
            raise ActionParseError(f"swipe: direction must be one of {DIRECTIONS}, received {excerpt(action.direction)}")
        if action.to_x is not None or action.to_y is not None:
            raise ActionParseError("swipe: give a direction or an end point, not both")
        _require_point(action, optional=True)
        return
    if action.direction is not None:
        raise ActionParseError("drag: takes no direction")
    if None in (action.x, action.y, action.to_x, action.to_y):
        raise ActionParseError(f"{action.kind}: needs x, y, to_x and to_y")


def _check_scroll(action: Action) -> None:
    _no_fields("x", "y", "element", "direction", "amount")(action)
    _require_point(action, optional=True)
    if action.direction not in DIRECTIONS:
        raise ActionParseError(f"scroll: direction must be one of {DIRECTIONS}, received {excerpt(action.direction)}")
    if action.amount is None:
        object.__setattr__(action, "amount", DEFAULT_SCROLL_AMOUNT)
    if isinstance(action.amount, bool) or not isinstance(action.amount, int) or not 0 < action.amount <= MAX_SCROLL_AMOUNT:
        raise ActionParseError(f"scroll: amount must be a positive int (wheel notches, at most {MAX_SCROLL_AMOUNT}), "
                               f"received {excerpt(action.amount)}")


def _check_text(required: bool, *extra: str):
    base = _no_fields("text", *extra)

    def check(action: Action) -> None:
        base(action)
        if action.text is not None:
            if not isinstance(action.text, str):
                raise ActionParseError(f"{action.kind}: text must be a string, received {excerpt(action.text)}")
            check_text(action.text, f"{action.kind}: the text", MAX_TEXT_CHARS)
        if required and not action.text:
            raise ActionParseError(f"{action.kind}: needs a non-empty text")
        if action.kind == "type":
            _require_point(action, optional=True)
    return check


def _check_keys(exactly_one: bool):
    base = _no_fields("keys")

    def check(action: Action) -> None:
        base(action)
        if not action.keys:
            raise ActionParseError(f"{action.kind}: needs at least one key")
        if exactly_one and len(action.keys) != 1:
            raise ActionParseError(f"{action.kind}: takes exactly one key, received {list(action.keys)}")
    return check


def _check_wait(action: Action) -> None:
    _no_fields("duration_s")(action)
    if action.duration_s is not None and not 0 <= action.duration_s <= MAX_WAIT_S:
        raise ActionParseError(f"wait: duration_s must be within [0, {MAX_WAIT_S:g}], received {action.duration_s:g}")


_REQUIREMENTS = {
    **{kind: _check_pointer for kind in POINTER_KINDS},
    "drag": _check_two_points,
    "swipe": _check_two_points,
    "scroll": _check_scroll,
    "type": _check_text(True, "element", "x", "y"),
    "key": _check_keys(True),
    "key_down": _check_keys(True),
    "key_up": _check_keys(True),
    "hotkey": _check_keys(False),
    "wait": _check_wait,
    "done": _check_text(False),
    "fail": _check_text(False),
    "answer": _check_text(True),
    "open_app": _check_text(True),
    "goto": _check_text(True),
    "navigate_back": _no_fields(),
    "navigate_home": _no_fields(),
}


def check_action_count(count: int) -> None:
    """Raise `ActionParseError` when one output holds more actions than a step takes; parsers
    call it as they go, so that a million-fold repetition stops at the first one too many."""
    if count > MAX_ACTIONS_PER_STEP:
        raise ActionParseError(f"the output holds more than {MAX_ACTIONS_PER_STEP} actions; one step takes at most "
                               f"{MAX_ACTIONS_PER_STEP}")


def check_step(actions: "list[Action]", screen: tuple[int, int] | None) -> None:
    """Raise `ActionParseError` unless `actions` fit in one step (count, typing, waiting) and
    every point lies on `screen`, give or take `SCREEN_MARGIN` screens."""
    if not actions:
        raise ActionParseError("the output holds no action")
    check_action_count(len(actions))
    typed = sum(len(a.text) for a in actions if a.kind == "type")
    if typed > MAX_TEXT_CHARS:
        raise ActionParseError(f"the output types {typed} characters; one step types at most {MAX_TEXT_CHARS}")
    waited = sum(DEFAULT_WAIT_S if a.duration_s is None else a.duration_s for a in actions
                 if a.kind in ("wait", "long_press"))
    if waited > MAX_WAIT_S:
        raise ActionParseError(f"the output waits {waited:g} s; one step waits at most {MAX_WAIT_S:g} s in all")
    if screen is None:
        return
    width, height = screen
    for action in actions:
        for name, value, size in (("x", action.x, width), ("y", action.y, height),
                                  ("to_x", action.to_x, width), ("to_y", action.to_y, height)):
            if value is not None and not -SCREEN_MARGIN * size <= value <= (1 + SCREEN_MARGIN) * size:
                raise ActionParseError(
                    f"{action.kind}: {name}={value:g} is off the {width}x{height} screen; expected screen pixels "
                    f"within [{-SCREEN_MARGIN * size:g}, {(1 + SCREEN_MARGIN) * size:g}] (at most "
                    f"{SCREEN_MARGIN:g} screen beyond the edge)")
