"""Branched vs whole-episode groups: the same method, policy, task, starting weights and env
step budget, with and without `GRPOConfig.branching` (`gui_gym.trainers.branching`), several seeds.

A whole-episode group of a long task the starting policy never solves gives GRPO nothing to
learn from; with branching, the loop adds G continuations from the state just after the
deepest milestone the stuck group reached. The budget is in env steps, and a continuation
pays for its own steps and for the prefix its restore replays, so branching gets no steps
for free. After training, each policy is evaluated greedily on its training instance and on
held-out ones (`final_success`). It runs on LocalWeb (branching restores the browser's
snapshots; TextWeb has none), from the element policy's hand-set prior, with a setting of its own.

    python -m gui_gym.benchmarks.learning.branching                      # GRPO, 3 seeds
    python -m gui_gym.benchmarks.learning.branching --algos grpo,page --steps 480
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from gui_gym.runtime.processes import die_with_parent
from gui_gym.trainers import metrics
from gui_gym.trainers.metrics import RunRecords

MODES = ("whole", "branched")


@dataclass(frozen=True)
class Setting:
    """The comparison's configuration: its LocalWeb tasks and the training shared by every run
    (the budget is `--steps` env steps, given apart)."""

    tasks: tuple[str, ...] = ("shop.cheapest-in-category",)
    seeds: tuple[int, ...] = (0, 1, 2)
    group_size: int = 8
    max_steps: int = 10
    learning_rate: float = 0.05
    update_epochs: int = 2
    prior_scale: float = 3.0
    """The element policy's starting prior (`ElementPolicy(prior_scale=...)`), the same for all."""
    instances: int = 1
    """Training instances per task (`GRPOConfig.instance_seeds`)."""
    eval_instances: int = 4
    """Held-out instances per task."""
    pool_size: int = 2


SETTING = Setting()


def make_env(tasks: tuple[str, ...], max_steps: int) -> Any:
    """LocalWeb with only the tasks' apps, the a11y tree on."""
    from gui_gym.registration import make as make_named_env

    apps = sorted({task.split(".")[0] for task in tasks})
    return make_named_env("GUI/LocalWeb-v0", {"apps": apps, "observe_a11y": True, "max_steps": max_steps})


def final_success(pool: Any, policy: Any, setting: Setting, seed: int) -> dict[str, Any]:
    """Greedy success on the training instances ("final") and on `eval_instances` held-out
    ones ("held_out"): the mean over tasks, and per task."""
    from gui_gym.trainers.rollout import evaluate, held_out_seeds

    held_out = held_out_seeds(setting.eval_instances, 1000 + seed, setting.instances)
    out: dict[str, Any] = {}
    for key, seeds in (("final", range(setting.instances)), ("held_out", held_out)):
        per_task = evaluate(pool, policy, setting.tasks, seeds, greedy=True)
        out[key], out[f"{key}_per_task"] = statistics.fmean(per_task.values()), per_task
    return out


def mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.fmean(values):.2f} +- {statistics.stdev(values) if len(values) > 1 else 0.0:.2f}"


def train_one(algo: str, mode: str, seed: int, setting: Setting, steps: int, out: str) -> dict[str, Any]:
    """Train one (method, mode, seed) run on `steps` env steps and evaluate it; own process."""
    import torch

    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.trainers.cli import method
    from gui_gym.trainers.config import trainer_config
    from gui_gym.trainers.rollout import EnvPool

    torch.set_num_threads(1)
    started = time.monotonic()
    torch.manual_seed(seed)
    policy = ElementPolicy(prior_scale=setting.prior_scale)
    env_factory = partial(make_env, setting.tasks, setting.max_steps)
    common = dict(tasks=setting.tasks, iterations=10_000, step_budget=steps, group_size=setting.group_size,
                  minibatch_rollouts=setting.group_size, update_epochs=setting.update_epochs,
                  learning_rate=setting.learning_rate, seed=seed, instance_seeds=setting.instances,
                  pool_size=setting.pool_size, run_dir=str(Path(out) / f"{algo}-{mode}-seed{seed}"),
                  tensorboard=False, branching="unreached_milestone" if mode == "branched" else "off")
    records = RunRecords(method(algo)(trainer_config(algo, common), policy, env_factory))
    with EnvPool(env_factory, setting.pool_size) as pool:
        success = final_success(pool, policy, setting, seed)
    curve = records.curve(x=metrics.ENV_STEPS)
    return {"algo": algo, "mode": mode, "seed": seed, "curve": curve, **success,
            "train_last": statistics.fmean(s for _, s in curve[-3:]) if curve else 0.0,
            "env_steps": records.last(metrics.ENV_STEPS), "episodes": records.last(metrics.EPISODES),
            "branch_groups": records.total(metrics.BRANCH_GROUPS),
            "branch_success": records.mean(metrics.BRANCH_SUCCESS_RATE), "wall_s": time.monotonic() - started}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algos", default="grpo", help="methods compared, comma-separated (grpo, page)")
    parser.add_argument("--steps", type=int, default=400, help="env steps per run (restores' replays included)")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--workers", type=int, default=2, help="runs trained at once, each in its own process")
    parser.add_argument("--out", default="runs/learning-branching")
    args = parser.parse_args(argv)
    algos = tuple(args.algos.split(","))
    setting = dataclasses.replace(SETTING, seeds=tuple(int(s) for s in args.seeds.split(",")))
    started = time.monotonic()
    jobs = [(algo, mode, seed) for seed in setting.seeds for algo in algos for mode in MODES]
    context = multiprocessing.get_context("spawn")  # Playwright threads and torch do not survive a fork
    with ProcessPoolExecutor(max_workers=args.workers, mp_context=context, initializer=die_with_parent) as executor:
        futures = [executor.submit(train_one, algo, mode, seed, setting, args.steps, args.out)
                   for algo, mode, seed in jobs]
        results = [f.result() for f in futures]
    wall_s = time.monotonic() - started
    print(f"\nbranched vs whole-episode groups: task {', '.join(setting.tasks)}; {args.steps} env steps per run "
          f"(replayed prefixes counted), G={setting.group_size}, max_steps {setting.max_steps}, "
          f"seeds {list(setting.seeds)}")
    lines = [f"{'run':<16} {'training instance':>18} {'held-out':>12} {'last iters':>12} {'episodes':>9} "
             f"{'branch groups':>13} {'branch success':>14}"]
    for algo in algos:
        for mode in MODES:
            runs = [r for r in results if r["algo"] == algo and r["mode"] == mode]
            lines.append(f"{algo + ' ' + mode:<16} {mean_std([r['final'] for r in runs]):>18} "
                         f"{mean_std([r['held_out'] for r in runs]):>12} {mean_std([r['train_last'] for r in runs]):>12} "
                         f"{statistics.fmean(r['episodes'] for r in runs):>9.1f} "
                         f"{statistics.fmean(r['branch_groups'] for r in runs):>13.1f} "
                         f"{mean_std([r['branch_success'] for r in runs if r['branch_success'] is not None]):>14}")
    print("\n".join(lines))
    for r in results:
        print(f"  {r['algo']} {r['mode']} seed {r['seed']}: final {r['final']:.2f}, held-out {r['held_out']:.2f}, "
              f"{r['env_steps']} steps, {r['episodes']} episodes, {r['branch_groups']} branch groups, "
              f"{r['wall_s']:.0f} s")
    print(f"\nwall time {wall_s:.0f} s ({args.workers} workers)")
    report = {"setting": dataclasses.asdict(setting), "steps": args.steps, "wall_s": wall_s, "runs": results,
              "table": lines}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
