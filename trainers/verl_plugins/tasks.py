"""The dataset a verl job plays with the ``gui_gym`` agent loop: one row per task instance.

    python -m gui_gym.trainers.verl_plugins.tasks --env GUI/LocalWeb-v0 --env-arg apps='["shop"]' \\
        --instance-seeds 4 --out data/localweb_train.parquet

verl's `RLHFDataset` reads the rows: ``prompt`` (verl requires one; the agent loop builds its
own from the env's instruction and screenshot, so it holds the task id only), ``agent_name``
(``gui_gym``, the loop that plays the row), ``data_source`` (the env id) and ``extra_info``
(``task_id``, ``instance_seed``, ``index``). verl repeats each row ``rollout.n`` times under one
``uid``: one group of the same task instance.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Sequence

from gui_gym.registration import parse_kwargs
from gui_gym.trainers.verl_plugins.agent_loop import AGENT_LOOP


def task_rows(env_id: str, task_ids: Sequence[str], instance_seeds: Sequence[int]) -> list[dict[str, Any]]:
    """One row per (task, instance seed), tasks in the given order."""
    rows = []
    for task_id in task_ids:
        for seed in instance_seeds:
            rows.append({"data_source": env_id, "agent_name": AGENT_LOOP,
                         "prompt": [{"role": "user", "content": task_id}],
                         "extra_info": {"task_id": task_id, "instance_seed": int(seed), "index": len(rows)}})
    return rows


def env_task_ids(env_id: str, env_kwargs: dict[str, Any]) -> list[str]:
    """The tasks the env draws from, as it says (``get_wrapper_attr("task_ids")``)."""
    import gymnasium as gym

    import gui_gym  # noqa: F401 - registers the GUI/* envs

    env = gym.make(env_id, **env_kwargs)
    try:
        return list(env.get_wrapper_attr("task_ids"))
    finally:
        env.close()


def write_parquet(rows: list[dict[str, Any]], path: str | Path) -> Path:
    import pandas as pd

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui_gym.trainers.verl_plugins.tasks",
                                     description="Write the task-instance rows a verl job plays with the gui_gym agent loop.")
    parser.add_argument("--env", default="GUI/LocalWeb-v0", help="the env id (the config's gui_gym.env_id)")
    parser.add_argument("--env-arg", action="append", metavar="K=V", help="gym.make keyword argument, repeatable")
    parser.add_argument("--tasks", nargs="*", help="task ids (default: every task the env offers)")
    parser.add_argument("--instance-seeds", type=int, default=1, help="instances per task: seeds 0..N-1")
    parser.add_argument("--out", required=True, help="the parquet file to write")
    args = parser.parse_args(argv)
    if args.instance_seeds < 1:
        parser.error(f"--instance-seeds must be >= 1, received {args.instance_seeds}")
    tasks = args.tasks or env_task_ids(args.env, parse_kwargs(args.env_arg, "--env-arg"))
    path = write_parquet(task_rows(args.env, tasks, range(args.instance_seeds)), args.out)
    print(f"{len(tasks) * args.instance_seeds} rows ({len(tasks)} tasks x {args.instance_seeds} seeds) -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
