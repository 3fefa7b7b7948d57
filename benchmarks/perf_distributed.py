"""How much Ray costs: LocalWeb oracle episodes (a) on the process pool and (b) on Ray actors,
the same worker counts, and the per-step time of one env in this process against the same env
in an actor, on the same episodes. Ratios against the local baseline measured in the same run.

    python -m benchmarks.perf_distributed --address 127.0.0.1:6379 --workers 1,2 --episodes 8

Without ``--address`` Ray's default applies (``RAY_ADDRESS``, a cluster on this machine, else a
fresh local one, whose head listens on every interface: on a shared host start it inside a
private network namespace).
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchmarks.perf_harness import bare_episode, episode_jobs, throughput
from benchmarks.ray_runner import RayRunner
from benchmarks.runner import Runner
from gui_gym.registration import make as make_env

ENV_ID = "GUI/LocalWeb-v0"


def step_times(env, jobs) -> tuple[float, int]:
    """Seconds per step of the oracle's episodes of `jobs` on `env`, after one unmeasured reset."""
    env.reset(seed=jobs[0].seed, options={"task_id": jobs[0].task_id})  # browser start, not measured
    started, steps = time.perf_counter(), 0
    for job in jobs:
        steps += bare_episode(env, job)
    return (time.perf_counter() - started) / steps, steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="the Ray cluster (default: Ray's default)")
    parser.add_argument("--apps", default="admin", help="LocalWeb apps, comma-separated (default admin)")
    parser.add_argument("--workers", default="1,2,4", help="worker counts (default 1,2,4)")
    parser.add_argument("--episodes", type=int, default=12, help="episodes per throughput measurement (default 12)")
    parser.add_argument("--step-episodes", type=int, default=6, help="episodes of each env for the step time (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the step-time comparison (default 3)")
    args = parser.parse_args(argv)

    import gui_gym.remote

    gui_gym.remote.connect(args.address)
    env_kwargs = {"apps": args.apps.split(",")}
    local = make_env(ENV_ID, env_kwargs)
    remote = gui_gym.remote.make(ENV_ID, **env_kwargs)
    task_ids = local.get_wrapper_attr("task_ids")
    print(f"perf_distributed on {ENV_ID} apps={args.apps} ({len(task_ids)} tasks), oracle agent")
    try:
        jobs = episode_jobs(task_ids, args.step_episodes)
        ratios, local_s, remote_s = [], [], []
        for _ in range(args.rounds):  # alternate, so load drifting on the host hits both alike
            here, steps = step_times(local, jobs)
            there, _ = step_times(remote, jobs)
            local_s.append(here)
            remote_s.append(there)
            ratios.append(there / here)
        print(f"  step time over {args.rounds} x {steps} steps: local {1000 * statistics.median(local_s):.1f} ms, "
              f"remote (actor) {1000 * statistics.median(remote_s):.1f} ms -> remote/local "
              f"{statistics.median(ratios):.3f} (rounds: {', '.join(f'{r:.3f}' for r in ratios)})", flush=True)
    finally:
        local.close()
        remote.close()
    for workers in [int(w) for w in args.workers.split(",")]:
        jobs = episode_jobs(task_ids, args.episodes)
        pool = throughput(ENV_ID, jobs, workers, env_kwargs, Runner)
        ray_row = throughput(ENV_ID, jobs, workers, env_kwargs, RayRunner)
        print(f"  {workers} worker(s), {len(jobs)} episodes: process pool {pool['episodes_per_min']:.1f} ep/min "
              f"({pool['successes']} solved), Ray {ray_row['episodes_per_min']:.1f} ep/min ({ray_row['successes']} "
              f"solved) -> overhead {100 * (pool['episodes_per_min'] / ray_row['episodes_per_min'] - 1):+.1f}%",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
