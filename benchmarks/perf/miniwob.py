"""Episodes per second of ``GUI/MiniWoB-v0`` against the ``miniwob`` package's own env
(selenium on Debian's chromedriver), with the random agent, on the same tasks, in one run.

Each episode's random actions (clicks, moves, typing, keys: the kinds with an exact
counterpart in the package's action space that run alike on both) are drawn once and played
on every env from the same MiniWoB seed, until the page ends the episode or `--steps`
actions. Ours runs twice: as made by default (a fresh page per episode) and with
``keep_page=True`` (the page restarted in place, as the package's env does). Browsers start
before the clock runs (ours once; the package's once per task, as it takes one env per task);
who goes first rotates from task to task, so machine noise hits all alike.

    python -m gui_gym.benchmarks.perf.miniwob [--tasks click-test,enter-text] [--episodes 5] [--steps 10]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.agents.random_agent import RandomAgent
from gui_gym.benchmarks.perf.miniwob_reference import SAME_EPISODE_KINDS, make_reference_env, reference_action
from gui_gym.actions import Action
from gui_gym.suites.miniwob import TASK_SCREEN

DEFAULT_TASKS = ("click-test", "click-button", "click-link", "click-dialog", "click-checkboxes", "enter-text",
                 "focus-text", "login-user")


def random_actions(task: str, seed: int, steps: int) -> list[Action]:
    """The random agent's actions of one episode (it does not look at the screen's content)."""
    agent = RandomAgent(seed=0, kinds=SAME_EPISODE_KINDS)
    agent.reset({"task_id": task, "reset_seed": seed})
    width, height = TASK_SCREEN
    blank = {"screenshot": np.zeros((height, width, 3), np.uint8)}
    return [agent.act(blank, {}) for _ in range(steps)]


def run_ours(env: Any, task: str, seed: int, actions: list[Action]) -> dict[str, float]:
    started = time.perf_counter()
    env.reset(options={"task_id": task, "instance_seed": seed})
    reset_s = time.perf_counter() - started
    step_times, success = [], False
    for action in actions:
        step_started = time.perf_counter()
        _, _, terminated, truncated, info = env.step(action)
        step_times.append(time.perf_counter() - step_started)
        if terminated or truncated:
            success = bool(info["success"])
            break
    return {"episode_s": time.perf_counter() - started, "reset_s": reset_s, "steps": step_times, "success": success}


def run_reference(env: Any, seed: int, actions: list[Action]) -> dict[str, float]:
    started = time.perf_counter()
    env.reset(seed=seed)
    reset_s = time.perf_counter() - started
    step_times, success = [], False
    for action in actions:
        step_started = time.perf_counter()
        _, _, terminated, _, info = env.step(reference_action(env, action))
        step_times.append(time.perf_counter() - step_started)
        if terminated:
            success = info["raw_reward"] > 0
            break
    return {"episode_s": time.perf_counter() - started, "reset_s": reset_s, "steps": step_times, "success": success}


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    total = sum(r["episode_s"] for r in runs)
    steps = [t for r in runs for t in r["steps"]]
    return {"episodes": len(runs), "episodes_per_s": len(runs) / total,
            "reset_ms": statistics.median(r["reset_s"] for r in runs) * 1000,
            "step_ms": statistics.median(steps) * 1000 if steps else 0.0,
            "successes": sum(r["success"] for r in runs)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="comma-separated MiniWoB task names")
    parser.add_argument("--episodes", type=int, default=5, help="episodes per task (MiniWoB seeds 0..n-1)")
    parser.add_argument("--steps", type=int, default=10, help="random actions per episode at most")
    parser.add_argument("--a11y", action="store_true", help="our env observes the accessibility tree too")
    args = parser.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]

    sides = {"ours": "GUI/MiniWoB-v0 (fresh page per episode)", "ours_kept": "GUI/MiniWoB-v0 keep_page=True",
             "reference": "miniwob package (selenium)"}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    envs = {name: gym.make("GUI/MiniWoB-v0", tasks=tasks, steps_per_task=args.steps, observe_a11y=args.a11y,
                           keep_page=name == "ours_kept") for name in ("ours", "ours_kept")}
    try:
        for env in envs.values():
            env.reset(options={"task_id": tasks[0]})  # the browsers start outside the measurement
        for index, task in enumerate(tasks):
            plans = [random_actions(task, seed, args.steps) for seed in range(args.episodes)]
            reference = make_reference_env(task)
            try:
                order = list(sides)[index % 3:] + list(sides)[:index % 3]  # rotate who goes first
                for name in order:
                    for seed, actions in enumerate(plans):
                        runs[name].append(run_reference(reference, seed, actions) if name == "reference"
                                          else run_ours(envs[name], task, seed, actions))
            finally:
                reference.close()
    finally:
        for env in envs.values():
            env.close()

    figures: dict[str, Any] = {name: summary(items) for name, items in runs.items()}
    for name in ("ours", "ours_kept"):
        figures[f"ratio_{name}"] = figures[name]["episodes_per_s"] / figures["reference"]["episodes_per_s"]
    print(f"{len(tasks)} tasks x {args.episodes} episodes, at most {args.steps} random actions each")
    print(f"{'env':<42} {'episodes/s':>10} {'reset ms':>9} {'step ms':>8} {'successes':>10}")
    for name, label in sides.items():
        row = figures[name]
        print(f"{label:<42} {row['episodes_per_s']:>10.2f} {row['reset_ms']:>9.0f} {row['step_ms']:>8.0f}"
              f" {row['successes']:>5}/{row['episodes']}")
    print(f"ratio ours/reference episodes per second: {figures['ratio_ours']:.2f} (fresh page), "
          f"{figures['ratio_ours_kept']:.2f} (keep_page)")
    return figures


if __name__ == "__main__":
    main()
