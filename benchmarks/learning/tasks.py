"""Stage 1 of the learning benchmark, task selection: the pretrained base measured on candidate
templates, and the splits chosen from what it does there, as ARPO filters its tasks by the
base's success.

Per candidate (`measure_candidates`): sampled success and the mean and spread (sd) of the
oracle's progress in plain rollouts (what RL's own groups see), and sampled success acted on the
instance's expert plan (what BEPA's LEVEL-1 gets). `choose_splits` files each candidate:

- *learnable*: the base succeeds sometimes (success >= `learnable_success`);
- *expert-only*: the base ~never succeeds (success < `expert_success`) but does with the plan
  (plan success >= `expert_plan_success`): BEPA's setting, where GRPO's groups are all-fail;
- *compound*: the base rarely succeeds and its rollouts stop at different milestones (progress
  sd >= `compound_progress_sd`): PAGE's setting;
- *unused*: none of these (no signal for any method).

The measurement is cached (``task_selection.json`` in the results folder) so a resumed or
summarized run chooses the same tasks without measuring again.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence


@dataclass(frozen=True)
class CandidateStats:
    task_id: str
    success: float
    """Sampled success of plain rollouts."""
    progress_mean: float
    progress_sd: float
    """Population sd of the plain rollouts' progress: whether rollouts stop at different milestones."""
    plan_success: float
    """Sampled success acted on the instance's expert plan."""


@dataclass(frozen=True)
class Thresholds:
    learnable_success: float = 0.1
    expert_success: float = 0.05
    expert_plan_success: float = 0.2
    compound_progress_sd: float = 0.15


def measure_candidates(policy: Any, make_env: Any, task_ids: Sequence[str], instances: int,
                       episodes_per_instance: int) -> list[CandidateStats]:
    """The base on each candidate: `episodes_per_instance` sampled episodes on each of the
    training instances 0..instances-1, plain and plan-conditioned."""
    from gui_gym.trainers.rollout import EnvPool, rollout_episodes

    out = []
    with EnvPool(make_env, 1) as pool:
        plan_of = lambda task_id, seed: pool.run([(0, lambda env: env.get_wrapper_attr("expert_plan")(task_id, seed))])[0]  # noqa: E731
        for task_id in task_ids:
            plain = rollout_episodes(pool, policy, [(task_id, s) for s in range(instances)] * episodes_per_instance)
            planned = [r for s in range(instances)
                       for r in rollout_episodes(pool, policy, [(task_id, s)] * episodes_per_instance,
                                                 plan=plan_of(task_id, s))]
            progress = [r.progress for r in plain]
            out.append(CandidateStats(task_id, statistics.fmean(r.success for r in plain), statistics.fmean(progress),
                                      statistics.pstdev(progress), statistics.fmean(r.success for r in planned)))
    return out


def choose_splits(candidates: Sequence[CandidateStats], thresholds: Thresholds = Thresholds()) -> dict[str, list[str]]:
    """Each candidate's split (the module's rules; expert-only before compound: a task the
    plan unlocks is BEPA's case first)."""
    splits: dict[str, list[str]] = {"learnable": [], "expert_only": [], "compound": [], "unused": []}
    for c in candidates:
        if c.success >= thresholds.learnable_success:
            splits["learnable"].append(c.task_id)
        elif c.success < thresholds.expert_success and c.plan_success >= thresholds.expert_plan_success:
            splits["expert_only"].append(c.task_id)
        elif c.progress_sd >= thresholds.compound_progress_sd:
            splits["compound"].append(c.task_id)
        else:
            splits["unused"].append(c.task_id)
    return splits


def cached_selection(path: Path, measure: Callable[[], list[CandidateStats]]) -> tuple[list[CandidateStats], dict[str, list[str]]]:
    """The candidates' measurement from `path`, or `measure()`'s, written there; and the splits."""
    if path.is_file():
        candidates = [CandidateStats(**c) for c in json.loads(path.read_text())["candidates"]]
    else:
        candidates = list(measure())
    splits = choose_splits(candidates)
    path.write_text(json.dumps({"candidates": [asdict(c) for c in candidates], "thresholds": asdict(Thresholds()),
                                "splits": splits}, indent=2))
    return candidates, splits


def selection_lines(candidates: Sequence[CandidateStats], splits: dict[str, list[str]]) -> list[str]:
    """The measurement as a markdown table, each candidate with its split."""
    split_of = {t: name for name, ids in splits.items() for t in ids}
    lines = ["| candidate | sampled success | progress mean | progress sd | plan-conditioned success | split |",
             "|---|---|---|---|---|---|"]
    for c in candidates:
        lines.append(f"| {c.task_id} | {100 * c.success:.1f} | {c.progress_mean:.2f} | {c.progress_sd:.2f} | "
                     f"{100 * c.plan_success:.1f} | {split_of[c.task_id]} |")
    return lines

