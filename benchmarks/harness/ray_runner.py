"""`gui-bench run --ray`: the same engine as `gui_gym.benchmarks.harness.runner.Runner`, with its workers as Ray
actors that Ray places on any node of the cluster (no scheduler of ours: an actor asks for
``worker_cpus`` and ``worker_resources`` and Ray finds it a node).

Each actor owns one env and one agent and runs `run_episode` on a job, recording into a
scratch folder on its own node; it sends the episode's files back with the result, and the
driver, which keeps the one results store, moves them in place (a folder written aside, then
renamed: a killed driver leaves an episode whole or absent). So the layout, ``--resume`` and
``--rerun-errors`` are the local runner's, and so is the bookkeeping of errors and retries
(`Runner._finish`): an actor that dies (its process, its node) or overruns the episode's
wall-clock limit is killed and replaced, and its episode is an error result, retried on
another actor, never lost and never recorded twice. Actors die with the driver (Ray ends a
driver's actors with it), so ``kill -9`` of the run leaves nothing behind either.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.outside_layouts import RunLayouts, write_episode_layouts
from gui_gym.benchmarks.harness.results import TASKS_DIR, Job, ResultsStore
from gui_gym.benchmarks.harness.runner import MAX_STARTUP_FAILURES, POLL_S, Runner, make_worker_env, run_episode
from gui_gym.errors import HarnessError
from gui_gym.extras import require_extra
from gui_gym.records import EpisodeResult, atomic_write
from gui_gym.remote.env import init_failure

logger = logging.getLogger(__name__)

EpisodeFiles = dict[str, bytes]
"""An episode's files, by path relative to the results folder (``tasks/<key>/traj.jsonl``, ...)."""


