"""Plain JSON: ``{"kind": "click", "x": 10, "y": 20}``, as a dict or a JSON string.

The lossless format: `Action.to_dict` written out. What `gui-bench` stores in trajectories.
A JSON list of such objects holds several actions (`parse_many`).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_gym.actions import MAX_OUTPUT_CHARS, Action, check_action_count, check_text
from gui_gym.action_formats.reading import load_json
from gui_gym.errors import ActionParseError


def parse(value: "str | Mapping[str, Any] | list[Any]", **context: Any) -> Action:
    """Exactly one action from a JSON action object (or a one-element list)."""
    actions = parse_many(value, **context)
    if len(actions) != 1:
        raise ActionParseError(f"expected exactly one JSON action object, received a list of {len(actions)}")
    return actions[0]


def parse_many(value: "str | Mapping[str, Any] | list[Any]", **_context: Any) -> list[Action]:
    """Every action in a JSON action object or a non-empty list of them."""
    if isinstance(value, str):
        check_text(value, "the JSON output", MAX_OUTPUT_CHARS)
        value = load_json(value, "a JSON action object")
    if isinstance(value, list):
        if not value:
            raise ActionParseError("expected a JSON action object or a list of them, received an empty list")
        check_action_count(len(value))
        return [Action.from_dict(item) for item in value]
    return [Action.from_dict(value)]


def format(action: Action, **_context: Any) -> str:
    return json.dumps(action.to_dict(), ensure_ascii=False)
