"""Plain JSON: ``{"kind": "click", "x": 10, "y": 20}``, as a dict or a JSON string.

The lossless format: `Action.to_dict` written out. What `gui-bench` stores in trajectories.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gui_gym.actions import Action
from gui_gym.errors import ActionParseError


def parse(value: "str | Mapping[str, Any]", **_context: Any) -> Action:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ActionParseError(f"expected a JSON action object, received invalid JSON ({exc.msg} at {exc.pos})") from exc
    return Action.from_dict(value)


def format(action: Action, **_context: Any) -> str:
    return json.dumps(action.to_dict(), ensure_ascii=False)
