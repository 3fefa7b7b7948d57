"""`Mind2WebSuite`: Online-Mind2Web task files in two modes.

- **live**: each task opens its ``website`` on the real web. Nothing can check the final
  state of a live website, so there is no oracle and no success check of the env's own: a
  WebJudge-style judge scores the episode (``judge=`` on the env, or ``gui-bench judge`` on the
  results folder). Before the browser is sent anywhere, ``reset`` makes sure the website's host
  resolves and answers; on a machine with no route to the web it fails at once with a message
  that says so and points at local mode, instead of hanging on a navigation timeout.
- **local**: a bundled task file in the same format, whose ``website`` is a LocalWeb app's URL
  path and whose ``localweb`` field names the LocalWeb template and the seed that produce
  exactly that instruction. The LocalWeb apps are served on loopback, so the whole pipeline
  (run, record, judge) runs offline, the oracle solves every task, and the env's own success
  check is the ground truth a judge's verdicts are measured against.

In both modes the instance seed a reset draws is ignored: an Online-Mind2Web task is one fixed
instruction, so a local task's seed is the one its file pins.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import urlsplit

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.base import Episode, Milestone, Task, TaskSuite
from gui_gym.suites.mind2web.loader import Mind2WebTaskSpec, load_task_file

MODES = ("local", "live")
LOCAL_TASK_FILE = Path(__file__).with_name("local_tasks.json")
TASKS_ENV_VAR = "GUI_GYM_MIND2WEB_TASKS"
LIVE_MAX_STEPS = 30
DEFAULT_PROBE_TIMEOUT_S = 5.0


def check_reachable(url: str, timeout_s: float) -> None:
    """Return when `url`'s host resolves and accepts a TCP connection within `timeout_s`;
    otherwise raise `MissingResourceError` saying why and suggesting local mode. The lookup
    runs on a daemon thread, because name resolution takes no timeout of its own."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    outcome: list[BaseException | None] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                outcome.append(None)
        except BaseException as exc:  # reported to the caller below
            outcome.append(exc)

    worker = threading.Thread(target=probe, name="mind2web-reachability", daemon=True)
    worker.start()
    worker.join(timeout_s + 1.0)
    if outcome and outcome[0] is None:
        return
    if not outcome:
        reason = f"no answer from {host}:{port} within {timeout_s:g} s"
    elif isinstance(outcome[0], socket.gaierror):
        reason = f"the host {host!r} does not resolve ({outcome[0]})"
    else:
        reason = f"cannot connect to {host}:{port} ({type(outcome[0]).__name__}: {outcome[0]})"
    raise MissingResourceError(
        f"live Online-Mind2Web cannot reach {url}: {reason}. This machine seems to have no route to the web; "
        "live mode needs it. To run offline, use the bundled tasks on LocalWeb: "
        "gym.make(\"GUI/OnlineMind2Web-v0\", mode=\"local\") or gui-bench run --env-arg mode=local")


class LiveTask(Task):
    """A task on its real website: start there, and leave the scoring to a judge."""

    def __init__(self, suite: "Mind2WebSuite", spec: Mind2WebTaskSpec):
        self.suite, self.spec = suite, spec
        self.task_id, self.instruction = spec.task_id, spec.task
        self.domain = urlsplit(spec.website).hostname or spec.website
        self.max_steps = LIVE_MAX_STEPS
        self.metadata = {"website": spec.website, "level": spec.level, "reference_length": spec.reference_length}

    def setup(self, backend: Backend) -> None:
        check_reachable(self.spec.website, self.suite.probe_timeout_s)
        backend.set_start_url(self.spec.website)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        """0: a live website's final state cannot be checked here. `WebJudgeReward` (the
        env's ``judge=``) replaces it with the judge's verdict."""
        return 0.0


class LocalTask(Task):
    """A task of the local file: a LocalWeb template instance behind an Online-Mind2Web record."""

    def __init__(self, suite: "Mind2WebSuite", spec: Mind2WebTaskSpec):
        template, seed = local_mapping(spec)
        self.suite, self.spec = suite, spec
        self.inner = suite.localweb.make_task(template, seed)
        if self.inner.instruction != spec.task:
            raise TaskConfigError(
                f"local task {spec.task_id!r}: LocalWeb template {template!r} with seed {seed} now reads "
                f"{self.inner.instruction!r}, but the task file says {spec.task!r}; regenerate the file with "
                "python -m gui_gym.benchmarks.samples.mind2web_local")
        self.task_id, self.instruction = spec.task_id, spec.task
        self.domain, self.max_steps = self.inner.domain, self.inner.max_steps
        self.metadata = {**self.inner.metadata, "website": spec.website, "level": spec.level,
                         "reference_length": spec.reference_length, "template": template, "template_seed": seed}

    def setup(self, backend: Backend) -> None:
        self.suite.localweb.install_world(self.inner.world)
        backend.set_start_url(self.suite.localweb.url + self.spec.website)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return self.inner.evaluate(backend, episode)

    def oracle(self, backend: Backend) -> Iterator[Action]:
        return self.inner.oracle(backend)

    def milestones(self) -> list[Milestone]:
        return self.inner.milestones()


