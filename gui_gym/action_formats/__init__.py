"""Text formats in and out of the canonical `Action`, one module per format.

Each format module exposes ``parse_many(value, **context) -> list[Action]`` (one agent output
may hold several actions, e.g. a pyautogui snippet), ``parse(value, **context) -> Action``
(exactly one), both raising `ActionParseError` on anything they cannot read, and
``format(action, **context)``, and may expose ``check(action, **context)`` to vet an
`Action` given as it is (a multiple-choice answer must name an option). The registry below
is the only place that knows them all; `parse_action` and `format_action` dispatch through
it. A suite with answer formats of its own (MMBench-GUI's ``choice`` and ``point``) has them
registered by `gui_gym.registration` with its env ids, so this floor names no suite.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Mapping

from gui_gym.actions import Action
from gui_gym.errors import ActionParseError

FORMATS: dict[str, str] = {
    "json": "gui_gym.action_formats.json_format",
    "uitars": "gui_gym.action_formats.uitars",
    "pyautogui": "gui_gym.action_formats.pyautogui_code",
    "computer_13": "gui_gym.action_formats.computer13",
    "androidworld": "gui_gym.action_formats.androidworld",
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
    """The module implementing format `name`."""
    if name not in FORMATS:
        raise ActionParseError(f"unknown action format {name!r}; expected one of {sorted(FORMATS)}")
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
