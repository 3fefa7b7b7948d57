"""OSWorld's evaluation rules, exactly: postconfig first; ``infeasible`` tasks score 1 only
when the agent's last action was FAIL, and every other task scores 0 when it was; then the
metrics, combined by ``conj``.

- ``conj: "and"`` (the default): the first metric scoring 0 makes the task 0; otherwise the
  mean of the scores.
- ``conj: "or"``: the first metric scoring 1 makes the task 1; otherwise the maximum.

Getters hand the metric what they found, None included (a desktop file that does not
exist): each metric scores that as OSWorld's does, mostly 0. A result getter raising
FileNotFoundError scores its metric 0, as in OSWorld. A metric or getter that raises on what
it was given (an unreadable agent-made file, an input OSWorld's code cannot handle) makes the
task 0, as OSWorld's evaluation fails there, and the error is kept in the details. Missing
optional dependencies, unimplemented metrics and infrastructure errors raise.

What the agent made is hostile input, so the evaluator's work on it is bounded
(`EvaluationLimits`): every metric runs in a worker process under a memory, CPU and
wall-clock bound (`gui_gym.runtime.bounded_call`; the one metric that runs the task's code on
the desktop, ``check_python_file_by_test_suite``, stays here: its work is on the desktop),
getters copy no desktop file past a size cap, and a getter that parses an agent's document
does it in the worker too. Past a bound the task scores 0 and the reason is one of the
evaluation's `warnings` (``info["evaluation"]["evaluator_warnings"]``): the agent's doing,
never an infrastructure error, and never the host's memory.

The desktop is the agent's too, so the evaluation's own steps can fail because of what the
agent left there: a folder or a link where postconfig downloads a file (the server refuses to
write through it), a file a getter asks for that the server will not read. Any answer of the
desktop's server that says no (`ServerError`), in postconfig or in a getter, scores the task 0
with a warning that names the step; only a server that cannot be reached (`InfraError`) is an
infrastructure error. Postconfig downloads that the desktop never needs stay on the host
(`held_files`), out of the agent's reach.

And the agent's processes may still run. So the evaluation begins by telling the desktop the
agent is done (`EpisodeContext.begin_evaluation`): on our desktop its leftover processes stop,
the evaluation's commands run where none of the agent's processes can trace them, and the
files it writes are the server's, their names watched; one of them replaced, moved or removed
before the end scores the task 0 with a warning.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from gui_gym.actions import Action
from gui_gym.backends.desktop.client import ServerError
from gui_gym.errors import GUIGymError, LimitExceededError, TaskConfigError
from gui_gym.runtime.bounded_call import CallFailed
from gui_gym.suites.osworld.context import EpisodeContext
from gui_gym.suites.osworld.getters import GETTER_TYPES, get_getter
from gui_gym.suites.osworld.held_files import held_downloads
from gui_gym.suites.osworld.loader import Evaluator
from gui_gym.suites.osworld.metrics import DESKTOP_ARGUMENTS, get_metric
from gui_gym.suites.osworld.setup import SetupRunner

logger = logging.getLogger(__name__)


@dataclass
class Evaluation:
    """The score and how it came about, one entry per metric that ran."""

    score: float
    details: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Why the agent's content was not scored (a bound it went past): the task scored 0."""
    stopped: list[dict[str, Any]] = field(default_factory=list)
    """The agent's processes stopped when the evaluation began (pid, uid, command)."""


def _get(ctx: EpisodeContext, config: dict[str, Any] | None) -> Any:
    if not config:
        return None
    kind = config.get("type")
    if kind not in GETTER_TYPES:
        raise TaskConfigError(f"{ctx.spec.path}: getter type {kind!r} is not implemented "
                              f"(implemented: {sorted(GETTER_TYPES)})")
    return get_getter(kind)(ctx, config)


READ_CHARS = 300
"""How much of what a result getter read the details keep (a file's path, a setting's value)."""


def summarize(value: Any) -> str:
    """What a result getter read, short enough for a report line: why a task scored as it did
    on a desktop nobody touched is mostly there."""
    text = repr(value)
    return text if len(text) <= READ_CHARS else text[:READ_CHARS] + f"... ({len(text)} chars)"


class MetricCrash(Exception):
    """A getter or metric raised on its input: OSWorld's evaluation would fail; the task scores 0."""


