"""Text formats in and out of the canonical `Action`, one module per format.

Each format module exposes ``parse_many(value, **context) -> list[Action]`` (one agent output
may hold several actions, e.g. a pyautogui snippet), ``parse(value, **context) -> Action``
(exactly one), both raising `ActionParseError` on anything they cannot read, and
``format(action, **context)``. The
registry below is the only place that knows them all; `gui_gym.actions.parse_action` and
`format_action` dispatch through it.

A parser that accepts an output but ignores part of it, as the benchmark's own code does
(AndroidWorld drops fields irrelevant to the action type), says so with `warn`; the env
collects these notes per step into ``info["action_warnings"]`` (`collect_warnings`).
Outside a collection they are logged.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import logging
from types import ModuleType
from typing import Iterator

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

logger = logging.getLogger(__name__)
_WARNINGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("gui_gym_action_warnings", default=None)
"""The notes of the parse under way in this context (thread, task), or None outside one."""


def warn(message: str) -> None:
    """Note something a parser accepted but did not carry out as written."""
    notes = _WARNINGS.get()
    if notes is None:
        logger.warning(message)
    else:
        notes.append(message)


@contextlib.contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Collect the `warn` notes of the parsing done inside the block into the yielded list."""
    notes: list[str] = []
    token = _WARNINGS.set(notes)
    try:
        yield notes
    finally:
        _WARNINGS.reset(token)


def get_format(name: str) -> ModuleType:
    """The module implementing format `name`."""
    if name not in FORMATS:
        raise ActionParseError(f"unknown action format {name!r}; expected one of {sorted(FORMATS)}")
    return importlib.import_module(FORMATS[name])
