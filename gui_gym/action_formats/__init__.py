"""Text formats in and out of the canonical `Action`, one module per format.

Each format module exposes ``parse_many(value, **context) -> list[Action]`` (one agent output
may hold several actions, e.g. a pyautogui snippet), ``parse(value, **context) -> Action``
(exactly one), both raising `ActionParseError` on anything they cannot read, and
``format(action, **context)``. The
registry below is the only place that knows them all; `gui_gym.actions.parse_action` and
`format_action` dispatch through it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gui_gym.errors import ActionParseError

FORMATS: dict[str, str] = {
    "json": "gui_gym.action_formats.json_format",
    "uitars": "gui_gym.action_formats.uitars",
    "pyautogui": "gui_gym.action_formats.pyautogui_code",
    "computer_13": "gui_gym.action_formats.computer13",
    "androidworld": "gui_gym.action_formats.androidworld",
    "choice": "gui_gym.suites.mmbench.choice_format",
    "point": "gui_gym.suites.mmbench.point_format",
}
"""Format name -> module path. Imported on first use."""


def get_format(name: str) -> ModuleType:
    """The module implementing format `name`."""
    if name not in FORMATS:
        raise ActionParseError(f"unknown action format {name!r}; expected one of {sorted(FORMATS)}")
    return importlib.import_module(FORMATS[name])