def _score_one(ctx: EpisodeContext, evaluator: Evaluator, index: int, fallback: bool) -> dict[str, Any]:
    func = evaluator.funcs[index]
    entry: dict[str, Any] = {"func": func}
    metric = get_metric(func, fallback=fallback)
    try:
        try:
            result = _get(ctx, evaluator.results[index])
        except FileNotFoundError as exc:
            return {**entry, "score": 0.0, "error": f"result not found: {exc}"}
        entry["read"] = summarize(result)
        if result is None or (isinstance(result, list) and None in result):
            entry["note"] = "the result getter found nothing (scored as OSWorld's metric scores None)"
        options = evaluator.options[index]
        if func in DESKTOP_ARGUMENTS:
            options = {**options, DESKTOP_ARGUMENTS[func]: ctx.run_python}
        args = [result, _get(ctx, evaluator.expecteds[index])] if evaluator.expecteds[index] else [result]
        if func in DESKTOP_ARGUMENTS:
            score = metric(*args, **options)
        else:
            score = ctx.bounded("gui_gym.suites.osworld.metrics:run_metric", func, fallback, args, options)
    except (LimitExceededError, ServerError):
        raise
    except CallFailed as exc:
        logger.warning("task %s: metric %s failed: %s", ctx.spec.id, func, exc)
        raise MetricCrash(f"{func}: {exc}") from exc
    except (GUIGymError, NotImplementedError):
        raise
    except Exception as exc:
        logger.warning("task %s: metric %s failed: %s: %s", ctx.spec.id, func, type(exc).__name__, exc)
        raise MetricCrash(f"{func}: {type(exc).__name__}: {exc}") from exc
    if score is None:
        raise MetricCrash(f"{func} returned no score")
    return {**entry, "score": float(score)}


def _refused(ctx: EpisodeContext, step: str, why: str, details: list[dict[str, Any]] | None = None) -> Evaluation:
    """A task scored 0 because of what the agent left: a warning, logged and kept."""
    warning = f"{step}: {why}"
    logger.warning("task %s: %s", ctx.spec.id, warning)
    return Evaluation(0.0, [*(details or []), {"func": step, "score": 0.0, "error": warning}], [warning])


def evaluate(ctx: EpisodeContext, evaluator: Evaluator, last_action: Action | None,
             fallback: bool = False) -> Evaluation:
    """Score the episode's final state (see the module docstring for the rules)."""
    stopped = ctx.begin_evaluation()
    if stopped:
        logger.info("task %s: stopped %d processes the agent left: %s", ctx.spec.id, len(stopped),
                    ", ".join(f"{p['pid']} {p['command']}" for p in stopped))
    evaluation = _evaluate(ctx, evaluator, last_action, fallback)
    replaced = ctx.replaced_files()
    if replaced:
        evaluation = _refused(ctx, "evaluation files", "replaced, moved or removed while the evaluation ran: "
                              + ", ".join(replaced), evaluation.details)
    evaluation.stopped = stopped
    return evaluation


def _evaluate(ctx: EpisodeContext, evaluator: Evaluator, last_action: Action | None, fallback: bool) -> Evaluation:
    try:
        SetupRunner(ctx, held_downloads(evaluator)).run(evaluator.postconfig)
    except (ServerError, LimitExceededError) as exc:
        return _refused(ctx, "postconfig", f"the desktop refused a step: {exc}")
    failed = last_action is not None and last_action.kind == "fail"
    if evaluator.infeasible:
        return Evaluation(1.0 if failed else 0.0, [{"func": "infeasible", "agent_said_fail": failed}])
    if failed:
        return Evaluation(0.0, [{"func": "FAIL", "error": "the agent declared a feasible task infeasible"}])
    details: list[dict[str, Any]] = []
    for index in range(len(evaluator.funcs)):
        try:
            entry = _score_one(ctx, evaluator, index, fallback)
        except MetricCrash as crash:
            details.append({"func": evaluator.funcs[index], "score": 0.0, "error": str(crash)})
            return Evaluation(0.0, details)
        except LimitExceededError as exc:
            return _refused(ctx, evaluator.funcs[index], f"not scored, the agent's content went past a bound: {exc}",
                            details)
        except ServerError as exc:
            return _refused(ctx, evaluator.funcs[index], f"not scored, the desktop's server refused a getter's request: {exc}", details)
        details.append(entry)
        score = entry["score"]
        if evaluator.conj == "and" and score == 0.0:
            return Evaluation(0.0, details)
        if evaluator.conj == "or" and score == 1.0:
            return Evaluation(1.0, details)
    scores = [d["score"] for d in details]
    total = sum(scores) / len(scores) if evaluator.conj == "and" else max(scores)
    return Evaluation(min(1.0, max(0.0, total)), details)
