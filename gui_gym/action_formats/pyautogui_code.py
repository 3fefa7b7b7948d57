"""pyautogui code (OSWorld's ``pyautogui`` action space), read with `ast`, never executed.

OSWorld runs the agent's code inside its VM; gui-gym acts on the host and on other backends,
so it reads the code instead, against a statement allow-list: ``import pyautogui``,
``import time``, ``pyautogui.<function>(...)``, ``time.sleep(n)``, the bare strings
``WAIT``/``DONE``/``FAIL`` (string-literal statements such as docstrings are skipped), with
literal arguments only. Anything else (other modules, loops, assignments, f-strings, calls in
arguments) is rejected with its line, so an agent learns exactly which construct to drop.

pyautogui acts "at the current pointer position" when x, y are left out; `PointerTrail`
tracks the position earlier actions of the same code leave. ``click()`` after ``moveTo`` clicks
there; ``dragTo`` from a known position is one drag (absorbing a ``moveTo`` to its start). With
no known position a single click becomes mouse_down + mouse_up and a drag mouse_down, move,
mouse_up, which is what pyautogui does. Relative moves (``moveRel``/``move``,
``dragRel``/``drag``) need a known position and are rejected otherwise. ``scroll``/``vscroll``:
positive clicks scroll up; ``hscroll``: positive scrolls right. ``interval``, ``duration`` and
``_pause`` are ignored.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text, finite_float
from gui_gym.action_formats.reading import strip_fence
from gui_gym.errors import ActionParseError, excerpt

_SPECIALS = {"WAIT": Action("wait"), "DONE": Action.done(), "FAIL": Action.fail()}
_IGNORED = ("interval", "duration", "logScreenshot", "_pause")
_BUTTONS = {"left": "left", "primary": "left", "right": "right", "secondary": "right", "middle": "middle"}
_TO_PYAUTOGUI_KEY = {"meta": "win"}
"""Canonical key names pyautogui spells differently."""


@dataclass
class PointerTrail:
    """Actions read so far and the pointer position they leave, for formats whose commands
    act "at the current position" (pyautogui, and OSWorld's computer_13 that runs on it)."""

    actions: list[Action] = field(default_factory=list)
    pointer: tuple[float, float] | None = None

    def add(self, action: Action) -> None:
        check_action_count(len(self.actions) + 1)
        self.actions.append(action)
        if action.kind == "drag":
            self.pointer = (action.to_x, action.to_y)  # type: ignore[assignment]
        elif action.point is not None:
            self.pointer = action.point

    def click(self, kind: str, point: tuple[float, float] | None, button: str | None, where: str) -> None:
        """A click-like action at `point`, else at the known pointer, else (single clicks
        only) as a press and release where the pointer is."""
        point = point or self.pointer
        if point is not None:
            self.add(Action(kind, x=point[0], y=point[1], button=button))
        elif kind in ("click", "right_click"):
            button = "right" if kind == "right_click" else button
            self.add(Action("mouse_down", button=button))
            self.add(Action("mouse_up", button=button))
        else:
            raise ActionParseError(f"{where}: a {kind} needs x and y (the pointer position is not known here)")

    def add_at_last_move(self, kind: str, **fields: Any) -> None:
        """Add a pointer-optional action (scroll, mouse_down/up) at the point of an
        immediately preceding move, which it replaces: "move there, then act" is what the
        action at a point means."""
        if self.actions and self.actions[-1].kind == "move":
            fields.update(x=self.actions[-1].x, y=self.actions[-1].y)
            self.actions.pop()
        self.add(Action(kind, **fields))

    def drag_to(self, x: float, y: float, button: str | None = None) -> None:
        """A left drag from the known pointer becomes one drag; anything else is spelled
        out as press, move, release."""
        start = self.pointer
        if start is not None and button in (None, "left"):
            if self.actions and self.actions[-1].kind == "move" and self.actions[-1].point == start:
                self.actions.pop()
            self.add(Action.drag(start[0], start[1], x, y))
            return
        self.add(Action("mouse_down", button=button))
        self.add(Action.move(x, y))
        self.add(Action("mouse_up", button=button))


def parse(value: str, **context: Any) -> Action:
    """Exactly one action from pyautogui code."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected code for exactly one action, received {len(actions)} actions")
    return actions[0]


def parse_many(value: str, **_context: Any) -> list[Action]:
    """Every action in a pyautogui code string (optionally in a ```python fence)."""
    if not isinstance(value, str):
        raise ActionParseError("expected pyautogui code like 'pyautogui.click(100, 200)', "
                               f"received {type(value).__name__}")
    check_text(value, "pyautogui code", MAX_OUTPUT_CHARS)
    code = strip_fence(value, ("python", "py")).strip()
    if not code:
        raise ActionParseError("expected pyautogui code like 'pyautogui.click(100, 200)', received an empty string")
    if code in _SPECIALS:
        return [_SPECIALS[code]]
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:  # also integer literals past Python's 4,300-digit limit
        raise ActionParseError(f"line {exc.lineno}: invalid Python ({exc.msg}); expected pyautogui calls "
                               "like pyautogui.click(100, 200)") from None
    except (MemoryError, RecursionError):  # the parser's stack: a long run of unary minus signs, say
        raise ActionParseError("the code nests too deep to read; expected pyautogui calls with literal arguments "
                               "like pyautogui.click(100, 200)") from None
    trail = PointerTrail()
    for statement in tree.body:
        _statement(statement, code, trail)
    if not trail.actions:
        raise ActionParseError("the code holds no action; expected e.g. pyautogui.click(100, 200)")
    return trail.actions


def _reject(node: ast.AST, code: str, why: str) -> ActionParseError:
    source = ast.get_source_segment(code, node) or type(node).__name__
    first = source.splitlines()[0]
    source = first[:57] + "..." if len(first) > 60 or first != source else first
    return ActionParseError(f"line {getattr(node, 'lineno', '?')}: `{source}` {why}")


_ALLOWED = ("only `import pyautogui`, `import time`, pyautogui.<function>(...) and time.sleep(...) "
            "with literal arguments are allowed")


def _statement(node: ast.stmt, code: str, trail: PointerTrail) -> None:
    if isinstance(node, ast.Import) and all(a.name in ("pyautogui", "time") and not a.asname for a in node.names):
        return
    if isinstance(node, ast.Expr):
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a docstring or a string used as a comment
        if isinstance(value, ast.Name) and value.id in _SPECIALS:
            trail.add(_SPECIALS[value.id])
            return
        if isinstance(value, ast.Call):
            _call(value, code, trail)
            return
    raise _reject(node, code, f"is not allowed: {_ALLOWED}")


def _call(node: ast.Call, code: str, trail: PointerTrail) -> None:
    func = node.func
    is_dotted = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    target = (func.value.id, func.attr) if is_dotted else None
    if target is None or target[0] not in ("pyautogui", "time") or (target[0] == "time" and target[1] != "sleep"):
        raise _reject(node, code, f"is not allowed: {_ALLOWED}")
    if target[1] not in _FUNCTIONS:
        raise _reject(node, code, f"is not supported; supported pyautogui functions: {', '.join(sorted(_FUNCTIONS))}")
    params, handler = _FUNCTIONS[target[1]]
    display = ".".join(target)
    where = f"line {node.lineno}: {display}"
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise _reject(arg, code, "(argument unpacking) is not allowed: write the values out")
        args.append(_literal(arg, code, display))
    for keyword in node.keywords:
        if keyword.arg is None:
            raise _reject(keyword.value, code, "(keyword unpacking) is not allowed: write the values out")
        kwargs[keyword.arg] = _literal(keyword.value, code, display)
    handler(_bind(params, args, kwargs, where), trail, where)


def _literal(node: ast.expr, code: str, function: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, type(None))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = node.operand
        if isinstance(inner, ast.Constant) and type(inner.value) in (int, float):
            return -inner.value if isinstance(node.op, ast.USub) else inner.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item, code, function) for item in node.elts]
    raise _reject(node, code, f"in {function}(...) is not a literal: arguments must be numbers, strings, "
                              "or lists of them")


def _bind(params: tuple[str, ...], args: list[Any], kwargs: dict[str, Any], where: str) -> dict[str, Any]:
    if params and params[0] == "*keys":
        bound: dict[str, Any] = {"keys": args}
    else:
        if len(args) > len(params):
            raise ActionParseError(f"{where} takes at most {len(params)} positional arguments, received {len(args)}")
        bound = dict(zip(params, args))
    for key, value in kwargs.items():
        if key in bound:
            raise ActionParseError(f"{where}: argument {excerpt(key)} given twice")
        if key not in params and key not in _IGNORED:
            accepted = [p for p in params if not p.startswith("*")] + list(_IGNORED)
            raise ActionParseError(f"{where}: unknown argument {excerpt(key)}; accepted: {', '.join(accepted)}")
        bound[key] = value
    return bound


# Argument checks -------------------------------------------------------------------------

def _number(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionParseError(f"{where}: {what} must be a number, received {excerpt(value)}")
    return finite_float(value, f"{where}: {what}")


def _count(value: Any, what: str, where: str, allow_negative: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or (value < 0 and not allow_negative):
        expected = "a non-zero int" if allow_negative else "a positive int"
        raise ActionParseError(f"{where}: {what} must be {expected}, received {excerpt(value)}")
    return value


def _point(b: dict[str, Any], where: str, names: tuple[str, str] = ("x", "y")) -> tuple[float, float] | None:
    x, y = b.get(names[0]), b.get(names[1])
    if isinstance(x, str):
        raise ActionParseError(f"{where}: locating an image on the screen ({excerpt(x)}) is not supported; give x and y")
    if isinstance(x, list) and y is None:
        if len(x) != 2:
            raise ActionParseError(f"{where}: a point must be (x, y), received {excerpt(x)}")
        x, y = x
    if x is None and y is None:
        return None
    if x is None or y is None:
        raise ActionParseError(f"{where}: give {names[0]} and {names[1]} together")
    return _number(x, names[0], where), _number(y, names[1], where)


def _button(b: dict[str, Any], where: str) -> str | None:
    raw = b.get("button", "left")
    if not isinstance(raw, str) or raw.lower() not in _BUTTONS:
        raise ActionParseError(f"{where}: button must be 'left', 'middle' or 'right', received {excerpt(raw)}")
    button = _BUTTONS[raw.lower()]
    return None if button == "left" else button


def _chord(keys: list[str]) -> Action:
    """A hotkey; one key alone is a key press."""
    return Action("key" if len(keys) == 1 else "hotkey", keys=tuple(keys))


def _key_list(value: Any, where: str) -> list[str]:
    keys = [value] if isinstance(value, str) else value
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise ActionParseError(f"{where}: expected a key name or a list of key names, received {excerpt(value)}")
    return keys


# Handlers --------------------------------------------------------------------------------

_CLICKS = {(1, None): "click", (1, "middle"): "click", (2, None): "double_click", (3, None): "triple_click",
           (1, "right"): "right_click"}


def _click(b: dict[str, Any], trail: PointerTrail, where: str) -> None:
    button, clicks = _button(b, where), _count(b.get("clicks", 1), "clicks", where)
    kind = _CLICKS.get((clicks, button))
    if kind is None:
        raise ActionParseError(f"{where}: {clicks} clicks of the {button or 'left'} button have no single action; "
                               "use clicks=1, or the left button for double/triple clicks")
    trail.click(kind, _point(b, where), button if kind == "click" else None, where)


def _click_with(**fixed: Any) -> Callable[[dict[str, Any], PointerTrail, str], None]:
    """doubleClick, rightClick, ...: click with some arguments fixed."""
    return lambda b, trail, where: _click({**b, **fixed}, trail, where)


def _required_point(b: dict[str, Any], where: str) -> tuple[float, float]:
    point = _point(b, where)
    if point is None:
        raise ActionParseError(f"{where} needs x and y")
    return point


def _relative(b: dict[str, Any], trail: PointerTrail, where: str) -> tuple[float, float]:
    offset = _point(b, where, ("xOffset", "yOffset")) or (0.0, 0.0)
    if trail.pointer is None:
        raise ActionParseError(f"{where} moves relative to the pointer, whose position is not known here; "
                               "use moveTo/dragTo with absolute x, y")
    return trail.pointer[0] + offset[0], trail.pointer[1] + offset[1]


def _drag_to(b: dict[str, Any], trail: PointerTrail, where: str, point: tuple[float, float] | None = None) -> None:
    point = point or _required_point(b, where)
    if b.get("mouseDownUp", True) is False:
        trail.add(Action.move(*point))  # the button is already held; this only moves
    else:
        trail.drag_to(point[0], point[1], _button(b, where))


def _mouse(kind: str) -> Callable[[dict[str, Any], PointerTrail, str], None]:
    def handle(b: dict[str, Any], trail: PointerTrail, where: str) -> None:
        x, y = _point(b, where) or (None, None)
        trail.add(Action(kind, x=x, y=y, button=_button(b, where)))
    return handle


def _scroll(horizontal: bool) -> Callable[[dict[str, Any], PointerTrail, str], None]:
    def handle(b: dict[str, Any], trail: PointerTrail, where: str) -> None:
        clicks = _count(b.get("clicks"), "clicks", where, allow_negative=True)
        direction = ("right" if clicks > 0 else "left") if horizontal else ("up" if clicks > 0 else "down")
        x, y = _point(b, where) or (None, None)
        trail.add(Action.scroll(direction, abs(clicks), x=x, y=y))
    return handle


def _write(b: dict[str, Any], trail: PointerTrail, where: str) -> None:
    message = b.get("message")
    if isinstance(message, list):
        for key in _key_list(message, where):
            trail.add(Action.key(key))
    elif isinstance(message, str) and message:
        trail.add(Action.type(message))
    else:
        raise ActionParseError(f"{where}: expected a non-empty string (or a list of key names), received {excerpt(message)}")


def _press(b: dict[str, Any], trail: PointerTrail, where: str) -> None:
    keys = _key_list(b.get("keys"), where)
    for _ in range(_count(b.get("presses", 1), "presses", where)):
        for key in keys:
            trail.add(Action.key(key))


_DRAG = ("duration", "tween", "button", "logScreenshot", "_pause", "mouseDownUp")
_FUNCTIONS: dict[str, tuple[tuple[str, ...], Callable[[dict[str, Any], PointerTrail, str], None]]] = {
    "click": (("x", "y", "clicks", "interval", "button"), _click),
    "doubleClick": (("x", "y", "interval", "button"), _click_with(clicks=2)),
    "tripleClick": (("x", "y", "interval", "button"), _click_with(clicks=3)),
    "rightClick": (("x", "y"), _click_with(button="right")),
    "middleClick": (("x", "y"), _click_with(button="middle")),
    "moveTo": (("x", "y"), lambda b, t, w: t.add(Action.move(*_required_point(b, w)))),
    "moveRel": (("xOffset", "yOffset"), lambda b, t, w: t.add(Action.move(*_relative(b, t, w)))),
    "move": (("xOffset", "yOffset"), lambda b, t, w: t.add(Action.move(*_relative(b, t, w)))),
    "dragTo": (("x", "y", *_DRAG), _drag_to),
    "dragRel": (("xOffset", "yOffset", *_DRAG), lambda b, t, w: _drag_to(b, t, w, _relative(b, t, w))),
    "drag": (("xOffset", "yOffset", *_DRAG), lambda b, t, w: _drag_to(b, t, w, _relative(b, t, w))),
    "mouseDown": (("x", "y", "button"), _mouse("mouse_down")),
    "mouseUp": (("x", "y", "button"), _mouse("mouse_up")),
    "scroll": (("clicks", "x", "y"), _scroll(horizontal=False)),
    "vscroll": (("clicks", "x", "y"), _scroll(horizontal=False)),
    "hscroll": (("clicks", "x", "y"), _scroll(horizontal=True)),
    "typewrite": (("message", "interval"), _write),
    "write": (("message", "interval"), _write),
    "press": (("keys", "presses", "interval"), _press),
    "hotkey": (("*keys",), lambda b, t, w: t.add(_chord(_key_list(b["keys"], w)))),
    "keyDown": (("key",), lambda b, t, w: t.add(Action("key_down", keys=tuple(_key_list(b.get("key"), w))))),
    "keyUp": (("key",), lambda b, t, w: t.add(Action("key_up", keys=tuple(_key_list(b.get("key"), w))))),
    "sleep": (("seconds",), lambda b, t, w: t.add(Action.wait(_number(b.get("seconds"), "seconds", w)))),
}
"""pyautogui function -> (its parameters in pyautogui's positional order, handler)."""


# Writing ---------------------------------------------------------------------------------

_POINTER_CALLS = {"click": "click", "double_click": "doubleClick", "triple_click": "tripleClick",
                  "right_click": "rightClick", "move": "moveTo", "mouse_down": "mouseDown", "mouse_up": "mouseUp"}


def _key_name(key: str) -> str:
    return repr(_TO_PYAUTOGUI_KEY.get(key, key))


def format(action: Action, **_context: Any) -> str:
    """pyautogui code for one action; `parse_many` reads it back to the same action."""
    kind = action.kind
    if action.element is not None:
        raise ActionParseError(f"{kind} on element {action.element} cannot be written as pyautogui code: it needs x, y")
    point = [str(round(action.x)), str(round(action.y))] if action.x is not None else []
    if kind in _POINTER_CALLS:
        if action.button is not None:
            point.append(f"button={action.button!r}")
        return f"pyautogui.{_POINTER_CALLS[kind]}({', '.join(point)})"
    if kind == "drag":
        return (f"pyautogui.moveTo({', '.join(point)})\n"
                f"pyautogui.dragTo({round(action.to_x)}, {round(action.to_y)}, button='left')")
    if kind == "scroll":
        sign = 1 if action.direction in ("up", "right") else -1
        function = "hscroll" if action.direction in ("left", "right") else "scroll"
        where = f", x={point[0]}, y={point[1]}" if point else ""
        return f"pyautogui.{function}({sign * action.amount}{where})"
    if kind == "type":
        if point:
            raise ActionParseError("type at a point cannot be written as pyautogui code: click there first")
        return f"pyautogui.write({action.text!r})"
    if kind in ("key", "key_down", "key_up"):
        function = {"key": "press", "key_down": "keyDown", "key_up": "keyUp"}[kind]
        return f"pyautogui.{function}({_key_name(action.keys[0])})"
    if kind == "hotkey":
        return f"pyautogui.hotkey({', '.join(_key_name(k) for k in action.keys)})"
    if kind == "wait":
        return "WAIT" if action.duration_s is None else f"time.sleep({action.duration_s:g})"
    if kind in ("done", "fail"):
        return kind.upper()
    raise ActionParseError(f"{kind} cannot be written as pyautogui code")
