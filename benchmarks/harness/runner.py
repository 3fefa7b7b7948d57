"""The `gui-bench run` engine: a pool of worker processes, each owning one env, fed from a queue.

What it guarantees, where OSWorld's run_multienv and BrowserGym's experiment loops do not:
- the agent's own time is bounded below the wall-clock limit (`RunConfig.agent_time_limit_s`,
  the env's ``time_limit_s``): an agent that spends it, thinking or waiting (legal waits of up to
  60 s a step add up past the limit), gets its episode truncated and scored, a failure of its
  own; what is left of the limit is for one more step and the scoring;
- an episode that still outlives its wall-clock limit hangs somewhere the agent does not
  control: it is stopped by killing its worker (with the browser and every other process under
  it) and a fresh worker takes its place; a worker that dies mid-episode is replaced the same
  way. Both are recorded as errors, never as task failures, and retried (once by default)
  before the error is final;
- an agent or env exception, or an infrastructure failure the env reports
  (``info["infra_error"]``), is an error too, with the same retry;
- nothing sleeps for a fixed time: the parent waits on its workers' pipes and process
  sentinels, with a timeout set by the nearest deadline;
- workers die with the parent (``PR_SET_PDEATHSIG`` on Linux), so even ``kill -9`` of the run
  leaves no env behind; results already written stay, and ``--resume`` runs the rest;
- each worker's temporary files (a browser profile) go to a folder of its own, removed when the
  worker is gone, however it went (`gui_gym.benchmarks.harness.scratch`).

Episodes are recorded by `TrajectoryRecorder` inside the worker; the parent writes only what a
dead worker could not (its error result). `run_episode` is the loop itself, shared with the
perf benchmark.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from gui_gym.benchmarks.harness.outside_layouts import RunLayouts, write_episode_layouts
from gui_gym.benchmarks.harness.results import TASKS_DIR, Job, ResultsStore, format_duration, short_error
from gui_gym.benchmarks.harness.scratch import Scratch
from gui_gym.errors import HarnessError, InfraError
from gui_gym.runtime.processes import die_with_parent, kill_tree
from gui_gym.records import EpisodeResult

logger = logging.getLogger(__name__)

MAX_STARTUP_FAILURES = 3
POLL_S = 0.5
SCORING_RESERVE_S = 240.0
"""What the wall-clock limit keeps beyond the agent's own time: one more step (a backend call
is bounded by its 120 s ``step_timeout_s``) and the scoring."""


@dataclass
class RunConfig:
    """How to run a job list. `env_kwargs` are final (the agent's action format already in)."""

    env_id: str
    out_dir: Path
    agent: str = "oracle"
    agent_kwargs: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    episode_timeout_s: float = 600.0
    startup_timeout_s: float = 180.0
    retries: int = 1
    ray_address: str | None = None
    """`gui_gym.benchmarks.harness.ray_runner`: the cluster to join (None: Ray's default, ``RAY_ADDRESS`` or
    one on this machine)."""
    worker_cpus: float = 1.0
    """CPUs a Ray worker actor reserves."""
    worker_resources: dict[str, float] = field(default_factory=dict)
    """Custom resources a Ray worker actor asks for (``{"osworld_vm": 1}``)."""
    image_format: str = "webp"
    """How screenshots are stored (`TrajectoryRecorder`): lossless WebP, a third of PNG."""
    layouts: RunLayouts = field(default_factory=RunLayouts)
    """The outside layouts its episodes are written in besides Online-Mind2Web's (OSWorld's,
    AndroidWorld's): `RunLayouts.of_run` of its run.json."""

    @property
    def agent_time_limit_s(self) -> float:
        """The agent's own time in an episode (the env's ``time_limit_s``): the wall-clock limit
        less what one more step and the scoring may take (`SCORING_RESERVE_S`, at most half)."""
        return self.episode_timeout_s - min(SCORING_RESERVE_S, self.episode_timeout_s / 2)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise HarnessError(f"workers must be >= 1, received {self.workers}")
        if self.episode_timeout_s <= 0 or self.startup_timeout_s <= 0:
            raise HarnessError(f"timeouts must be > 0 s, received episode {self.episode_timeout_s}, "
                               f"startup {self.startup_timeout_s}")
        if self.retries < 0:
            raise HarnessError(f"retries must be >= 0, received {self.retries}")
        self.out_dir = Path(self.out_dir)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def run_episode(recorder: Any, agent: Any, job: Job, time_limit_s: float | None = None) -> EpisodeResult:
    """Run one episode of `job` with `agent` on a `TrajectoryRecorder`-wrapped env and return
    its result. Exceptions become error results, classified as agent, env or infra errors.
    `time_limit_s` is the agent's own time (the env's ``time_limit_s``): past it the episode is
    truncated and scored."""
    recorder.result_extra = job.result_fields()
    if time_limit_s is not None:
        recorder.unwrapped.time_limit_s = time_limit_s
    try:
        obs, info = recorder.reset(seed=job.seed, options={"task_id": job.task_id})
    except Exception as exc:
        kind = "infra" if isinstance(exc, InfraError) else "env"
        return recorder.record_error(_error_text(exc), kind, task_id=job.task_id, seed=job.seed)
    try:
        agent.reset({**job.meta, **info, "reset_seed": job.seed})
    except Exception as exc:
        return recorder.record_error(_error_text(exc), "agent")
    while True:
        started = time.perf_counter()
        try:
            action = agent.act(obs, info)
        except Exception as exc:
            return recorder.record_error(_error_text(exc), "agent")
        notes = {"agent_time_s": time.perf_counter() - started}
        for name in ("last_response", "last_thought", "last_prompt"):
            value = getattr(agent, name, None)
            if value is not None:
                notes[name.removeprefix("last_")] = value
        recorder.annotate(**notes)
        try:
            obs, _reward, terminated, truncated, info = recorder.step(action)
        except Exception as exc:
            kind = "infra" if isinstance(exc, InfraError) else "env"
            return recorder.record_error(_error_text(exc), kind)
        if terminated or truncated:
            return recorder.last_result


def make_worker_env(config: RunConfig) -> Any:
    """A worker's env: ``gym.make`` of the run's id and kwargs, without Gymnasium's passive env
    checker unless the kwargs ask for it. After a first ``reset`` that raised (a desktop that did
    not start), that checker fails the next episode's first ``step`` (docs/env_contract.md), so a
    worker would lose a second episode to the first one's fault; the envs pass ``check_env`` in
    their own tests."""
    import gymnasium as gym

    import gui_gym  # noqa: F401 - registers the GUI/* ids

    return gym.make(config.env_id, **{"disable_env_checker": True, **config.env_kwargs})


# ---- worker process ---------------------------------------------------------------------

def _worker_main(conn: Connection, config: RunConfig, scratch: str | None) -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if scratch is not None:  # the browser's profile and every other temporary file go there
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = None
    try:
        from gui_gym.agents import load_agent
        from gui_gym.wrappers.recorder import TrajectoryRecorder

        store = ResultsStore(config.out_dir)
        agent = load_agent(config.agent, **config.agent_kwargs)
        recorder = TrajectoryRecorder(make_worker_env(config), store.root / TASKS_DIR,
                                      image_format=config.image_format)
        if callable(getattr(agent, "bind_env", None)):
            agent.bind_env(recorder)
    except Exception as exc:
        conn.send(("fatal", _error_text(exc)))
        return
    conn.send(("ready", os.getpid()))
    try:
        while True:
            job = conn.recv()
            if job is None:
                break
            result = run_episode(recorder, agent, job, config.agent_time_limit_s)
            write_episode_layouts(store, job, config.layouts)
            conn.send(("result", result))
    except (EOFError, BrokenPipeError):  # the parent is gone
        logger.info("worker %d: the run is gone; closing the env", os.getpid())
    finally:
        for closer in (getattr(agent, "close", None), recorder.close):
            if callable(closer):
                closer()


# ---- parent -----------------------------------------------------------------------------

@dataclass
class _Worker:
    process: Any
    conn: Connection
    spawned: float
    scratch: Path | None
    ready: bool = False
    job: Job | None = None
    job_started: float = 0.0


class Runner:
    """Runs `jobs` under `config`, recording into ``config.out_dir``. `on_result(result)` is
    called for every final result (after retries), `on_tick(running)` on every turn of the
    loop (at least twice a second): a progress bar hooks in there."""

    def __init__(self, config: RunConfig, jobs: list[Job], *, on_result: Callable[[EpisodeResult], None] | None = None,
                 on_tick: Callable[[int], None] | None = None):
        self.config = config
        self.store = ResultsStore(config.out_dir)
        self.pending: collections.deque[Job] = collections.deque(jobs)
        self.results: list[EpisodeResult] = []
        self.retried = 0
        self._on_result = on_result or (lambda result: None)
        self._on_tick = on_tick or (lambda running: None)
        self._context = mp.get_context("spawn")
        self._workers: list[_Worker] = []
        self._startup_failures = 0
        self._spawned = 0

    def run(self) -> list[EpisodeResult]:
        self._scratch = Scratch()
        try:
            while self.pending or any(w.job for w in self._workers):
                self._spawn_needed()
                self._assign()
                self._wait()
                self._on_tick(sum(w.job is not None for w in self._workers))
            self._shutdown()
        finally:
            for worker in list(self._workers):
                self._discard(worker)
            self._scratch.close()
        return self.results

    # ---- loop steps ---------------------------------------------------------------------

    def _spawn_needed(self) -> None:
        busy = sum(w.job is not None for w in self._workers)
        wanted = min(self.config.workers, busy + len(self.pending))
        while len(self._workers) < wanted:
            parent_end, child_end = self._context.Pipe()
            scratch = self._scratch.worker_dir(self._spawned)
            process = self._context.Process(target=_worker_main,
                                            args=(child_end, self.config, str(scratch) if scratch else None),
                                            name=f"gui-bench-worker-{self._spawned}", daemon=True)
            self._spawned += 1
            process.start()
            child_end.close()
            self._workers.append(_Worker(process, parent_end, time.monotonic(), scratch))

    def _assign(self) -> None:
        for worker in self._workers:
            if worker.ready and worker.job is None and self.pending:
                job = self.pending.popleft()
                try:
                    worker.conn.send(job)
                except (BrokenPipeError, OSError) as exc:
                    logger.info("a worker could not take %s (%s); the job waits for another", job.key, exc)
                    self.pending.appendleft(job)  # never started: no attempt used
                    continue
                worker.job, worker.job_started = job, time.monotonic()

    def _wait(self) -> None:
        now = time.monotonic()
        deadlines = [self._deadline(w) for w in self._workers]
        timeout = max(0.0, min([POLL_S, *(d - now for d in deadlines)]))
        handles = [w.conn for w in self._workers] + [w.process.sentinel for w in self._workers]
        wait(handles, timeout)
        for worker in list(self._workers):
            self._service(worker)

    def _deadline(self, worker: _Worker) -> float:
        if worker.job is not None:
            return worker.job_started + self.config.episode_timeout_s
        if not worker.ready:
            return worker.spawned + self.config.startup_timeout_s
        return float("inf")

    def _service(self, worker: _Worker) -> None:
        try:
            while worker.conn.poll():
                self._handle(worker, worker.conn.recv())
        except (EOFError, OSError) as exc:  # the pipe closed: the process is dead or dying; its sentinel tells
            logger.debug("a worker's pipe closed: %s", exc)
        if worker.process.exitcode is not None or worker.conn.closed:
            self._lost(worker, f"worker process died (exit code {worker.process.exitcode})", "crash")
        elif time.monotonic() >= self._deadline(worker):
            if worker.job is not None:
                error = f"episode exceeded its {self.config.episode_timeout_s:g} s wall-clock limit; the worker was killed"
            else:
                error = f"worker not ready after {self.config.startup_timeout_s:g} s"
            self._lost(worker, error, "timeout")

    def _handle(self, worker: _Worker, message: tuple) -> None:
        kind = message[0]
        if kind == "ready":
            worker.ready = True
            self._startup_failures = 0
        elif kind == "fatal":
            raise HarnessError(f"a worker could not build the env or the agent: {message[1]}")
        elif kind == "result" and worker.job is not None:
            job, worker.job = worker.job, None
            self._finish(job, message[1])

    def _lost(self, worker: _Worker, error: str, kind: str) -> None:
        """A worker died or overran: kill what is left of it, record its episode."""
        logger.warning("%s%s; a fresh worker takes its place", error,
                       f" during {worker.job.key}" if worker.job is not None else "")
        self._discard(worker)
        if worker.job is not None:
            wall_s = time.monotonic() - worker.job_started
            result = self.store.write_error_result(worker.job, error, kind, wall_s)
            write_episode_layouts(self.store, worker.job, self.config.layouts)
            self._finish(worker.job, result)
        elif not worker.ready:
            self._startup_failures += 1
            if self._startup_failures >= MAX_STARTUP_FAILURES:
                raise HarnessError(f"{self._startup_failures} workers in a row failed to start ({error})")

    def _finish(self, job: Job, result: EpisodeResult) -> None:
        if result.outcome == "error" and job.may_retry(self.config.retries):
            self.retried += 1
            self.pending.append(job.retry(str(result.error)))
            return
        self.results.append(result)
        self._on_result(result)

    def _discard(self, worker: _Worker) -> None:
        if worker.process.exitcode is None:
            kill_tree(worker.process.pid)
        worker.process.join(timeout=10)
        worker.conn.close()
        Scratch.remove(worker.scratch)
        if worker in self._workers:
            self._workers.remove(worker)

    def _shutdown(self) -> None:
        for worker in self._workers:
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError) as exc:  # already gone: _discard below makes sure
                logger.debug("a worker could not be told to stop: %s", exc)
        for worker in list(self._workers):
            worker.process.join(timeout=30)  # env.close() in the worker stops its browser
            self._discard(worker)


