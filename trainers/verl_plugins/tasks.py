"""The dataset a verl job plays with the ``gui_gym`` agent loop: one row per task instance.

    python -m gui_gym.trainers.verl_plugins.tasks --env GUI/LocalWeb-v0 --env-arg apps='["shop"]' \\
        --instance-seeds 4 --out data/localweb_train.parquet

verl's `RLHFDataset` reads the rows: ``prompt`` (verl requires one; the agent loop builds its
own from the env's instruction and screenshot, so it holds the task id only), ``agent_name``
(``gui_gym``, the loop that plays the row), ``data_source`` (the env id) and ``extra_info``
(``task_id``, ``instance_seed``, ``index``, and with ``--plans`` the instance's expert ``plan``,
`gui_gym.trainers.bepa.task_plan`: BEPA's LEVEL-1 in the ``gui_gym`` trainer acts on it; the
training episodes ignore it). verl repeats each row ``rollout.n`` times under one ``uid``: one
group of the same task instance.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, Sequence

from gui_gym.registration import parse_kwargs
from gui_gym.trainers.verl_plugins.agent_loop import AGENT_LOOP


def task_rows(env_id: str, task_ids: Sequence[str], instance_seeds: Sequence[int],
              plans: Callable[[str, int], Sequence[str] | None] | None = None) -> list[dict[str, Any]]:
    """One row per (task, instance seed), tasks in the given order; `plans(task_id, seed)`, when
    given, is the instance's expert plan (None: no plan, a held-out instance for BEPA)."""
    rows = []
    for task_id in task_ids:
        for seed in instance_seeds:
            extra: dict[str, Any] = {"task_id": task_id, "instance_seed": int(seed), "index": len(rows)}
            plan = plans(task_id, int(seed)) if plans is not None else None
            if plan:
                extra["plan"] = list(plan)
            rows.append({"data_source": env_id, "agent_name": AGENT_LOOP,
                         "prompt": [{"role": "user", "content": task_id}], "extra_info": extra})
    return rows


def env_plans(env_id: str, env_kwargs: dict[str, Any]) -> Callable[[str, int], list[str] | None]:
    """The env's expert plan of each instance (`gui_gym.trainers.bepa.task_plan`), or None
    where the task carries none. The env is made once and stays open for the writer's run;
    LocalWeb builds a plan without a browser."""
    import gymnasium as gym

    import gui_gym  # noqa: F401 - registers the GUI/* envs
    from gui_gym.errors import MissingResourceError
    from gui_gym.trainers.bepa import task_plan

    env = gym.make(env_id, **env_kwargs)

    def plan(task_id: str, seed: int) -> list[str] | None:
        try:
            return task_plan(env, task_id, seed)
        except MissingResourceError:
            return None
    return plan


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
    parser.add_argument("--plans", action="store_true",
                        help="write each instance's expert plan (extra_info.plan) for BEPA's LEVEL-1")
    parser.add_argument("--out", required=True, help="the parquet file to write")
    args = parser.parse_args(argv)
    if args.instance_seeds < 1:
        parser.error(f"--instance-seeds must be >= 1, received {args.instance_seeds}")
    env_kwargs = parse_kwargs(args.env_arg, "--env-arg")
    tasks = args.tasks or env_task_ids(args.env, env_kwargs)
    plans = env_plans(args.env, env_kwargs) if args.plans else None
    path = write_parquet(task_rows(args.env, tasks, range(args.instance_seeds), plans), args.out)
    print(f"{len(tasks) * args.instance_seeds} rows ({len(tasks)} tasks x {args.instance_seeds} seeds) -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
