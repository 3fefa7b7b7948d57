"""Does PAGE's progress track real progress, and how much do judging rounds steady it?

Partial trajectories of every task that has milestones: each prefix of the oracle's solution
(k oracle actions, then giving up, for every k) plus the whole solution, and random rollouts.
Each runs through ``ProgressReward(SubtaskAnnotation(env), OracleJudge())``; its final
``info["progress"]`` is compared with the true fraction of milestones reached, checked
independently by this script after every step (Spearman's rank correlation; target 1.0).

Then the same trajectories are judged again by a noisy oracle (each mark flipped with
probability ``--flip``) through the same `judge_progress` the wrapper uses, `--repeats`
times each, for rounds = 1, 3, 5: the std of p per trajectory (mean over the trajectories the
judge decides, i.e. those that did not succeed) shows what multi-round aggregation buys, and
the mean |p - truth| and the Spearman correlation of one noisy draw show what noise costs.
(Many partial trajectories share a truth, mostly 0; ranks inside such a tie are random under
any noise, so Spearman moves little with `mean` aggregation, which rarely returns p to an
exact tie, and more with `majority`, which does.)

    python -m gui_gym.benchmarks.learning.measure_progress [--env GUI/LocalWeb-v0] [--seeds 3] [--random 4] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym import Action
from gui_gym.judges import NoisyOracleJudge, OracleJudge, judge_progress
from gui_gym.records import Trajectory
from gui_gym.wrappers.progress import ProgressReward
from gui_gym.wrappers.subtasks import SubtaskAnnotation

ROUNDS = (1, 3, 5)


@dataclass
class Sample:
    """One partial trajectory: what the wrapper said, what was true, and the trajectory
    (screenshots dropped) to judge again."""

    task_id: str
    kind: str
    progress: float | None
    truth: float | None
    success: bool
    trajectory: Trajectory


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (ties get their mean rank); NaN when a side is constant."""
    def ranks(values: Sequence[float]) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        order = np.argsort(values, kind="stable")
        ranked = np.empty(len(values))
        ranked[order] = np.arange(1, len(values) + 1)
        for value in np.unique(values):
            tied = values == value
            ranked[tied] = ranked[tied].mean()
        return ranked

    rx, ry = ranks(xs), ranks(ys)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def episode(env: ProgressReward, task_id: str, seed: int, actions: Any, kind: str) -> Sample:
    """Run one episode; `actions(env, step)` gives each action. The truth is checked here,
    straight from the task's milestones, after the reset and after every step (None for a
    task without milestones)."""
    started = time.perf_counter()
    env.reset(seed=seed, options={"task_id": task_id})
    base = env.unwrapped
    milestones = base.task.milestones()
    reached = [m.check(base.backend) for m in milestones]
    step = 0
    while True:
        *_, terminated, truncated, info = env.step(actions(env, step))
        reached = [was or m.check(base.backend) for was, m in zip(reached, milestones)]
        step += 1
        if terminated or truncated:
            break
    trajectory = env.trajectory
    trajectory.start_screenshot = None
    for recorded in trajectory.steps:
        recorded.screenshot = None
    truth = sum(reached) / len(reached) if reached else None
    print(f"  {task_id} seed {seed} {kind}: {step} steps, progress {info['progress']}, truth {truth}, "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return Sample(task_id, kind, info["progress"], truth, bool(info["success"]), trajectory)


def collect(env_id: str, seeds: int, random_rollouts: int, random_steps: int,
            tasks: list[str] | None) -> tuple[list[Sample], list[str]]:
    base = gym.make(env_id)
    env = ProgressReward(SubtaskAnnotation(base), OracleJudge(), rounds=1)
    samples: list[Sample] = []
    skipped: list[str] = []
    try:
        for task_id in tasks or base.unwrapped.task_ids:
            for seed in range(seeds):
                full = episode(env, task_id, seed, lambda e, _: e.unwrapped.oracle_action(), "oracle")
                if full.truth is None:
                    skipped.append(task_id)
                    break
                samples.append(full)
                for k in range(len(full.trajectory.steps)):  # k oracle actions, then give up
                    samples.append(episode(env, task_id, seed, lambda e, step, k=k: (
                        e.unwrapped.oracle_action() if step < k else Action.fail("prefix")), f"prefix{k}"))
                base.action_space.seed(seed)
                for _ in range(random_rollouts):
                    samples.append(episode(env, task_id, seed, lambda e, step: (
                        base.action_space.sample() if step < random_steps else Action.fail("random")), "random"))
    finally:
        env.close()
    return samples, skipped


def noisy_study(samples: list[Sample], flip: float, repeats: int, aggregate: str) -> dict[int, dict[str, float]]:
    """Per rounds, over the trajectories the judge decides (those that did not succeed): the
    mean std of p and the mean |p - truth|; and the Spearman correlation of one draw over all
    trajectories, averaged over the draws."""
    judge = NoisyOracleJudge(flip, seed=0)
    rng = np.random.default_rng(0)
    judged = [i for i, s in enumerate(samples) if not s.success]
    truth = [s.truth for s in samples]
    out: dict[int, dict[str, float]] = {}
    for rounds in ROUNDS:
        draws = np.empty((repeats, len(samples)))
        for r in range(repeats):
            for i, sample in enumerate(samples):
                criteria = judge.own_criteria(sample.trajectory)
                seeds = [int(s) for s in rng.integers(0, 2**31 - 1, size=rounds)]
                draws[r, i] = judge_progress(judge, sample.trajectory, criteria, seeds=seeds, aggregate=aggregate,
                                             success=sample.success).progress
        rhos = [spearman(draws[r], truth) for r in range(repeats)]
        errors = np.abs(draws[:, judged] - np.asarray(truth)[judged])
        out[rounds] = {"std_p": float(np.mean(draws[:, judged].std(axis=0))) if judged else float("nan"),
                       "mae": float(errors.mean()) if judged else float("nan"),
                       "spearman": float(np.nanmean(rhos))}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="GUI/LocalWeb-v0", help="env id (default GUI/LocalWeb-v0)")
    parser.add_argument("--tasks", nargs="*", help="task ids (default: every task of the env)")
    parser.add_argument("--seeds", type=int, default=3, help="task instances per task")
    parser.add_argument("--random", type=int, default=4, help="random rollouts per instance")
    parser.add_argument("--random-steps", type=int, default=8, help="random actions before giving up")
    parser.add_argument("--flip", type=float, default=0.2, help="noisy judge: probability of a wrong mark")
    parser.add_argument("--repeats", type=int, default=200, help="noisy judgings per trajectory")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    samples, skipped = collect(args.env, args.seeds, args.random, args.random_steps, args.tasks)
    if not samples:
        raise SystemExit(f"no task of {args.env} has milestones: nothing to measure")
    progress = [s.progress for s in samples]
    truth = [s.truth for s in samples]
    report: dict[str, Any] = {
        "env": args.env, "tasks": sorted({s.task_id for s in samples}),
        "skipped_without_milestones": sorted(set(skipped)),
        "trajectories": len(samples), "by_kind": {k: sum(s.kind.rstrip("0123456789") == k for s in samples)
                                                   for k in ("oracle", "prefix", "random")},
        "distinct_truth_values": sorted(set(truth)),
        "oracle_spearman": spearman(progress, truth),
        "oracle_exact": sum(p == t or s.success for p, t, s in zip(progress, truth, samples)) / len(samples),
        "flip": args.flip, "repeats": args.repeats,
        "noisy": {agg: noisy_study(samples, args.flip, args.repeats, agg) for agg in ("mean", "majority")},
        "collect_s": round(time.perf_counter() - started, 1),
    }
    print(f"{args.env}: {len(samples)} partial trajectories over {len(report['tasks'])} task(s) "
          f"({report['by_kind']}); skipped without milestones: {report['skipped_without_milestones']}")
    print(f"oracle judge: Spearman(progress, true fraction of milestones) = {report['oracle_spearman']:.4f}; "
          f"progress equals the truth (or success forced 1) in {report['oracle_exact']:.1%}")
    print(f"noisy judge (flip {args.flip}, {args.repeats} repeats; std over the trajectories that did not succeed):")
    print("  aggregate  rounds  std(p)  |p-truth|  Spearman")
    for agg, rows in report["noisy"].items():
        for rounds, row in rows.items():
            print(f"  {agg:<9}  {rounds:>6}  {row['std_p']:.4f}  {row['mae']:.4f}     {row['spearman']:.4f}")
    print(f"({report['collect_s']} s)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as file:
            json.dump(report, file, indent=2)
    return report


if __name__ == "__main__":
    main()
