"""Snapshot and restore times per suite, against a reset and the steps they stand for.

Per suite, each task's oracle episode runs to its middle step k, then `snapshot()` is timed
and `restore()` of that snapshot into a second env of the same id (another browser, another
server, as on another worker). The baseline, in the same process, is what a restore saves
one from redoing by hand: a reset plus the k steps on the second env (a replay restore does
that work, plus its checks). Sizes are of the snapshot as JSON.

    python -m gui_gym.benchmarks.perf.snapshots [--suites demo,localweb,androidcontrol,mmbench] [--per-app 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from typing import Any

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the ids)

SUITES = {
    "demo": ("GUI/Demo-v0", {}),
    "localweb": ("GUI/LocalWeb-v0", {}),
    "androidcontrol": ("GUI/AndroidControl-v0", {"mode": "low"}),
    "mmbench": ("GUI/MMBench-GUI-L2-v0", {"data_root": "sample"}),
}


def measure(env_id: str, kwargs: dict[str, Any], per_group: int) -> dict[str, dict[str, float]]:
    """Per group of tasks (the app for LocalWeb, else the suite): median times in ms."""
    first, second = gym.make(env_id, **kwargs).unwrapped, gym.make(env_id, **kwargs).unwrapped
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    try:
        tasks = first.task_ids
        first.reset(seed=0, options={"task_id": tasks[0]})  # launch the browsers outside the measurement
        second.reset(seed=0, options={"task_id": tasks[0]})
        taken: dict[str, int] = defaultdict(int)
        for task_id in tasks:
            group = first.suite.describe(task_id).get("app", env_id.split("/")[1])
            if taken[group] >= per_group:
                continue
            taken[group] += 1
            first.reset(seed=0, options={"task_id": task_id, "instance_seed": 1})
            actions, done = [], False
            while not done:
                actions.append(first.oracle_action())
                *_, terminated, truncated, _ = first.step(actions[-1])
                done = terminated or truncated
            k = max(1, len(actions) // 2) if len(actions) > 1 else 0
            first.reset(seed=0, options={"task_id": task_id, "instance_seed": 1})
            for action in actions[:k]:
                first.step(action)
            started = time.perf_counter()
            snapshot = json.loads(json.dumps(first.snapshot()))
            snapshot_s = time.perf_counter() - started
            second.restore(snapshot)  # once untimed, so files and pages are as warm for both timings
            started = time.perf_counter()  # the baseline on the env that restores
            second.reset(seed=0, options={"task_id": task_id, "instance_seed": 1})
            for action in actions[:k]:
                second.step(action)
            baseline_s = time.perf_counter() - started
            started = time.perf_counter()
            second.restore(snapshot)
            restore_s = time.perf_counter() - started
            row = rows[group]
            row["snapshot_ms"].append(snapshot_s * 1000)
            row["restore_ms"].append(restore_s * 1000)
            row["reset_and_steps_ms"].append(baseline_s * 1000)
            row["at_step"].append(k)
            row["kb"].append(len(json.dumps(snapshot)) / 1024)
    finally:
        first.close()
        second.close()
    return {group: {name: statistics.median(values) for name, values in row.items()} for group, row in rows.items()}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--per-app", type=int, default=2, help="tasks measured per app (LocalWeb) or suite")
    args = parser.parse_args(argv)
    table: dict[str, dict[str, float]] = {}
    for name in args.suites.split(","):
        env_id, kwargs = SUITES[name]
        for group, row in measure(env_id, kwargs, args.per_app).items():
            table[f"{name}/{group}" if name == "localweb" else name] = row
    print(f"{'suite':<22} {'step k':>6} {'snapshot ms':>11} {'restore ms':>10} {'reset+k steps ms':>16} "
          f"{'restore/baseline':>16} {'KiB':>6}")
    for name, row in table.items():
        print(f"{name:<22} {row['at_step']:>6.0f} {row['snapshot_ms']:>11.0f} {row['restore_ms']:>10.0f} "
              f"{row['reset_and_steps_ms']:>16.0f} {row['restore_ms'] / row['reset_and_steps_ms']:>16.2f} "
              f"{row['kb']:>6.0f}")
    return table


if __name__ == "__main__":
    main()
