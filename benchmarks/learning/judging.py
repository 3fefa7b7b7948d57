"""Measuring the learning benchmark's judges: episodes recorded as a judge sees them, beside
the env's truth; each judge's agreement with the truth per kind of criterion; its calls.

`ObservedEpisode` records an episode through a judge's own probe (what that judge reads of the
pages) and hands it over at the end with the truth, which only the measurement reads: the
env's progress before any judge's wrapper replaces it, and whether the save rejected a hidden
mistake on a page the agent saw. `agreement` compares a judge's marks with the milestones
reached, per kind of criterion (`criterion_kinds`): on ordinary tasks a named stage, a hidden
one, the save; on tasks with a deferred stage (`gui_gym.benchmarks.learning.textweb.Stage.deferred`) the stages
before it, the deferred stage and those after it, the last two apart for the episodes whose
pages showed the save's rejection and those whose did not. That is where a judge that reads
pages can be misled, so it is where its errors are looked for. `CountedJudge` counts a judge's
calls, what a judged run spends besides its episodes.
"""

from __future__ import annotations

import statistics
import zlib
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from gui_gym.judges.trajectory import Subtask, TrajectoryJudge, TrajectoryKeeper
from gui_gym.models.chat import SharedOnCopy
from gui_gym.records import Trajectory


class ObservedEpisode(gym.Wrapper):
    """Records each episode through `judge`'s probe and hands it over in the last step's
    info: ``observed_trajectory`` (for criteria extraction and for training a judge),
    ``true_progress`` (the env's own progress, before a judge's wrapper outside replaces
    ``progress``) and ``revealed`` (whether the save's rejection of a hidden mistake was shown),
    the last two for `agreement`."""

    def __init__(self, env: gym.Env, judge: TrajectoryJudge):
        super().__init__(env)
        self.keeper = TrajectoryKeeper(judge)
        self.revealed = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.keeper.begin(self.env, obs, info, seed)
        self.revealed = False
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        trajectory = self.keeper.add(self.env, obs, info, terminated or truncated)
        self.revealed = self.revealed or bool(self.env.unwrapped.rejected)
        if terminated or truncated:
            info.update(observed_trajectory=trajectory, true_progress=info.get("progress"), revealed=self.revealed)
        return obs, reward, terminated, truncated, info


def criterion_kinds(template: Any) -> list[str]:
    """The kind of each of a template's criteria (one per stage, then the save): "named",
    "hidden" and "save" on an ordinary task; "before", "deferred" and "after" the first
    deferred stage on a task that has one."""
    stages = template.stages
    deferred = next((k for k, s in enumerate(stages) if s.deferred), None)
    if deferred is None:
        return ["hidden" if s.kind in ("hidden", "varying") else "named" for s in stages] + ["save"]
    return ["before" if k < deferred else "deferred" if k == deferred else "after" for k in range(len(stages))] + ["after"]


def agreement(rollouts: Sequence[Any], kinds: dict[str, list[str]]) -> dict[str, Any]:
    """A judge against the truth over judged rollouts (final infos with ``true_progress``,
    ``progress``, ``progress_per_criterion`` and ``revealed``; successes, which are never judged,
    left out): per-criterion accuracy of the aggregated marks (>= 0.5 is met) against the
    milestones reached (criterion k vs milestone k, where the task's criteria count equals its
    milestones), the mean |progress - truth| and their correlation; and per kind of criterion
    (`criterion_kinds`, the deferred stage and those after it apart by whether the rejection
    was shown) the counts `pooled` adds up: criteria judged, marks right, false credit (met,
    not reached), false blame (reached, not met), criteria reached."""
    errors, pairs = [], []
    per_kind: dict[str, dict[str, int]] = {}
    for r in rollouts:
        info = r.final_info
        truth, judged, marks = info.get("true_progress"), info.get("progress"), info.get("progress_per_criterion")
        if r.success or truth is None or judged is None or not marks:
            continue
        task_kinds = kinds[r.task_id]
        reached = round(truth * len(task_kinds))
        errors.append(abs(judged - truth))
        pairs.append((judged, truth))
        if len(marks) != len(task_kinds):
            continue
        for k, (value, kind) in enumerate(zip(marks, task_kinds)):
            said, true = value >= 0.5, k < reached
            if kind in ("deferred", "after"):
                kind += ", rejection shown" if info.get("revealed") else ", rejection not shown"
            counts = per_kind.setdefault(kind, dict.fromkeys(COUNTS, 0))
            for name, hit in zip(COUNTS, (True, said == true, said and not true, true and not said, true)):
                counts[name] += hit
    judged_criteria = sum(c["criteria"] for c in per_kind.values())
    return {"episodes": len(errors),
            "criterion_accuracy": sum(c["right"] for c in per_kind.values()) / judged_criteria if judged_criteria else None,
            "progress_mae": statistics.fmean(errors) if errors else None,
            "progress_correlation": _correlation(pairs), "per_kind": dict(sorted(per_kind.items()))}


