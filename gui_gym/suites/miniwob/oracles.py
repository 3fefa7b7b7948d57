"""Scripted solutions of a handful of MiniWoB tasks, for tests and as a ceiling the harness
can run (``gui-bench run --agent oracle --env-arg tasks=scripted``). Not an oracle for the
suite: MiniWoB's other tasks have none.

Each solution reads what a person reads, the instruction, and finds on the live page the
element it names, then acts with plain screen clicks and typing (integer pixel positions, so
the same actions replay unchanged in MiniWoB's own selenium env).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from gui_gym.actions import Action
from gui_gym.errors import ActionExecutionError
from gui_gym.suites.miniwob.page_js import ELEMENT_BOX_JS

Solution = Callable[[Any, str], Iterator[Action]]


def click(backend: Any, selector: str, text: str | None = None) -> Action:
    """A click at the centre of the element (its first line box), in whole pixels."""
    box = backend.evaluate(ELEMENT_BOX_JS, [selector, text])
    if box is None:
        raise ActionExecutionError(f"scripted solution: no element {selector!r}"
                                   + (f" reading {text!r}" if text is not None else "") + " on the page")
    x, y, width, height = box
    return Action.click(int(x + width / 2), int(y + height / 2))


def quoted(instruction: str, count: int) -> list[str]:
    """The `count` double-quoted strings of an instruction, in order."""
    found = re.findall(r'"([^"]*)"', instruction)
    if len(found) != count:
        raise ActionExecutionError(f"scripted solution: expected {count} quoted value(s) in {instruction!r}, found {found}")
    return found


def _click_test(backend: Any, instruction: str) -> Iterator[Action]:
    yield click(backend, "#subbtn")


def _click_button(backend: Any, instruction: str) -> Iterator[Action]:
    (label,) = quoted(instruction, 1)
    yield click(backend, "#area button", label)


def _click_link(backend: Any, instruction: str) -> Iterator[Action]:
    (label,) = quoted(instruction, 1)
    yield click(backend, "#area .alink", label)


def _focus_text(backend: Any, instruction: str) -> Iterator[Action]:
    yield click(backend, "#tt")


def _enter_text(backend: Any, instruction: str) -> Iterator[Action]:
    (text,) = quoted(instruction, 1)
    yield click(backend, "#tt")
    yield Action.type(text)
    yield click(backend, "#subbtn")


def _enter_password(backend: Any, instruction: str) -> Iterator[Action]:
    (password,) = quoted(instruction, 1)
    for field in ("#password", "#verify"):
        yield click(backend, field)
        yield Action.type(password)
    yield click(backend, "#subbtn")


def _login_user(backend: Any, instruction: str) -> Iterator[Action]:
    user, password = quoted(instruction, 2)
    for field, text in (("#username", user), ("#password", password)):
        yield click(backend, field)
        yield Action.type(text)
    yield click(backend, "#subbtn")


def _click_checkboxes(backend: Any, instruction: str) -> Iterator[Action]:
    match = re.fullmatch(r"Select (.*) and click Submit\.", instruction)
    if match is None:
        raise ActionExecutionError(f"scripted solution: cannot read the boxes to tick in {instruction!r}")
    names = [] if match[1] == "nothing" else match[1].split(", ")
    for name in names:
        yield click(backend, "#boxes label", name)  # the label holds its box: a click on it ticks the box
    yield click(backend, "#subbtn")


SOLUTIONS: dict[str, Solution] = {
    "click-test": _click_test,
    "click-test-2": _click_test,  # the instruction is always "Click button ONE.", the #subbtn
    "click-button": _click_button,
    "click-link": _click_link,
    "focus-text": _focus_text,
    "enter-text": _enter_text,
    "enter-password": _enter_password,
    "login-user": _login_user,
    "click-checkboxes": _click_checkboxes,
}
"""Task name -> its scripted solution."""
