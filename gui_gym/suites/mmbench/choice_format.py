"""Action format ``choice``: a multiple-choice answer, as MMBench-GUI L1 takes it.

A model asked to "return the single letter of your choice" answers in free text ("B",
"The answer is B."), and agents built on gui-gym answer with an ``answer`` action; UI-TARS
answers with ``finished(content='B')``. All three are read here: structured outputs (a JSON
action, a UI-TARS call) are parsed by their own formats and their text is taken; free text is
taken whole. Either way the text must name an option letter by the official rules
(`parse_option_letter`), else the output is an `ActionParseError`, which the env reports
as ``info["action_error"]`` and scores as a miss. The letter itself is read again at
evaluation, from the same text.

``answers="official"`` (format context) reads as MMBench-GUI's own evaluation does: the
official code has no notion of an action, it runs its letter patterns over the model's whole
output, so a string is taken whole as the answer text, UI-TARS and JSON included. On a
UI-TARS answer that reads the "A" opening the ``Action:`` line, or the "F" of a line opening
with ``finished(``, whatever the model chose (see docs/mmbench.md, Comparability).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from gui_gym.actions import Action
from gui_gym.action_formats import json_format, uitars
from gui_gym.errors import ActionParseError, excerpt
from gui_gym.suites.mmbench.answers import ANSWER_MODES, json_output, kind_phrase, parse_option_letter

_UITARS = re.compile(r"^[ \t]*Action[ \t]*:|^[ \t]*finished\s*\(", re.MULTILINE)


def parse(value: "str | Mapping[str, Any]", **context: Any) -> Action:
    """Exactly one answer."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected one answer, received {len(actions)} actions")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", *, answers: str = "meant",
               **context: Any) -> list[Action]:
    """The answer in an agent's output: a JSON action, a UI-TARS call, or free text; with
    ``answers="official"`` any text is taken whole, as the official evaluation reads it."""
    if answers not in ANSWER_MODES:
        raise ActionParseError(f"unknown answers mode {answers!r}; expected one of {list(ANSWER_MODES)}")
    structured = None if answers == "official" and isinstance(value, str) else json_output(value)
    if structured is not None:
        actions = json_format.parse_many(structured)
    elif not isinstance(value, str):
        raise ActionParseError(f"expected an answer as text or an answer action, received {type(value).__name__}")
    elif answers == "meant" and _UITARS.search(value):
        actions = uitars.parse_many(value, **context)
    elif not value.strip():
        raise ActionParseError("expected an answer naming one option letter A-F, received an empty string")
    else:  # the official evaluation reads the raw prediction, so nothing is trimmed there
        actions = [Action.answer(value if answers == "official" else value.strip())]
    for action in actions:
        check(action)
    return actions


def check(action: Action, **_context: Any) -> None:
    """Raise `ActionParseError` unless `action` answers with text naming an option letter."""
    if action.kind not in ("answer", "done"):
        raise ActionParseError(
            f"this is a multiple-choice question: expected an answer naming one option letter A-F "
            f"(e.g. 'B', or an answer action), received {kind_phrase(action.kind)}")
    if parse_option_letter(action.text) is None:
        raise ActionParseError(f"found no option letter A-F in the answer {excerpt(action.text)}")


def format(action: Action, **_context: Any) -> str:
    """The answer's text."""
    check(action)
    return action.text or ""

