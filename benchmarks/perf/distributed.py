"""How much Ray costs, and how it scales: LocalWeb oracle episodes (a) on the process pool and
(b) on Ray actors, the same worker counts; the scaling of each over its first worker count;
the per-step time of one env in this process against the same env in an actor, on the same
episodes; and, on a two-node cluster, Ray at the largest worker count against the one-node
figure. Every ratio is against a baseline measured in the same run.

    python -m gui_gym.benchmarks.perf.distributed --local-cluster --workers 1,2,4 --episodes 8
    python -m gui_gym.benchmarks.perf.distributed --address 10.0.0.1:6379 --workers 4,8,16

``--local-cluster`` starts its own clusters on this machine, loopback only, inside a private
network namespace (`gui_gym.benchmarks.harness.local_cluster`): first one node with as many CPUs as the most
workers asked for, then a head and a second node with half of them each. With ``--address``
(or neither: Ray's default, ``RAY_ADDRESS`` or a cluster on this machine) it measures the
cluster it is given, as it is.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from gui_gym.benchmarks.perf.harness import bare_episode, episode_jobs, throughput
from gui_gym.benchmarks.harness.ray_runner import RayRunner
from gui_gym.benchmarks.harness.runner import Runner
from gui_gym.errors import MissingResourceError
from gui_gym.registration import make as make_env

ENV_ID = "GUI/LocalWeb-v0"


def step_times(env, jobs) -> tuple[float, int]:
    """Seconds per step of the oracle's episodes of `jobs` on `env`, after one unmeasured reset."""
    env.reset(seed=jobs[0].seed, options={"task_id": jobs[0].task_id})  # browser start, not measured
    started, steps = time.perf_counter(), 0
    for job in jobs:
        steps += bare_episode(env, job)
    return (time.perf_counter() - started) / steps, steps


def describe_cluster() -> str:
    import ray

    cpus = [f"{node['Resources'].get('CPU', 0):g}" for node in ray.nodes() if node["Alive"]]
    return f"{len(cpus)} node(s), CPUs {'+'.join(cpus)}"


def compare_steps(env_kwargs: dict[str, Any], task_ids: list[str], episodes: int, rounds: int) -> None:
    """The step time of a local env and of a remote one, in alternating rounds (so load drifting
    on the host hits both alike)."""
    import gui_gym.remote

    local = make_env(ENV_ID, env_kwargs)
    remote = gui_gym.remote.make(ENV_ID, **env_kwargs)
    try:
        jobs = episode_jobs(task_ids, episodes)
        ratios, local_s, remote_s = [], [], []
        for _ in range(rounds):
            here, steps = step_times(local, jobs)
            there, _ = step_times(remote, jobs)
            local_s.append(here)
            remote_s.append(there)
            ratios.append(there / here)
        print(f"  step time over {rounds} x {steps} steps: local {1000 * statistics.median(local_s):.1f} ms, "
              f"remote (actor) {1000 * statistics.median(remote_s):.1f} ms -> remote/local "
              f"{statistics.median(ratios):.3f} (rounds: {', '.join(f'{r:.3f}' for r in ratios)})", flush=True)
    finally:
        local.close()
        remote.close()


def compare_engines(env_kwargs: dict[str, Any], task_ids: list[str], workers: list[int],
                    episodes: int) -> dict[int, dict[str, Any]]:
    """Per worker count: the process pool and Ray on the same episodes, Ray's overhead (its
    time per episode over the pool's, minus one) and each engine's scaling over the first
    count. Returns Ray's rows."""
    rows: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    jobs = episode_jobs(task_ids, episodes)
    for count in workers:
        rows[count] = (throughput(ENV_ID, jobs, count, env_kwargs, Runner),
                       throughput(ENV_ID, jobs, count, env_kwargs, RayRunner))
        pool, ray_row = rows[count]
        base_pool, base_ray = rows[workers[0]]
        print(f"  {count} worker(s), {len(jobs)} episodes: process pool {pool['episodes_per_min']:.1f} ep/min "
              f"({pool['successes']} solved, x{pool['episodes_per_min'] / base_pool['episodes_per_min']:.2f} over "
              f"{workers[0]}), Ray {ray_row['episodes_per_min']:.1f} ep/min ({ray_row['successes']} solved, "
              f"x{ray_row['episodes_per_min'] / base_ray['episodes_per_min']:.2f} over {workers[0]}, on "
              f"{ray_row['nodes']} node(s)) -> Ray overhead "
              f"{100 * (pool['episodes_per_min'] / ray_row['episodes_per_min'] - 1):+.1f}%", flush=True)
    return {count: ray_row for count, (_, ray_row) in rows.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--address", help="the Ray cluster (default: Ray's default)")
    where.add_argument("--local-cluster", action="store_true",
                       help="start a one-node, then a two-node loopback cluster on this machine")
    parser.add_argument("--apps", default="admin", help="LocalWeb apps, comma-separated (default admin)")
    parser.add_argument("--workers", default="1,2,4", help="worker counts (default 1,2,4)")
    parser.add_argument("--episodes", type=int, default=12, help="episodes per throughput measurement (default 12)")
    parser.add_argument("--step-episodes", type=int, default=6, help="episodes of each env for the step time (default 6)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds of the step-time comparison (default 3; 0 skips it)")
    args = parser.parse_args(argv)
    import ray

    import gui_gym.remote
    from gui_gym.benchmarks.harness.local_cluster import enter_private_network, start_cluster

    workers = [int(w) for w in args.workers.split(",")]
    env_kwargs = {"apps": args.apps.split(",")}
    probe = make_env(ENV_ID, env_kwargs)  # no browser before a reset
    task_ids = probe.get_wrapper_attr("task_ids")
    probe.close()
    print(f"perf_distributed on {ENV_ID} apps={args.apps} ({len(task_ids)} tasks), oracle agent", flush=True)
    cluster = None
    if args.local_cluster:
        reason = enter_private_network()
        if reason is not None:
            raise MissingResourceError(f"--local-cluster needs a private network namespace: {reason}; start a "
                                       "cluster yourself and pass --address")
        cluster = start_cluster(head_cpus=max(workers), node2_cpus=None)
    else:
        gui_gym.remote.connect(args.address)
    try:
        print(f" cluster: {describe_cluster()}", flush=True)
        if args.rounds:
            compare_steps(env_kwargs, task_ids, args.step_episodes, args.rounds)
        one_node = compare_engines(env_kwargs, task_ids, workers, args.episodes)
    finally:
        if cluster is not None:
            ray.shutdown()
            cluster.stop()
    if not args.local_cluster:
        return 0
    most = max(workers)
    cluster = start_cluster(head_cpus=max(1, most - most // 2), node2_cpus=max(1, most // 2))
    try:
        print(f" cluster: {describe_cluster()}", flush=True)
        two = throughput(ENV_ID, episode_jobs(task_ids, args.episodes), most, env_kwargs, RayRunner)
        print(f"  {most} worker(s), {two['episodes']} episodes: Ray {two['episodes_per_min']:.1f} ep/min "
              f"({two['successes']} solved, on {two['nodes']} node(s)) -> two nodes / one node "
              f"x{two['episodes_per_min'] / one_node[most]['episodes_per_min']:.2f}", flush=True)
    finally:
        ray.shutdown()
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
