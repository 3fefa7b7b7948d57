"""UI-TARS text: ``Thought: ...`` then ``Action: click(start_box='(x,y)')``.

UI-TARS (and Doubao/Seed GUI models that share its prompt) answer in Python-call syntax with
string keyword arguments. Three generations of prompts spell points differently
(``start_box='(x,y)'``, ``start_box='<|box_start|>(x,y)<|box_end|>'``,
``point='<point>x y</point>'``) and answer in different coordinate spaces (UI-TARS-1.5: the
pixels of the smart-resized image; older models: a 0-1000 grid); all are read here, and
points go through `CoordinateMapping` so an `Action` always holds screen pixels.

Calls are read by a small tokenizer, never evaluated. String values follow Python escapes
(``\\'``, ``\\"``, ``\\n``, ``\\\\``); because models often forget to escape a quote inside
``content``, a quote only closes a string where a new argument or the end of the call follows.
One output may hold several calls (separated by blank lines): `parse_many` returns them all.

Mapping (UI-TARS -> kind): click/left_single -> click, left_double -> double_click,
right_single -> right_click, hover -> move, long_press -> long_press (``time`` ignored),
drag/select/swipe(start, end) and the old mobile scroll(start_box, end_box) -> drag,
scroll(point?, direction) -> scroll with ``DEFAULT_SCROLL_AMOUNT`` (UI-TARS has no amount),
hotkey(key='ctrl c') -> hotkey (one key -> key; 'ctrl+c' is split at the '+' too, see
below), press -> key, keydown -> key_down,
keyup/release -> key_up, enter() -> key enter, type(content) -> type (a trailing newline
is kept: it means submit), wait() -> wait, finished(content?) -> done(text=content or None),
call_user() -> fail(text="call_user"), open_app(app_name) -> open_app, press_home() ->
navigate_home, press_back() -> navigate_back, open_url(url) -> goto.

Where we differ from the reference parser (bytedance/UI-TARS ``codes/ui_tars/action_parser.py``,
``parsing_response_to_pyautogui_code``): it splits a hotkey's keys at spaces only, so
``hotkey(key='ctrl+c')`` becomes ``pyautogui.hotkey('ctrl+c')``, one key that pyautogui does
not know and presses nothing for. We split at '+' as well, so the chord is pressed: the
model's evident intent, and the reason we keep it.

Writing: `format` is the inverse for those kinds; an answer is written as
``finished(content=...)`` (UI-TARS answers that way, and it reads back as done), a scroll
amount, a long-press duration, a wait duration and a fail's text are not written (UI-TARS has
no slot for them). triple_click, mouse_down/up, swipe, a middle click, and actions on element
indices have no UI-TARS form and raise.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text
from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.errors import ActionParseError, excerpt

STYLES = ("box", "box_token", "point")
EXAMPLE = "click(start_box='(x,y)')"

_ACTION_LINE = re.compile(r"^[ \t]*Action[ \t]*:[ \t]*", re.MULTILINE)
_CALL_START = re.compile(r"\s*(?:Action[ \t]*:\s*)?([A-Za-z_]\w*)\s*\(\s*")
_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=\s*")
_SPACE = re.compile(r"\s*")
_STRING_CLOSES = re.compile(r",\s*[A-Za-z_]\w*\s*=|,?\s*\)[ \t]*(?:\r?\n|$)|$")
"""What follows a closing quote, after its whitespace (skipped first: a leading ``\\s*`` here
would backtrack over the whole run of spaces at every quote)."""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}
_TAGS = re.compile(r"<\|box_start\|>|<\|box_end\|>|</?point>|</?bbox>")
_NUM = r"-?\d+(?:\.\d+)?"
_POINT = re.compile(rf"(?P<open>[\(\[]?)\s*(?P<nums>{_NUM}(?:(?:\s*,\s*|\s+){_NUM}){{1,3}})\s*(?P<close>[\)\]]?)")
"""A point or box, matched against stripped text (outer ``\\s*`` on both sides would make a
long run of spaces quadratic)."""
_POINT_ALIASES = {"start_box": "start", "point": "start", "start_point": "start",
                  "end_box": "end", "end_point": "end"}
_SPELLED = {"start": "start_box (or point)", "end": "end_box (or end_point)"}


def parse(value: str, **context: Any) -> Action:
    """Exactly one UI-TARS action; see `parse_many` for the context."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one UI-TARS action, received {len(actions)}")
    return actions[0]


