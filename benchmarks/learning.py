"""The learning benchmark, the papers' claim in small: on long LocalWeb tasks where a random
policy never succeeds, GRPO, PAGE and BEPA train the same element policy
(`agents.policies.element.ElementPolicy`) for the same number of env episodes, 3 seeds
each. GRPO's groups all fail, so its advantages are zero and it does not move; PAGE learns
from progress (the oracle judge's milestones) and subtask credit; BEPA seeds a per-task
cache with plan-conditioned successes and injects them into all-fail groups.

Every method gets the same tasks, training instances (a fixed set per task, as RL trains on
a fixed task set), policy, starting weights (per seed), env settings and episode budget;
BEPA's LEVEL-1 episodes are paid out of its budget. After training, each policy is evaluated
greedily on its training instances and on held-out ones (generalization). Prints the
success-rate curves (on-policy training rollouts, mean over seeds, by episodes spent) and a
final table (mean +- std over seeds), writes ``results.json`` and a PNG of the curves.

    python -m benchmarks.learning --quick          # two tasks, a small budget
    python -m benchmarks.learning                  # the full run
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

from gui_gym.processes import die_with_parent

ALGOS = ("grpo", "page", "bepa")
DOCS = Path(__file__).resolve().parents[1] / "docs"


@dataclass(frozen=True)
class Setting:
    """One benchmark configuration; every method runs with all of it."""

    tasks: tuple[str, ...]
    """LocalWeb task ids (8+ oracle steps each)."""
    episodes: int
    """Env episodes per training run (the budget every method gets)."""
    seeds: tuple[int, ...] = (0, 1, 2)
    group_size: int = 8
    max_steps: int = 10
    """Step limit of every episode (the oracle solutions of the tasks fit in it)."""
    learning_rate: float = 0.05
    update_epochs: int = 2
    prior_scale: float = 3.0
    """The element policy's starting prior (`ElementPolicy(prior_scale=...)`), the same for all."""
    instances: int = 4
    """Training instances per task (instance seeds 0..instances-1, `GRPOConfig.instance_seeds`):
    the fixed task set RL trains on, as in the papers."""
    eval_instances: int = 8
    """Held-out instances per task in the final greedy evaluation of generalization."""
    pool_size: int = 2
    """Envs per run, stepping concurrently (runs x envs beyond the cores only adds contention)."""


QUICK = Setting(tasks=("shop.cheapest-in-category", "admin.invite-user"), episodes=48, instances=1, eval_instances=2)
FULL = Setting(tasks=("shop.cheapest-in-category", "admin.invite-user"), episodes=160, instances=1, eval_instances=4)


def make_env(tasks: tuple[str, ...], max_steps: int) -> Any:
    """The env every method trains on: LocalWeb with only the tasks' apps, the a11y tree on."""
    from gui_gym.registration import make as make_named_env

    apps = sorted({task.split(".")[0] for task in tasks})
    return make_named_env("GUI/LocalWeb-v0", {"apps": apps, "observe_a11y": True, "max_steps": max_steps})


def train_one(algo: str, seed: int, setting: Setting, out: str) -> dict[str, Any]:
    """Train one (method, seed) run and evaluate it; runs in its own process."""
    import torch

    from agents.policies.element import ElementPolicy
    from trainers.cli import method
    from trainers.config import trainer_config
    from trainers.rollout import EnvPool

    torch.set_num_threads(1)
    started = time.monotonic()
    torch.manual_seed(seed)
    policy = ElementPolicy(prior_scale=setting.prior_scale)
    env_factory = partial(make_env, setting.tasks, setting.max_steps)
    common = dict(tasks=setting.tasks, iterations=10_000, episode_budget=setting.episodes,
                  group_size=setting.group_size, minibatch_rollouts=setting.group_size,
                  update_epochs=setting.update_epochs, learning_rate=setting.learning_rate, seed=seed,
                  instance_seeds=setting.instances,
                  pool_size=setting.pool_size, run_dir=str(Path(out) / f"{algo}-seed{seed}"), tensorboard=False)
    records = method(algo)(trainer_config(algo, common), policy, env_factory)
    with EnvPool(env_factory, setting.pool_size) as pool:
        success = final_success(pool, policy, setting, seed)
    curve = [(r["charts/episodes"], r["charts/success_rate"]) for r in records if "charts/success_rate" in r]
    bepa_stats = {k: sum(r.get(k, 0) for r in records) for k in
                  ("bepa/level1_successes", "bepa/all_fail_groups", "bepa/injections")} if algo == "bepa" else {}
    return {"algo": algo, "seed": seed, "curve": curve, **success,
            "train_last": statistics.fmean(s for _, s in curve[-3:]) if curve else 0.0,
            "episodes": records[-1]["charts/episodes"] if records else 0, "wall_s": time.monotonic() - started,
            **bepa_stats}