class EpisodeWorker:
    """The body of one worker actor: an env and an agent built as the local worker builds them,
    recording into a scratch results folder on this node."""

    def __init__(self, config: Any):
        from gui_gym.agents import load_agent
        from gui_gym.wrappers.recorder import TrajectoryRecorder

        self._store = ResultsStore(tempfile.mkdtemp(prefix="gui-bench-ray-"))
        self._time_limit_s = config.agent_time_limit_s
        self._agent = load_agent(config.agent, **config.agent_kwargs)
        self._recorder = TrajectoryRecorder(make_worker_env(config), self._store.root / TASKS_DIR,
                                            image_format=config.image_format)
        if callable(getattr(self._agent, "bind_env", None)):
            self._agent.bind_env(self._recorder)

    def where(self) -> dict[str, Any]:
        import ray

        return {"pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id()}

    def run(self, job: Job) -> tuple[EpisodeResult, EpisodeFiles]:
        result = run_episode(self._recorder, self._agent, job, self._time_limit_s)
        folder = self._store.task_dir(job.key)  # the driver writes the outside layouts from it
        files = {str(path.relative_to(self._store.root)): path.read_bytes()
                 for path in sorted(folder.rglob("*")) if path.is_file()}
        shutil.rmtree(folder, ignore_errors=True)
        return result, files

    def close(self) -> None:
        for closer in (getattr(self._agent, "close", None), self._recorder.close):
            if callable(closer):
                closer()
        shutil.rmtree(self._store.root, ignore_errors=True)


def place_episode(store: ResultsStore, job: Job, files: EpisodeFiles, layouts: RunLayouts = RunLayouts()) -> None:
    """Put an episode's task folder under `store`, written aside and renamed over the previous
    attempt's, so result.json never appears without the rest; then its outside layouts
    (`write_episode_layouts`), whose screenshots are hard links to the task folder's, as a
    local run's."""
    final = store.task_dir(job.key)
    incoming = final.with_name(f".{job.key}.incoming")
    shutil.rmtree(incoming, ignore_errors=True)
    for name, data in files.items():
        atomic_write(incoming / Path(name).relative_to(Path(TASKS_DIR) / job.key), data)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(incoming, final)
    write_episode_layouts(store, job, layouts)


@dataclass
class _Actor:
    handle: Any
    ready_ref: Any
    spawned: float
    ready: bool = False
    job: Job | None = None
    job_ref: Any = None
    job_started: float = 0.0


class RayRunner(Runner):
    """`Runner` over Ray actors: the same constructor, callbacks and results; ``config``'s
    ``ray_address``, ``worker_cpus`` and ``worker_resources`` say where and with what."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        require_extra("distributed", "gui-bench run --ray")
        import ray

        from gui_gym.remote import connect

        self._ray = ray
        connect(self.config.ray_address)
        self._actor_class = ray.remote(EpisodeWorker).options(
            num_cpus=self.config.worker_cpus, resources=dict(self.config.worker_resources) or None,
            max_restarts=0, max_task_retries=0)
        self._actors: list[_Actor] = []
        self.nodes_used: set[str] = set()
        """The Ray node ids the worker actors ran on."""

    def run(self) -> list[EpisodeResult]:
        try:
            while self.pending or any(a.job for a in self._actors):
                self._spawn_actors()
                self._assign_jobs()
                self._wait_for_actors()
                self._on_tick(sum(a.job is not None for a in self._actors))
        except BaseException:
            for actor in list(self._actors):
                self._end(actor)
            raise
        for actor in list(self._actors):
            self._end(actor, close=True)
        return self.results

    def _spawn_actors(self) -> None:
        busy = sum(a.job is not None for a in self._actors)
        while len(self._actors) < min(self.config.workers, busy + len(self.pending)):
            handle = self._actor_class.remote(self.config)
            self._actors.append(_Actor(handle, handle.where.remote(), time.monotonic()))

    def _assign_jobs(self) -> None:
        for actor in self._actors:
            if actor.ready and actor.job is None and self.pending:
                actor.job = self.pending.popleft()
                actor.job_ref, actor.job_started = actor.handle.run.remote(actor.job), time.monotonic()

    def _wait_for_actors(self) -> None:
        waiting = {(a.job_ref if a.job is not None else a.ready_ref): a for a in self._actors
                   if a.job is not None or not a.ready}
        now = time.monotonic()
        timeout = max(0.0, min([POLL_S, *(self._actor_deadline(a) - now for a in waiting.values())]))
        done, _ = self._ray.wait(list(waiting), num_returns=1, timeout=timeout) if waiting else ([], [])
        for ref in done:
            self._collect(waiting[ref], ref)
        for actor in list(self._actors):
            if actor in self._actors and time.monotonic() >= self._actor_deadline(actor):
                if actor.job is not None:
                    self._actor_lost(actor, f"episode exceeded its {self.config.episode_timeout_s:g} s wall-clock "
                                            "limit; the worker actor was killed", "timeout")
                else:
                    self._actor_lost(actor, f"worker actor not ready after {self.config.startup_timeout_s:g} s",
                                     "timeout")

    def _actor_deadline(self, actor: _Actor) -> float:
        if actor.job is not None:
            return actor.job_started + self.config.episode_timeout_s
        if not actor.ready:
            return actor.spawned + self.config.startup_timeout_s
        return float("inf")

    def _collect(self, actor: _Actor, ref: Any) -> None:
        ray = self._ray
        try:
            value = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError) as exc:
            if getattr(exc, "actor_init_failed", False):
                raise HarnessError(f"a worker could not build the env or the agent: {init_failure(exc)} (the "
                                   "whole traceback is in the Ray worker's log)") from None
            self._actor_lost(actor, f"worker actor died ({type(exc).__name__}: {str(exc).splitlines()[0]})", "crash")
            return
        if actor.job is None:  # its where(): the env and agent are built
            actor.ready = True
            self._startup_failures = 0
            self.nodes_used.add(value["node_id"])
            logger.info("a worker actor is ready on node %s (pid %s)", value["node_id"], value["pid"])
            return
        job, actor.job, actor.job_ref = actor.job, None, None
        result, files = value
        place_episode(self.store, job, files, self.config.layouts)
        self._finish(job, result)

    def _actor_lost(self, actor: _Actor, error: str, kind: str) -> None:
        """An actor died or overran: kill it, record its episode (retried by `_finish`)."""
        logger.warning("%s%s; a fresh worker actor takes its place", error,
                       f" during {actor.job.key}" if actor.job is not None else "")
        self._end(actor)
        if actor.job is not None:
            result = self.store.write_error_result(actor.job, error, kind, time.monotonic() - actor.job_started)
            write_episode_layouts(self.store, actor.job, self.config.layouts)
            self._finish(actor.job, result)
        elif not actor.ready:
            self._startup_failures += 1
            if self._startup_failures >= MAX_STARTUP_FAILURES:
                raise HarnessError(f"{self._startup_failures} worker actors in a row failed to start ({error}); "
                                   "does the env or the agent fail to build, or does no node offer "
                                   f"num_cpus={self.config.worker_cpus:g} and {self.config.worker_resources}?")

    def _end(self, actor: _Actor, close: bool = False) -> None:
        if close:
            try:
                self._ray.get(actor.handle.close.remote(), timeout=30)  # stops its browser
            except Exception as exc:  # already gone: the kill below makes sure
                logger.debug("a worker actor could not close its env: %s", exc)
        self._ray.kill(actor.handle, no_restart=True)
        if actor in self._actors:
            self._actors.remove(actor)