def parse_many(value: str, *, screen_size: tuple[int, int] | None = None,
               coordinates: "str | CoordinateMapping" = "smart_resize", **_context: Any) -> list[Action]:
    """Every action in one UI-TARS output.

    `screen_size` is (width, height) of the screenshot the model saw; `coordinates` is the
    space the model answers in ("smart_resize" for UI-TARS-1.5, "relative1000" for older
    UI-TARS, "absolute", "normalized") or a `CoordinateMapping` with custom resize limits.
    """
    if not isinstance(value, str):
        raise ActionParseError(f"expected UI-TARS text like \"Action: {EXAMPLE}\", received {type(value).__name__}")
    check_text(value, "UI-TARS output", MAX_OUTPUT_CHARS)
    text = value.strip()
    if not text:
        raise ActionParseError(f"expected UI-TARS text like \"Action: {EXAMPLE}\", received an empty string")
    match = _ACTION_LINE.search(text)
    if match:
        text = text[match.end():]
    elif re.match(r"(Thought|Reflection|Action_Summary)\s*:", text):
        raise ActionParseError(f"found a thought but no 'Action:' line; expected e.g. \"Action: {EXAMPLE}\"")
    if not text.strip():
        raise ActionParseError(f"expected an action call after 'Action:', e.g. {EXAMPLE}")
    points = _Points(screen_size, coordinates)
    return [_build(name, kwargs, points) for name, kwargs in _read_calls(text)]


def thought(text: str) -> str | None:
    """The ``Thought:`` of a UI-TARS output (up to its ``Action:`` line), or None."""
    start = text.find("Thought:")
    if start < 0:
        return None
    start += len("Thought:")
    action = _ACTION_LINE.search(text, start)
    return text[start:action.start() if action else len(text)].strip()


def format(action: Action, *, screen_size: tuple[int, int] | None = None,
           coordinates: "str | CoordinateMapping" = "smart_resize", style: str = "box",
           thought: str | None = None, **_context: Any) -> str:
    """``Thought: ...\\nAction: call`` (or just ``Action: call`` without a thought).

    `style` spells points: "box" ``start_box='(x,y)'``, "box_token"
    ``start_box='<|box_start|>(x,y)<|box_end|>'``, "point" ``point='<point>x y</point>'``.
    """
    if style not in STYLES:
        raise ActionParseError(f"unknown UI-TARS point style {style!r}; expected one of {list(STYLES)}")
    call = _write_call(action, _Points(screen_size, coordinates), style)
    return f"Thought: {thought}\nAction: {call}" if thought else f"Action: {call}"


# Reading --------------------------------------------------------------------------------

def _read_calls(text: str) -> list[tuple[str, dict[str, str]]]:
    calls, pos = [], 0
    while text[pos:].strip():
        start = _CALL_START.match(text, pos)
        if not start:
            raise ActionParseError(f"expected an action call like {EXAMPLE}, received {_snippet(text[pos:])!r}")
        name, pos = start.group(1), start.end()
        if name not in _READERS:
            shown = name if len(name) <= 60 else name[:60] + "..."
            raise ActionParseError(f"unknown UI-TARS action {shown}(...); expected one of {sorted(_READERS)}")
        kwargs: dict[str, str] = {}
        while not text.startswith(")", pos):
            keyword = _KEYWORD.match(text, pos)
            if not keyword:
                raise ActionParseError(
                    f"{name}(...): expected keyword arguments like start_box='(x,y)' or ')', "
                    f"received {_snippet(text[pos:])!r}"
                )
            key, pos = keyword.group(1), keyword.end()
            if key in kwargs:
                raise ActionParseError(f"{name}(...): argument {excerpt(key)} given twice")
            kwargs[key], pos = _read_string(text, pos, f"{name}({key}=...)")
            pos = _skip_space(text, pos)
            if text.startswith(",", pos):
                pos = _skip_space(text, pos + 1)
            elif not text.startswith(")", pos):
                raise ActionParseError(f"{name}(...) is missing its closing ')'")
        calls.append((name, kwargs))
        check_action_count(len(calls))
        pos += 1
    return calls


def _read_string(text: str, pos: int, where: str) -> tuple[str, int]:
    quote = text[pos:pos + 1]
    if quote not in ("'", '"'):
        raise ActionParseError(f"{where}: expected a quoted string, received {_snippet(text[pos:])!r}")
    out, i = [], pos + 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            out.append(_ESCAPES.get(text[i + 1], text[i:i + 2]))
            i += 2
        elif char == quote and _STRING_CLOSES.match(text, _SPACE.match(text, i + 1).end()):
            return "".join(out), i + 1
        else:
            out.append(char)
            i += 1
    raise ActionParseError(f"{where}: unterminated string {_snippet(text[pos:])!r}; a value ends with its quote "
                           "followed by ', name=' or by the ')' that ends the line")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _snippet(text: str, limit: int = 60) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "..."


