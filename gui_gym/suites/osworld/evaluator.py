"""OSWorld's evaluation rules, exactly: postconfig first; ``infeasible`` tasks score 1 only
when the agent's last action was FAIL, and every other task scores 0 when it was; then the
metrics, combined by ``conj``.

- ``conj: "and"`` (the default): the first metric scoring 0 makes the task 0; otherwise the
  mean of the scores.
- ``conj: "or"``: the first metric scoring 1 makes the task 1; otherwise the maximum.

A getter that cannot find what it fetches (a missing file, FileNotFoundError, or None)
scores that metric 0. A metric that fails on malformed agent output (an unreadable file)
scores 0 too, and the error is kept in the result's details; missing optional dependencies
and unimplemented metrics raise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from gui_gym.actions import Action
from gui_gym.errors import GUIGymError, TaskConfigError
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.getters import GETTERS
from gui_gym.suites.osworld.loader import Evaluator
from gui_gym.suites.osworld.metrics import get_metric
from gui_gym.suites.osworld.setup import SetupRunner

logger = logging.getLogger(__name__)


@dataclass
class Evaluation:
    """The score and how it came about, one entry per metric that ran."""

    score: float
    details: list[dict[str, Any]] = field(default_factory=list)


def _get(ctx: EpisodeContext, config: dict[str, Any] | None) -> Any:
    if not config:
        return None
    kind = config.get("type")
    if kind not in GETTERS:
        raise TaskConfigError(f"{ctx.spec.path}: getter type {kind!r} is not implemented "
                              f"(implemented: {sorted(GETTERS)})")
    return GETTERS[kind](ctx, config)


def _score_one(ctx: EpisodeContext, evaluator: Evaluator, index: int, fallback: bool) -> dict[str, Any]:
    func = evaluator.funcs[index]
    entry: dict[str, Any] = {"func": func}
    try:
        result = _get(ctx, evaluator.results[index])
    except FileNotFoundError as exc:
        return {**entry, "score": 0.0, "error": f"result not found: {exc}"}
    if result is None or (isinstance(result, list) and any(r is None for r in result)):
        return {**entry, "score": 0.0, "error": "result not found"}
    metric = get_metric(func, fallback=fallback)
    options = evaluator.options[index]
    try:
        if evaluator.expecteds[index]:
            score = metric(result, _get(ctx, evaluator.expecteds[index]), **options)
        else:
            score = metric(result, **options)
    except (GUIGymError, NotImplementedError):
        raise
    except Exception as exc:  # agent-made files may be unreadable: OSWorld's metrics score that 0
        logger.warning("task %s: metric %s failed: %s: %s", ctx.spec.id, func, type(exc).__name__, exc)
        return {**entry, "score": 0.0, "error": f"{type(exc).__name__}: {exc}"}
    return {**entry, "score": float(score)}


def evaluate(ctx: EpisodeContext, evaluator: Evaluator, last_action: Action | None,
             fallback: bool = False) -> Evaluation:
    """Score the episode's final state (see the module docstring for the rules)."""
    SetupRunner(ctx).run(evaluator.postconfig)
    failed = last_action is not None and last_action.kind == "fail"
    if evaluator.infeasible:
        return Evaluation(1.0 if failed else 0.0, [{"func": "infeasible", "agent_said_fail": failed}])
    if failed:
        return Evaluation(0.0, [{"func": "FAIL", "error": "the agent declared a feasible task infeasible"}])
    details: list[dict[str, Any]] = []
    for index in range(len(evaluator.funcs)):
        entry = _score_one(ctx, evaluator, index, fallback)
        details.append(entry)
        score = entry["score"]
        if evaluator.conj == "and" and score == 0.0:
            return Evaluation(0.0, details)
        if evaluator.conj == "or" and score == 1.0:
            return Evaluation(1.0, details)
    scores = [d["score"] for d in details]
    total = sum(scores) / len(scores) if evaluator.conj == "and" else max(scores)
    return Evaluation(min(1.0, max(0.0, total)), details)