def baseline(kind: str, seed: int, setting: Setting) -> dict[str, Any]:
    """The untrained starting policy ("base") and a uniform random one ("random"), evaluated
    like the trained ones ("random" samples; greedy decoding of a uniform policy is not random)."""
    import torch

    from agents.policies.element import ElementPolicy
    from trainers.rollout import EnvPool

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    policy = ElementPolicy(prior_scale=setting.prior_scale if kind == "base" else 0.0)
    with EnvPool(partial(make_env, setting.tasks, setting.max_steps), setting.pool_size) as pool:
        success = final_success(pool, policy, setting, seed, greedy=kind == "base")
    return {"algo": kind, "seed": seed, **success}


def final_success(pool: Any, policy: Any, setting: Setting, seed: int, greedy: bool = True) -> dict[str, Any]:
    """Success on the training instances ("final") and on `eval_instances` held-out ones
    ("held_out"): the mean over tasks, and per task."""
    from trainers.rollout import evaluate, held_out_seeds

    held_out = held_out_seeds(setting.eval_instances, 1000 + seed, setting.instances)
    out: dict[str, Any] = {}
    for key, seeds in (("final", range(setting.instances)), ("held_out", held_out)):
        per_task = evaluate(pool, policy, setting.tasks, seeds, greedy=greedy)
        out[key], out[f"{key}_per_task"] = statistics.fmean(per_task.values()), per_task
    return out


def curves_table(results: list[dict[str, Any]], buckets: int = 8) -> tuple[list[float], dict[str, list[float]]]:
    """Success rate by episodes spent, per method: mean over seeds of each run's on-policy
    success, in `buckets` equal spans of the budget (no more spans than iterations; nan for a
    span without one, e.g. BEPA's LEVEL-1)."""
    budget = max(r["episodes"] for r in results) or 1
    buckets = max(1, min(buckets, max(len(r["curve"]) for r in results)))
    edges = [budget * (k + 1) / buckets for k in range(buckets)]
    table: dict[str, list[float]] = {}
    for algo in ALGOS:
        runs = [r for r in results if r["algo"] == algo]
        row = []
        for lo, hi in zip([0.0] + edges[:-1], edges):
            per_seed = [statistics.fmean(s for e, s in r["curve"] if lo < e <= hi) for r in runs
                        if any(lo < e <= hi for e, _ in r["curve"])]
            row.append(statistics.fmean(per_seed) if per_seed else float("nan"))
        table[algo] = row
    return edges, table