class Progress:
    """A one-line live progress bar on a terminal (episodes done, success so far, errors,
    throughput, ETA); one line per finished episode when the stream is not a terminal."""

    def __init__(self, total: int, *, previous: Sequence[EpisodeResult] = (), stream: TextIO | None = None,
                 width: int = 24, interval_s: float = 0.25):
        self.total, self.width, self.interval_s = total, width, interval_s
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.counts = collections.Counter(r.outcome for r in previous)
        self.previous = len(previous)
        self.running = 0
        self._started = time.monotonic()
        self._drawn = 0.0

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def record(self, result: EpisodeResult) -> None:
        self.counts[result.outcome] += 1
        if self.live:
            self._draw(force=True)
        else:
            mark = {"success": "ok", "failure": "FAIL", "error": "ERROR"}[result.outcome]
            print(f"[{self.done}/{self.total}] {mark} {result.key or result.task_id}"
                  f"{' (' + short_error(result.error) + ')' if result.error else ''}  {self.line()}",
                  file=self.stream, flush=True)

    def tick(self, running: int) -> None:
        self.running = running
        if self.live:
            self._draw()

    def line(self) -> str:
        done, scored = self.done, self.counts["success"] + self.counts["failure"]
        rate = f"{100 * self.counts['success'] / scored:.0f}%" if scored else "-"
        elapsed = time.monotonic() - self._started
        finished_now = done - self.previous
        per_min = finished_now / elapsed * 60 if elapsed > 0 and finished_now else 0.0
        eta = format_duration((self.total - done) / finished_now * elapsed) if finished_now else "--"
        return (f"success {self.counts['success']}/{scored} ({rate})  errors {self.counts['error']}  "
                f"running {self.running}  {per_min:.1f} ep/min  ETA {eta}")

    def close(self) -> None:
        if self.live:
            self._draw(force=True)
            print(file=self.stream, flush=True)

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._drawn < self.interval_s:
            return
        self._drawn = now
        filled = int(self.width * self.done / self.total) if self.total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r\x1b[2K[{bar}] {self.done}/{self.total}  {self.line()}")
        self.stream.flush()
