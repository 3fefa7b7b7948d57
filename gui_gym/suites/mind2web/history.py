"""How an episode's actions read in Online-Mind2Web's action history: the factual actions
only (the final answer is kept apart), each as a short line such as ``CLICK (640, 360)``.
One module, so the judge sees the same text live (`WebJudgeReward`) and offline (results
written in the v2 layout and re-judged by ``gui-bench judge``)."""

from __future__ import annotations

from typing import Any, Sequence

from gui_gym.actions import TERMINAL_KINDS
from gui_gym.records import TrajectoryStep


def factual_actions(parsed: Any) -> list[dict[str, Any]]:
    """The non-terminal actions of a step's ``info["parsed_action"]`` (one dict, a list of
    them, or None)."""
    actions = parsed if isinstance(parsed, list) else [parsed] if parsed else []
    return [a for a in actions if a.get("kind") not in TERMINAL_KINDS]


def _point(x: Any, y: Any) -> str:
    return f"({round(x)}, {round(y)})"


def describe_action(action: dict[str, Any]) -> str:
    """A canonical action (``Action.to_dict()``) as a short factual line, e.g.
    ``CLICK (640, 360)`` or ``TYPE 'hello'``."""
    kind = action.get("kind", "?")
    where = _point(action["x"], action["y"]) if action.get("x") is not None else None
    if action.get("element") is not None:
        where = f"element #{action['element']}"
    if kind == "drag" or (kind == "swipe" and action.get("to_x") is not None):
        return f"{kind.upper()} {where} -> {_point(action['to_x'], action['to_y'])}"
    if kind == "scroll" or kind == "swipe":
        return f"{kind.upper()} {action.get('direction')} {action.get('amount') or ''}".rstrip() + (f" at {where}" if where else "")
    if kind == "type":
        return f"TYPE {action.get('text')!r}" + (f" at {where}" if where else "")
    if kind in ("key", "hotkey", "key_down", "key_up"):
        return f"{kind.upper()} {'+'.join(action.get('keys') or [])}"
    if kind == "goto":
        return f"GOTO {action.get('text')}"
    if kind == "open_app":
        return f"OPEN_APP {action.get('text')}"
    if kind == "wait":
        return "WAIT"
    return f"{kind.upper()} {where}" if where else kind.upper()


def factual_history(steps: Sequence[TrajectoryStep]) -> list[tuple[TrajectoryStep, str]]:
    """The steps of an episode that did something on the page, each with its history line
    (``CLICK (640, 360); TYPE 'hi'``): what the v2 layout records and a judge reads, live or
    from the folder."""
    out = []
    for step in steps:
        factual = factual_actions(step.parsed_action)
        if factual:
            out.append((step, "; ".join(describe_action(a) for a in factual)))
    return out