def plot(results: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for algo in ALGOS:
        runs = [r for r in results if r["algo"] == algo]
        for i, run in enumerate(runs):
            xs, ys = zip(*run["curve"]) if run["curve"] else ((), ())
            smooth = [statistics.fmean(ys[max(0, k - 2):k + 1]) for k in range(len(ys))]
            ax.plot(xs, smooth, color={"grpo": "tab:gray", "page": "tab:blue", "bepa": "tab:orange"}[algo],
                    alpha=0.85, linewidth=1.6, label=algo.upper() if i == 0 else None)
    ax.set_xlabel("env episodes spent (BEPA's LEVEL-1 included)")
    ax.set_ylabel("on-policy success rate (3-iteration mean)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title(title)
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def summary(rows: list[dict[str, Any]], kinds: tuple[str, ...]) -> list[str]:
    """The final table: mean +- std over seeds of greedy success on the training instances,
    on held-out ones, and of on-policy success in the last 3 training iterations."""
    lines = [f"{'method':<8} {'training instances':>20} {'held-out instances':>20} {'last training iters':>20}"]
    for kind in kinds:
        runs = [r for r in rows if r["algo"] == kind]
        if runs:
            cells = [mean_std([r[key] for r in runs if key in r]) for key in ("final", "held_out", "train_last")]
            lines.append(f"{kind:<8} " + " ".join(f"{cell:>20}" for cell in cells))
    return lines


def mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.fmean(values):.2f} +- {statistics.stdev(values) if len(values) > 1 else 0.0:.2f}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two tasks, a small budget")
    parser.add_argument("--out", default=None, help="results folder (default: runs/learning-quick or runs/learning)")
    parser.add_argument("--workers", type=int, default=2, help="runs trained at once, each in its own process")
    parser.add_argument("--episodes", type=int, default=None, help="override the episode budget per run")
    parser.add_argument("--png", default=None, help="where the curves go (default: docs/learning_{quick,full}.png)")
    args = parser.parse_args(argv)
    setting = QUICK if args.quick else FULL
    if args.episodes is not None:
        setting = dataclasses.replace(setting, episodes=args.episodes)
    name = "quick" if args.quick else "full"
    out = Path(args.out or f"runs/learning-{name}")
    png = Path(args.png) if args.png else DOCS / f"learning_{name}.png"
    started = time.monotonic()
    jobs = [(algo, seed) for seed in setting.seeds for algo in ALGOS]
    context = multiprocessing.get_context("spawn")  # Playwright threads and torch do not survive a fork
    with ProcessPoolExecutor(max_workers=args.workers, mp_context=context, initializer=die_with_parent) as executor:
        runs = [executor.submit(train_one, algo, seed, setting, str(out)) for algo, seed in jobs]
        bases = [executor.submit(baseline, kind, seed, setting) for seed in setting.seeds[:1] for kind in ("random", "base")]
        results = [f.result() for f in runs]
        baselines = [f.result() for f in bases]
    wall_s = time.monotonic() - started

    edges, table = curves_table(results)
    print(f"\nlearning benchmark ({name}): tasks {', '.join(setting.tasks)}; {setting.episodes} episodes per run, "
          f"G={setting.group_size}, seeds {list(setting.seeds)}, max_steps {setting.max_steps}")
    print("\non-policy success rate by episodes spent (mean over seeds)")
    print(f"{'episodes':<8} " + " ".join(f"{e:>6.0f}" for e in edges))
    for algo in ALGOS:
        print(f"{algo:<8} " + " ".join(f"{v:>6.2f}" if v == v else f"{'-':>6}" for v in table[algo]))
    print()
    lines = summary(results + baselines, ("random", "base", *ALGOS))
    print("\n".join(lines))
    for algo in ALGOS:
        per_task = {t: statistics.fmean(r["final_per_task"][t] for r in results if r["algo"] == algo)
                    for t in setting.tasks}
        print(f"  {algo} per task: " + ", ".join(f"{t} {v:.2f}" for t, v in per_task.items()))
    bepa_runs = [r for r in results if r["algo"] == "bepa"]
    print("  bepa: LEVEL-1 successes " + ", ".join(str(int(r["bepa/level1_successes"])) for r in bepa_runs)
          + "; injections " + ", ".join(str(int(r["bepa/injections"])) for r in bepa_runs)
          + "; all-fail groups " + ", ".join(str(int(r["bepa/all_fail_groups"])) for r in bepa_runs))
    print(f"\nwall time {wall_s:.0f} s ({args.workers} workers)")
    plot(results, png, f"LocalWeb learning ({name}): {len(setting.tasks)} task(s), {len(setting.seeds)} seeds")
    print(f"curves: {png}")
    report = {"setting": dataclasses.asdict(setting), "wall_s": wall_s, "workers": args.workers,
              "runs": results, "baselines": baselines, "table": lines, "curve_edges": edges, "curves": table}
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