def local_mapping(spec: Mind2WebTaskSpec) -> tuple[str, int]:
    """(LocalWeb template id, seed) of a local task, from its ``localweb`` field."""
    mapping = spec.extra.get("localweb")
    template = mapping.get("template") if isinstance(mapping, dict) else None
    seed = mapping.get("seed") if isinstance(mapping, dict) else None
    if not isinstance(template, str) or isinstance(seed, bool) or not isinstance(seed, int):
        raise TaskConfigError(f"local task {spec.task_id!r}: expected a field \"localweb\": "
                              f"{{\"template\": <LocalWeb task id>, \"seed\": <int>}}, received {mapping!r}")
    return template, seed


class Mind2WebSuite(TaskSuite):
    """Online-Mind2Web tasks, live or on LocalWeb.

    Args:
        mode: "local" (bundled tasks on LocalWeb, offline) or "live" (the real websites).
        tasks: the task file; local mode defaults to the bundled one, live mode to
            ``$GUI_GYM_MIND2WEB_TASKS`` (the dataset is gated, so it is not bundled).
        levels: keep only these levels ("easy", "medium", "hard"; a list or comma-separated).
        pin: the sha256 the task file must have.
        probe_timeout_s: live mode's bound on the reachability check before each task.
    """

    name = "online-mind2web"

    def __init__(self, mode: str = "local", tasks: str | os.PathLike[str] | None = None,
                 levels: str | Iterable[str] | None = None, pin: str | None = None,
                 probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {list(MODES)}, received {mode!r}")
        if probe_timeout_s <= 0:
            raise ValueError(f"probe_timeout_s must be > 0, received {probe_timeout_s}")
        self.mode = mode
        self.probe_timeout_s = float(probe_timeout_s)
        self.task_file = load_task_file(self._task_path(tasks), levels=levels, pin=pin)
        self.specs = self.task_file.by_id()
        self.localweb = None
        if mode == "local":
            self._check_local()
        else:
            for spec in self.task_file.tasks:
                if urlsplit(spec.website).scheme not in ("http", "https"):
                    raise TaskConfigError(f"{self.task_file.path}: task {spec.task_id!r}: live mode needs 'website' "
                                          f"to be an http(s) URL, received {spec.website!r}")

    @property
    def needs(self) -> str:
        """What this suite needs, for ``gui-bench list``."""
        if self.mode == "live":
            return "internet access (the real websites), Chromium, and a judge for scoring"
        return "Chromium (found automatically; $GUI_GYM_CHROMIUM overrides)"

    @property
    def task_ids(self) -> list[str]:
        return [spec.task_id for spec in self.task_file.tasks]

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        spec = self.specs[task_id]
        return LocalTask(self, spec) if self.mode == "local" else LiveTask(self, spec)

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        spec = self.specs[task_id]
        facts: dict[str, Any] = {
            "task_id": task_id, "website": spec.website, "level": spec.level, "difficulty": spec.level,
            "reference_length": spec.reference_length, "mode": self.mode,
            "evaluator": "env" if self.mode == "local" else "judge", "task_file_sha256": self.task_file.sha256,
        }
        if self.mode == "local":
            template, seed = local_mapping(spec)
            app = template.split(".")[0]
            facts.update(domain=app, app=app, template=template, template_seed=seed)
        else:
            facts["domain"] = urlsplit(spec.website).hostname
        return facts

    @property
    def snapshot_refusal(self) -> str | None:
        if self.mode == "live":
            return ("live Online-Mind2Web runs on the real websites, whose state is not ours: a replay there is "
                    "not exact; snapshots work in mode='local'")
        return None

    def snapshot_origin(self) -> str | None:
        return self.localweb.url if self.localweb is not None else None

    def start(self, backend: Backend) -> None:
        if self.localweb is not None:
            self.localweb.start(backend)

    def close(self) -> None:
        if self.localweb is not None:
            self.localweb.close()

    def _task_path(self, tasks: str | os.PathLike[str] | None) -> Path:
        if tasks is not None:
            return Path(tasks)
        if self.mode == "local":
            return LOCAL_TASK_FILE
        if os.environ.get(TASKS_ENV_VAR):
            return Path(os.environ[TASKS_ENV_VAR])
        raise MissingResourceError(
            "live Online-Mind2Web needs its task file (a gated dataset, not bundled): download "
            "Online_Mind2Web.json from huggingface.co/datasets/osunlp/Online-Mind2Web and pass tasks=<path> or set "
            f"${TASKS_ENV_VAR}; or use mode=\"local\" for the bundled offline tasks")

    def _check_local(self) -> None:
        from gui_gym.suites.localweb.suite import LocalWebSuite

        mappings = {spec.task_id: local_mapping(spec) for spec in self.task_file.tasks}
        apps = sorted({template.split(".")[0] for template, _ in mappings.values()})
        try:
            self.localweb = LocalWebSuite(apps)
        except ValueError as exc:
            raise TaskConfigError(f"{self.task_file.path}: {exc}") from exc
        for spec in self.task_file.tasks:
            template, _ = mappings[spec.task_id]
            if template not in self.localweb.templates:
                raise TaskConfigError(f"{self.task_file.path}: task {spec.task_id!r} maps onto LocalWeb template "
                                      f"{template!r}, which does not exist")
            if not spec.website.startswith(f"/{template.split('.')[0]}/"):
                raise TaskConfigError(f"{self.task_file.path}: task {spec.task_id!r}: local mode needs 'website' to be "
                                      f"the URL path of its LocalWeb app (/{template.split('.')[0]}/...), "
                                      f"received {spec.website!r}")
