"""The OSWorld suite: OSWorld task files as gui-gym `Task`s on a `DesktopBackend`.

A task's `setup` first checks that this install meets its needs (setup step types, getters,
metrics; the network for tasks that open web pages) and fails with one message naming what
is missing, then gives the desktop the network if the task needs it, runs the task's
``config`` steps and waits until the apps they launched are ready and the screen is still
(instead of OSWorld's 60 s sleep, which also bounds the wait). `evaluate` first waits until
nothing the agent started is at work (instead of OSWorld's 20 s sleep, which bounds it), then
runs OSWorld's evaluation (`evaluator.evaluate`). The bundled sample's tasks have oracle
solutions (`oracles.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.errors import MissingResourceError
from gui_gym.suites.base import Episode, Task, TaskSuite
from gui_gym.suites.osworld import oracles
from gui_gym.suites.osworld.context import DEFAULT_CACHE_DIR, EpisodeContext, EvaluationLimits, FileCache
from gui_gym.suites.osworld.coverage import evaluable, local_blocker, needs, unmet
from gui_gym.suites.osworld.evaluator import Evaluation, evaluate
from gui_gym.suites.osworld.loader import OSWorldTaskSpec, load_tasks
from gui_gym.suites.osworld.setup import SetupRunner

DEFAULT_MAX_STEPS = 15
"""OSWorld's runner default."""
READY_TIMEOUT_S = 60.0
"""Bound on the wait for the task's apps after its setup: OSWorld's harness sleeps this long."""
SETTLE_BEFORE_EVALUATION_S = 20.0
"""Bound on the wait for the agent's work before the evaluation: OSWorld's harness sleeps this
long ("wait for the environment to settle")."""


class OSWorldTask(Task):
    """One OSWorld task file, for one episode."""

    def __init__(self, suite: OSWorldSuite, spec: OSWorldTaskSpec):
        self.suite, self.spec = suite, spec
        self.task_id, self.instruction, self.domain = spec.id, spec.instruction, spec.domain
        self.max_steps = suite.max_steps
        self.metadata = {"snapshot": spec.snapshot, "related_apps": list(spec.related_apps), "source": spec.source,
                         "infeasible": spec.evaluator.infeasible, "path": str(spec.path)}
        self.ctx: EpisodeContext | None = None
        self.last_evaluation: Evaluation | None = None

    @property
    def has_oracle(self) -> bool:
        return oracles.has_oracle(self.task_id)

    def setup(self, backend: Backend) -> None:
        gaps = unmet(self.spec)
        if not self.suite.metric_fallback:
            blocking = {k: v for k, v in gaps.items() if v and k != "network"}
        else:
            blocking = {k: v for k, v in gaps.items() if v and k not in ("network", "metrics")}
        if blocking:
            raise MissingResourceError(f"task {self.task_id} ({self.domain}) needs what this install lacks: "
                                       + "; ".join(f"{k}: {', '.join(v)}" for k, v in blocking.items()))
        if needs(self.spec).web:
            backend.require_network()
        self.ctx = EpisodeContext(backend, self.spec, self.suite.cache, client_password=self.suite.client_password,
                                  limits=self.suite.evaluation_limits)
        SetupRunner(self.ctx).run(self.spec.config)
        backend.wait_until_ready(READY_TIMEOUT_S)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        if self.ctx is None:
            raise RuntimeError(f"task {self.task_id}: evaluate() before setup()")
        backend.wait_until_idle(SETTLE_BEFORE_EVALUATION_S)
        self.last_evaluation = evaluate(self.ctx, self.spec.evaluator, episode.last_action,
                                        fallback=self.suite.metric_fallback)
        return self.last_evaluation.score

    def evaluation_details(self) -> dict[str, Any]:
        """Each metric that ran, with its score and what its result getter read;
        ``evaluator_warnings``: why the agent's content was not scored (a bound it went past);
        ``stopped_processes``: what the agent left running that the evaluation stopped."""
        if self.last_evaluation is None:
            return {}
        details: dict[str, Any] = {"metrics": self.last_evaluation.details}
        if self.last_evaluation.warnings:
            details["evaluator_warnings"] = list(self.last_evaluation.warnings)
        if self.last_evaluation.stopped:
            details["stopped_processes"] = list(self.last_evaluation.stopped)
        return details

    def oracle(self, backend: Backend) -> Iterator[Action]:
        return oracles.solve(self.task_id, backend)

    def teardown(self, backend: Backend) -> None:
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None


class OSWorldSuite(TaskSuite):
    """OSWorld tasks from the bundled sample or an OSWorld data folder.

    Args:
        tasks: "sample", or a folder holding OSWorld's ``examples/`` and index files.
        index: index file (``test_all.json`` by default when present, e.g. ``test_nogdrive.json``).
        domains: keep only these domains.
        cache_dir: OSWorld file cache (OSWorld's ``cache/`` layout); default
            ``~/.cache/gui-gym/osworld`` or ``$GUI_GYM_OSWORLD_CACHE``.
        allow_download: fetch files missing from the cache (else fail naming the URL).
        metric_fallback: use an installed ``desktop-env`` package for metrics gui-gym lacks.
        max_steps: the step limit of every task.
        client_password: what ``{CLIENT_PASSWORD}`` in setup commands becomes.
        evaluation_limits: bounds on the evaluator's work on the agent's files (sizes copied
            out, memory and time of each metric); past one a task scores 0 with a warning.
    """

    name = "osworld"

    def __init__(self, tasks: str | Path = "sample", index: str | None = None, domains: Sequence[str] | None = None,
                 cache_dir: str | Path | None = None, allow_download: bool = True, metric_fallback: bool = False,
                 max_steps: int = DEFAULT_MAX_STEPS, client_password: str = "password",
                 evaluation_limits: EvaluationLimits | None = None):
        self.specs = {spec.id: spec for spec in load_tasks(tasks, index=index, domains=domains)}
        self.cache = FileCache(Path(cache_dir).expanduser() if cache_dir else DEFAULT_CACHE_DIR, allow_download)
        self.metric_fallback = metric_fallback
        self.max_steps = max_steps
        self.client_password = client_password
        self.evaluation_limits = evaluation_limits or EvaluationLimits()

    @property
    def task_ids(self) -> list[str]:
        return list(self.specs)

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        return OSWorldTask(self, self.specs[task_id])

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        spec = self.specs[task_id]
        gaps = unmet(spec, self.cache, network=self.cache.allow_download)
        return {"task_id": task_id, "domain": spec.domain, "instruction": spec.instruction,
                "snapshot": spec.snapshot, "related_apps": list(spec.related_apps),
                "infeasible": spec.evaluator.infeasible, "unmet": gaps,
                "runnable": not (gaps["setup"] or gaps["getters"] or gaps["metrics"]),
                "evaluable": evaluable(spec), "local_blocker": local_blocker(spec),
                "has_oracle": oracles.has_oracle(task_id)}
