"""What the harness costs, and how it scales (`gui-bench perf` runs it: `commands/perf.py`).

1. Throughput: the oracle runs the same episodes through the real runner with 1, 2 and 4
   workers (worker start and browser launch included); episodes per minute, and the scaling
   ratio against one worker. Workers are processes, so the ratio is bounded by the machine's
   cores, not by the harness.
2. Overhead: in one process, the same episodes run by (a) a bare loop (reset, then
   ``oracle_action`` and ``step`` until the end) and (b) the harness's own episode loop
   (`run_episode`: the agent protocol plus `TrajectoryRecorder` writing traj.jsonl, PNG
   screenshots and result.json). Episodes alternate a and b so machine noise hits both alike;
   the overhead is b's time per step over a's, minus one. Target: <= 5 %. The extra CPU time
   this process spends per step in b (all its threads) is printed too: on a busy machine it
   is the steadier figure.

    gui-bench perf --env GUI/Demo-v0 --episodes 24
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import Job
from gui_gym.benchmarks.harness.runner import RunConfig, Runner, run_episode
from gui_gym.errors import HarnessError
from gui_gym.registration import make as make_env


def episode_jobs(task_ids: list[str], count: int) -> list[Job]:
    """`count` jobs cycling over `task_ids`, each cycle with the next seed."""
    if not task_ids:
        raise HarnessError("the env has no tasks to measure")
    return [Job(task_id, n // len(task_ids)) for n, task_id in zip(range(count), itertools.cycle(task_ids))]


def throughput(env_id: str, jobs: list[Job], workers: int, env_kwargs: dict[str, Any] | None = None,
               engine: type[Runner] = Runner) -> dict[str, Any]:
    """Run `jobs` with the oracle on `workers` workers of `engine` (the process pool, or
    `gui_gym.benchmarks.harness.ray_runner.RayRunner`); wall time and episodes per minute (and, for Ray, how
    many nodes its workers ran on)."""
    with tempfile.TemporaryDirectory(prefix="gui-bench-perf-") as out:
        config = RunConfig(env_id, Path(out), agent="oracle", env_kwargs=dict(env_kwargs or {}), workers=workers)
        started = time.perf_counter()
        runner = engine(config, list(jobs))
        results = runner.run()
        wall_s = time.perf_counter() - started
    successes = sum(r.success for r in results)
    return {"workers": workers, "episodes": len(results), "successes": successes, "wall_s": wall_s,
            "episodes_per_min": 60 * len(results) / wall_s, "nodes": len(getattr(runner, "nodes_used", ()))}


def overhead(env_id: str, jobs: list[Job], env_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Per-step time of a bare oracle loop and of the harness loop on the same episodes."""
    from gui_gym.agents.oracle import OracleAgent
    from gui_gym.wrappers.recorder import TrajectoryRecorder

    env = make_env(env_id, dict(env_kwargs or {}))
    with tempfile.TemporaryDirectory(prefix="gui-bench-perf-") as out:
        recorder = TrajectoryRecorder(env, out)
        agent = OracleAgent()
        agent.bind_env(recorder)
        times: dict[str, list[float]] = {"bare": [], "harness": []}
        cpu: dict[str, float] = {"bare": 0.0, "harness": 0.0}
        steps: dict[str, int] = {"bare": 0, "harness": 0}
        try:
            env.reset(seed=jobs[0].seed, options={"task_id": jobs[0].task_id})  # browser start, not measured
            for job in jobs:
                started, cpu_started = time.perf_counter(), time.process_time()
                steps["bare"] += bare_episode(env, job)
                times["bare"].append(time.perf_counter() - started)
                cpu["bare"] += time.process_time() - cpu_started
                started, cpu_started = time.perf_counter(), time.process_time()
                result = run_episode(recorder, agent, job)
                times["harness"].append(time.perf_counter() - started)
                cpu["harness"] += time.process_time() - cpu_started
                if result.error:
                    raise HarnessError(f"perf: the harness episode {job.key} failed: {result.error}")
                steps["harness"] += result.steps
        finally:
            recorder.close()
    per_step = {k: sum(times[k]) / max(1, steps[k]) for k in times}
    return {"episodes": len(jobs), "steps": steps["bare"], "bare_step_s": per_step["bare"],
            "harness_step_s": per_step["harness"], "overhead": per_step["harness"] / per_step["bare"] - 1,
            "extra_cpu_per_step_s": (cpu["harness"] - cpu["bare"]) / max(1, steps["bare"]),
            "bare_episode_median_s": statistics.median(times["bare"]),
            "harness_episode_median_s": statistics.median(times["harness"])}


def bare_episode(env: Any, job: Job) -> int:
    """The oracle's episode of `job` on `env` (local or remote) with nothing around it; its steps."""
    env.reset(seed=job.seed, options={"task_id": job.task_id})
    oracle = env.get_wrapper_attr("oracle_action")
    for count in itertools.count(1):
        _, _, terminated, truncated, _ = env.step(oracle())
        if terminated or truncated:
            return count
    raise AssertionError("unreachable")
