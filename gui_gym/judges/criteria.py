"""PAGE's criteria, extracted from successful trajectories.

Extraction reads a task's successful trajectories one at a time; each judge call proposes an
ordered list of checkable criteria, or refines the list so far; it stops when a call returns
the list unchanged (stable) or after `max_iters` calls. `build_criteria` runs it over a
gui-bench results folder and keeps the result in a `CriteriaStore` (``criteria_store``);
``gui-bench criteria`` is its command line (`gui_gym.benchmarks.commands.criteria`).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from gui_gym.errors import JudgeError, TaskConfigError
from gui_gym.judges.criteria_store import CriteriaStore
from gui_gym.judges.lvlm import LVLMJudge
from gui_gym.models.chat import ChatModel
from gui_gym.records import RESULT_FILE, Trajectory, load_episode, read_result


@dataclass
class Extraction:
    """What one extraction run found: the criteria (None if every call failed), which
    trajectories the judge answered about, whether the last answer repeated its input, and
    the errors of the calls that failed."""

    criteria: list[str] | None
    used: list[int] = field(default_factory=list)
    stable: bool = False
    errors: list[str] = field(default_factory=list)


def extract_criteria(judge: ChatModel | LVLMJudge | Any, trajectories: Iterable[Trajectory], *,
                     previous: Sequence[str] | None = None, max_iters: int | None = None,
                     seed: int = 0) -> Extraction:
    """Iterative extraction over successful `trajectories` (read lazily, so at most
    `max_iters` are loaded), starting from `previous`. `judge` is a chat model (asked through
    `LVLMJudge`) or any judge with `LVLMJudge.propose_criteria`'s method."""
    if max_iters is not None and max_iters < 1:
        raise ValueError(f"max_iters must be >= 1 or None, received {max_iters}")
    lvlm = judge if hasattr(judge, "propose_criteria") else LVLMJudge(judge)  # an LVLMJudge, or a judge of its own
    result = Extraction(list(previous) if previous else None)
    for index, trajectory in enumerate(itertools.islice(trajectories, max_iters)):
        try:
            proposed = lvlm.propose_criteria(trajectory, result.criteria, seed=seed)
        except JudgeError as exc:
            result.errors.append(f"trajectory {index}: {exc}")
            continue
        result.used.append(index)
        if proposed == result.criteria:
            result.stable = True
            break
        result.criteria = proposed
    return result


def build_criteria(results_dir: str | os.PathLike[str], judge: ChatModel, store_path: str | os.PathLike[str], *,
                   max_iters: int | None = None, task_ids: Sequence[str] | None = None,
                   seed: int = 0) -> dict[str, dict[str, Any]]:
    """Criteria for every task with successful episodes under `results_dir`, stored in
    `store_path`. Returns, per task: version, criteria, trajectories used, stable, errors."""
    root = Path(results_dir)
    if not root.is_dir():
        raise TaskConfigError(f"results folder {root} does not exist")
    successes: dict[str, list[Path]] = {}
    for result_path in sorted(root.rglob(RESULT_FILE)):
        result = read_result(result_path.parent)
        if result.success and (task_ids is None or result.task_id in task_ids):
            successes.setdefault(result.task_id, []).append(result_path.parent)
    store = CriteriaStore(store_path)
    summary: dict[str, dict[str, Any]] = {}
    for task_id, folders in sorted(successes.items()):
        found = extract_criteria(judge, (load_episode(folder) for folder in folders), previous=store.get(task_id),
                                 max_iters=max_iters, seed=seed)
        sources = [str(folders[i].relative_to(root)) for i in found.used]
        entry: dict[str, Any] = {"criteria": found.criteria, "version": None, "trajectories": sources,
                                 "stable": found.stable, "errors": found.errors}
        if found.criteria and found.used:
            entry["version"] = store.put(task_id, found.criteria, judge=judge.identity, sources=sources,
                                         stable=found.stable, errors=found.errors)
        summary[task_id] = entry
    return summary
