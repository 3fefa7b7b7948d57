"""``gui-bench perf``: the harness's throughput on 1/2/4 workers and its per-step overhead against a
bare loop (the measurements: `gui_gym.benchmarks.perf.harness`).

    gui-bench perf --env GUI/Demo-v0 --episodes 24
"""

from __future__ import annotations

import argparse

from gui_gym.benchmarks.perf.harness import episode_jobs, overhead, throughput
from gui_gym.errors import HarnessError
from gui_gym.registration import DEFAULT_ENV_ID
from gui_gym.registration import make as make_env

HELP = "measure the harness: oracle episodes per minute on 1/2/4 workers, and per-step overhead vs a bare loop"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", default=DEFAULT_ENV_ID, help=f"env id (default {DEFAULT_ENV_ID})")
    parser.add_argument("--workers", default="1,2,4", help="worker counts to compare (default 1,2,4)")
    parser.add_argument("--episodes", type=int, default=24, help="episodes per throughput measurement (default 24)")
    parser.add_argument("--overhead-episodes", type=int, default=30,
                        help="episodes of each loop for the overhead (default 30)")


def run(args: argparse.Namespace) -> int:
    try:
        counts = [int(w) for w in args.workers.split(",")]
    except ValueError as exc:
        raise HarnessError(f"--workers expects comma-separated counts such as 1,2,4, received {args.workers!r}") from exc
    env = make_env(args.env, {})
    task_ids = env.unwrapped.task_ids
    env.close()
    print(f"gui-bench perf on {args.env} ({len(task_ids)} tasks), oracle agent")
    base = None
    for workers in counts:
        row = throughput(args.env, episode_jobs(task_ids, args.episodes), workers)
        base = base or row["episodes_per_min"]
        print(f"  {workers} worker(s): {row['episodes']} episodes ({row['successes']} solved) in {row['wall_s']:.1f} s"
              f" = {row['episodes_per_min']:.1f} episodes/min, scaling x{row['episodes_per_min'] / base:.2f}", flush=True)
    cost = overhead(args.env, episode_jobs(task_ids, args.overhead_episodes))
    print(f"  overhead over {cost['episodes']} episodes ({cost['steps']} steps each way): bare loop "
          f"{1000 * cost['bare_step_s']:.1f} ms/step, harness {1000 * cost['harness_step_s']:.1f} ms/step "
          f"-> {100 * cost['overhead']:+.1f}% (target <= 5%); the harness's own extra CPU: "
          f"{1000 * cost['extra_cpu_per_step_s']:.1f} ms/step")
    return 0