COUNTS = ("criteria", "right", "false_credit", "false_blame", "reached")
"""What `agreement` counts per kind of criterion."""


def pooled(agreements: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several `agreement`s (one judge on several runs' episodes) as one: episodes and the
    per-kind counts summed, the accuracy over all criteria, the error and correlation as the
    episode-weighted mean of the runs'."""
    per_kind: dict[str, dict[str, int]] = {}
    for a in agreements:
        for kind, counts in a["per_kind"].items():
            total = per_kind.setdefault(kind, dict.fromkeys(COUNTS, 0))
            for name in COUNTS:
                total[name] += counts[name]
    episodes = sum(a["episodes"] for a in agreements)
    criteria = sum(c["criteria"] for c in per_kind.values())

    def weighted(key: str) -> float | None:
        rows = [(a[key], a["episodes"]) for a in agreements if a[key] is not None]
        return sum(v * n for v, n in rows) / sum(n for _, n in rows) if rows and sum(n for _, n in rows) else None
    return {"episodes": episodes,
            "criterion_accuracy": sum(c["right"] for c in per_kind.values()) / criteria if criteria else None,
            "progress_mae": weighted("progress_mae"), "progress_correlation": weighted("progress_correlation"),
            "per_kind": dict(sorted(per_kind.items()))}


def _correlation(pairs: Sequence[tuple[float, float]]) -> float | None:
    if len(pairs) < 3:
        return None
    xs, ys = zip(*pairs)
    if statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return None
    return statistics.correlation(xs, ys)


def round_draws(judge_seed: int, round_seed: int | None, trajectory: Trajectory, count: int) -> np.ndarray:
    """`count` uniform draws for one judging round of `trajectory`: from the judge's seed, the
    round's and the trajectory's actions. The keeper's round seeds repeat for every episode
    reset with the same seed (every rollout of a group: the trainer resets with the instance
    seed), so the round's seed alone would give a group's episodes of one length the same
    draws; with the actions, two episodes draw apart and one episode judged again draws the
    same."""
    actions = repr([step.parsed_action for step in trajectory.steps]).encode()
    return np.random.default_rng([judge_seed, 0 if round_seed is None else round_seed, zlib.crc32(actions)]).random(count)


class CountedJudge(SharedOnCopy):
    """`judge`, counting the calls PAGE's wrappers make of it (`mark` per round, `segment` per
    episode): a judged run's cost besides its episodes."""

    def __init__(self, judge: TrajectoryJudge):
        self.judge, self.identity, self.calls = judge, judge.identity, 0

    def probe(self, env: gym.Env) -> Any:
        return self.judge.probe(env)

    def own_criteria(self, trajectory: Trajectory) -> list[str] | None:
        return self.judge.own_criteria(trajectory)

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        self.calls += 1
        return self.judge.mark(trajectory, criteria, seed=seed)

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        self.calls += 1
        return self.judge.segment(trajectory, seed=seed)
