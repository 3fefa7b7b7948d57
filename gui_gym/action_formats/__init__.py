"""Text formats in and out of the canonical `Action`, one module per format.

Each format module exposes ``parse_many(value, **context) -> list[Action]`` (one agent output
may hold several actions, e.g. a pyautogui snippet), ``parse(value, **context) -> Action``
(exactly one), both raising `ActionParseError` on anything they cannot read, and
``format(action, **context)``, and may expose ``check(action, **context)`` to vet an
`Action` given as it is (a multiple-choice answer must name an option). The registry below
is the only place that knows them all; `parse_action`, `format_action` and `read_actions`
(the door of every env step) dispatch through it. A suite with answer formats of its own
(MMBench-GUI's ``choice`` and ``point``) has them registered by `gui_gym.registration` with
its env ids, so this floor names no suite.

A parser that accepts an output but ignores part of it, as the benchmark's own code does
(AndroidWorld drops fields irrelevant to the action type), says so with `warn`; the env
collects these notes per step into ``info["action_warnings"]`` (`collect_warnings`; both
live in `notes`, below the formats that call them). Outside a collection they are logged.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Mapping

from gui_gym.action_formats.notes import collect_warnings, warn  # noqa: F401 - the formats' API, re-exported
from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_step, check_text
from gui_gym.errors import ActionParseError, UsageError

FORMATS: dict[str, str] = {
    "json": "gui_gym.action_formats.json_format",
    "uitars": "gui_gym.action_formats.uitars",
    "pyautogui": "gui_gym.action_formats.pyautogui_code",
    "computer_13": "gui_gym.action_formats.computer13",
    "androidworld": "gui_gym.action_formats.androidworld",
    "function_call": "gui_gym.action_formats.function_call",
}
"""Format name -> module path, imported on first use: the built-in formats, then those
`register_format` adds."""


def register_format(name: str, module: str) -> None:
    """Make format `name` the one `module` (a module path) implements; registering the same
    pair again is a no-op, another module under a taken name an error."""
    if FORMATS.get(name, module) != module:
        raise ValueError(f"action format {name!r} is already {FORMATS[name]!r}; received {module!r}")
    FORMATS[name] = module


def get_format(name: str) -> ModuleType:
    """The module implementing format `name`. An unknown name is the caller's mistake (an env or
    agent configured with a format that does not exist), not an agent's output that failed to
    parse, so it is a `UsageError` and never an ``info["action_error"]``."""
    if name not in FORMATS:
        raise UsageError(f"unknown action format {name!r}; expected one of {sorted(FORMATS)}")
    return importlib.import_module(FORMATS[name])


def parse_action(value: "Action | str | Mapping[str, Any]", fmt: str = "json", **context: Any) -> Action:
    """Turn an agent's output into an `Action`, or raise `ActionParseError`.

    `fmt` names the format (see `FORMATS`); `context` carries what a format needs to map
    coordinates, e.g. ``screen_size=(w, h)`` and ``coordinates=...`` for UI-TARS. An
    `Action` passes through unchanged.
    """
    if isinstance(value, Action):
        return value
    return get_format(fmt).parse(value, **context)


def format_action(action: Action, fmt: str = "json", **context: Any) -> Any:
    """Write an `Action` in a format: the inverse of `parse_action` for that format."""
    return get_format(fmt).format(action, **context)


def read_actions(value: "Action | str | Mapping[str, Any] | list[Any]", fmt: str = "json",
                 **context: Any) -> list[Action]:
    """The actions an agent's output asks for, checked against the limits of
    `gui_gym.actions` and the screen of ``context["screen_size"]`` (width, height, when
    given), or `ActionParseError`.

    The door of every env step: an `Action` is vetted by the format when it has a ``check``
    (a multiple-choice answer must name an option); anything else is parsed by the format
    named `fmt`, with `context` (see `parse_action`).
    """
    module = get_format(fmt)
    if isinstance(value, Action):
        if hasattr(module, "check"):
            module.check(value, **context)
        actions = [value]
    else:
        if isinstance(value, str):
            check_text(value, f"the {fmt} output", MAX_OUTPUT_CHARS)
        actions = module.parse_many(value, **context)  # every format has it (see above)
    check_step(actions, context.get("screen_size"))
    return actions