class _Points:
    """Reads and writes point strings; the coordinate mapping is built on first use, so
    actions without points need no screen size."""

    def __init__(self, screen_size: tuple[int, int] | None, coordinates: "str | CoordinateMapping") -> None:
        self._screen_size, self._coordinates = screen_size, coordinates
        self._mapping: CoordinateMapping | None = None

    @property
    def mapping(self) -> CoordinateMapping:
        if self._mapping is None:
            if isinstance(self._coordinates, CoordinateMapping):
                self._mapping = self._coordinates
            elif isinstance(self._coordinates, str):
                self._mapping = CoordinateMapping(self._coordinates, self._screen_size)
            else:
                raise ActionParseError(
                    f"coordinates must be a mode name or a CoordinateMapping, received {self._coordinates!r}"
                )
        return self._mapping

    def read(self, where: str, raw: str) -> tuple[float, float]:
        match = _POINT.fullmatch(_TAGS.sub(" ", raw).strip())
        pairs = {"": "", "(": ")", "[": "]"}
        nums = [float(n) for n in re.findall(_NUM, match.group("nums"))] if match else []
        if not match or pairs[match.group("open")] != match.group("close") or len(nums) not in (2, 4):
            raise ActionParseError(
                f"{where}: expected a point like '(x,y)', '<|box_start|>(x,y)<|box_end|>', "
                f"'<point>x y</point>' or a box '[x1,y1,x2,y2]', received {excerpt(raw)}"
            )
        if len(nums) == 4:
            nums = [(nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2]
        return self.mapping.to_screen(nums[0], nums[1])

    def write(self, x: float, y: float, style: str) -> str:
        mx, my = self.mapping.to_model(x, y)
        if self.mapping.mode == "normalized":
            sx, sy = (f"{round(v, 4):g}" for v in (mx, my))
        else:
            sx, sy = str(round(mx)), str(round(my))
        if style == "point":
            return f"<point>{sx} {sy}</point>"
        return f"<|box_start|>({sx},{sy})<|box_end|>" if style == "box_token" else f"({sx},{sy})"


def _build(name: str, kwargs: dict[str, str], points: _Points) -> Action:
    allowed, reader = _READERS[name]
    args: dict[str, str] = {}
    for key, raw in kwargs.items():
        canonical = _POINT_ALIASES.get(key, key)
        if canonical not in allowed:
            expected = ", ".join(sorted(_SPELLED.get(a, a) for a in allowed)) or "no arguments"
            raise ActionParseError(f"{name}(...) takes {expected}; received {excerpt(key)}")
        if canonical in args:
            raise ActionParseError(f"{name}(...): the {canonical} point is given twice")
        args[canonical] = raw
    return reader(_Args(name, args, points))


class _Args:
    def __init__(self, name: str, args: dict[str, str], points: _Points) -> None:
        self.name, self.args, self.points = name, args, points

    def text(self, key: str, required: bool = True) -> str | None:
        if required and not self.args.get(key):
            raise ActionParseError(f"{self.name}(...) needs a non-empty {key}='...'")
        return self.args.get(key)

    def point(self, key: str = "start") -> tuple[float, float]:
        if key not in self.args:
            raise ActionParseError(f"{self.name}(...) needs {'start_box' if key == 'start' else 'end_box'}='(x,y)'")
        return self.points.read(f"{self.name}(...)", self.args[key])

    def keys(self) -> tuple[str, ...]:
        raw = self.args.get("key") or self.args.get("keys") or self.args.get("hotkey") or ""
        keys = raw.split()  # the prompt asks for 'ctrl c'; models sometimes write 'ctrl+c'
        if len(keys) == 1 and all(keys[0].split("+")):
            keys = keys[0].split("+")
        if not keys:
            raise ActionParseError(f"{self.name}(...) needs key='...', e.g. key='ctrl c'")
        return tuple(keys)


def _pointer(kind: str) -> Callable[[_Args], Action]:
    def read(a: _Args) -> Action:
        x, y = a.point()
        return Action(kind, x=x, y=y)
    return read


def _drag(a: _Args) -> Action:
    (x, y), (to_x, to_y) = a.point("start"), a.point("end")
    return Action.drag(x, y, to_x, to_y)


def _scroll(a: _Args) -> Action:
    if "end" in a.args and "direction" not in a.args:
        return _drag(a)  # old mobile prompts: scroll(start_box, end_box) is a finger swipe
    direction = (a.text("direction") or "").strip().lower()
    x, y = a.point() if "start" in a.args else (None, None)
    return Action.scroll(direction, x=x, y=y)


def _hotkey(a: _Args) -> Action:
    keys = a.keys()
    return Action("key" if len(keys) == 1 else "hotkey", keys=keys)


def _one_key(kind: str) -> Callable[[_Args], Action]:
    def read(a: _Args) -> Action:
        keys = a.keys()
        if len(keys) != 1:
            raise ActionParseError(f"{a.name}(...) takes one key, received {excerpt(list(keys))}; "
                                   "use hotkey(key='...') for chords")
        return Action(kind, keys=keys)
    return read


_READERS: dict[str, tuple[frozenset[str], Callable[[_Args], Action]]] = {
    name: (frozenset(allowed), reader) for name, allowed, reader in [
        ("click", {"start"}, _pointer("click")),
        ("left_single", {"start"}, _pointer("click")),
        ("left_double", {"start"}, _pointer("double_click")),
        ("right_single", {"start"}, _pointer("right_click")),
        ("hover", {"start"}, _pointer("move")),
        ("long_press", {"start", "time"}, _pointer("long_press")),
        ("drag", {"start", "end"}, _drag),
        ("select", {"start", "end"}, _drag),
        ("swipe", {"start", "end"}, _drag),
        ("scroll", {"start", "end", "direction"}, _scroll),
        ("hotkey", {"key", "keys", "hotkey"}, _hotkey),
        ("press", {"key", "keys"}, _one_key("key")),
        ("keydown", {"key", "keys"}, _one_key("key_down")),
        ("keyup", {"key", "keys"}, _one_key("key_up")),
        ("release", {"key", "keys"}, _one_key("key_up")),
        ("enter", set(), lambda a: Action.key("enter")),
        ("type", {"content"}, lambda a: Action.type(a.text("content"))),
        ("wait", set(), lambda a: Action("wait")),
        ("finished", {"content"}, lambda a: Action.done(a.text("content", required=False) or None)),
        ("call_user", set(), lambda a: Action.fail("call_user")),
        ("open_app", {"app_name"}, lambda a: Action("open_app", text=a.text("app_name"))),
        ("press_home", set(), lambda a: Action("navigate_home")),
        ("press_back", set(), lambda a: Action("navigate_back")),
        ("open_url", {"url"}, lambda a: Action.goto(a.text("url"))),
    ]
}


# Writing --------------------------------------------------------------------------------

_POINTER_CALLS = {"click": "click", "double_click": "left_double", "right_click": "right_single",
                  "move": "hover", "long_press": "long_press"}
_KEY_CALLS = {"key": "hotkey", "hotkey": "hotkey", "key_down": "keydown", "key_up": "keyup"}
_NO_ARGS = {"wait": "wait()", "fail": "call_user()", "navigate_home": "press_home()",
            "navigate_back": "press_back()"}


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    return "'" + escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "'"


def _write_call(action: Action, points: _Points, style: str) -> str:
    kind = action.kind
    start_key = "point" if style == "point" else "start_box"
    if action.element is not None:
        raise ActionParseError(f"{kind} on element {action.element} cannot be written as UI-TARS: it acts on points")
    if kind in _POINTER_CALLS or kind == "drag" or (kind == "scroll" and action.x is not None):
        if action.button is not None:
            raise ActionParseError(f"a {action.button}-button click cannot be written as UI-TARS")
        start = f"'{points.write(action.x, action.y, style)}'"
    if kind in _POINTER_CALLS:
        return f"{_POINTER_CALLS[kind]}({start_key}={start})"
    if kind == "drag":
        end = f"'{points.write(action.to_x, action.to_y, style)}'"
        if style == "point":
            return f"drag(start_point={start}, end_point={end})"
        return f"drag(start_box={start}, end_box={end})"
    if kind == "scroll":
        where = f"{start_key}={start}, " if action.x is not None else ""
        return f"scroll({where}direction='{action.direction}')"
    if kind in _KEY_CALLS:
        keys = " ".join("space" if k == " " else k for k in action.keys or ())
        return f"{_KEY_CALLS[kind]}(key={_quote(keys)})"
    if kind == "type":
        if action.x is not None:
            raise ActionParseError("type at a point cannot be written as UI-TARS: click there first, then type")
        return f"type(content={_quote(action.text or '')})"
    if kind in ("done", "answer"):
        return f"finished(content={_quote(action.text)})" if action.text else "finished()"
    if kind in _NO_ARGS:
        return _NO_ARGS[kind]
    if kind == "open_app":
        return f"open_app(app_name={_quote(action.text or '')})"
    if kind == "goto":
        return f"open_url(url={_quote(action.text or '')})"
    raise ActionParseError(f"{kind} cannot be written as UI-TARS: it has no UI-TARS action")
