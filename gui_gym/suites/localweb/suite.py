"""`LocalWebSuite`: the embedded offline web suite, served by the env itself on loopback.

Every episode gets a fresh *world*: each app's state built from the episode seed, then
prepared by the task's template. The world is the server's state, so reset restores it
exactly and episodes never leak into each other. `LocalWebTask` adapts one template instance
to the env's `Task` contract; it lives here, with the server it installs its world on, so the
templates know nothing of the suite.
"""

from __future__ import annotations

import copy
import html
import threading
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.suites.base import Episode, Milestone, Task, TaskSuite
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.suites.localweb.apps import load_apps
from gui_gym.suites.localweb.framework import AppServer, WebApp, page
from gui_gym.suites.localweb.templates import OnScreen, TaskTemplate, World

if TYPE_CHECKING:
    from gui_gym.backends.browser.backend import BrowserBackend


class LocalWebSuite(TaskSuite):
    name = "localweb"

    def __init__(self, apps: Iterable[str] | None = None) -> None:
        apps, templates = load_apps(apps)
        self.apps: dict[str, WebApp] = {app.name: app for app in apps}
        self.templates: dict[str, type[TaskTemplate]] = {t.template_id: t for t in templates}
        self.app_server = AppServer(apps, self._portal)
        self.server = LoopbackServer(self.app_server)

    @property
    def server_lock(self) -> threading.Lock:
        return self.app_server.lock

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def task_ids(self) -> list[str]:
        return list(self.templates)

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        template = self.templates[task_id]
        return {"task_id": task_id, "domain": template.app, "app": template.app,
                "difficulty": template.difficulty, "answer_required": template.answer_required}

    def new_world(self, seed: int) -> World:
        return {name: {**app.initial_state(seed), "log": []} for name, app in self.apps.items()}

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        world = self.new_world(seed)
        template = self.templates[task_id](seed, world)
        template.prepare(world)
        return LocalWebTask(self, template, world)

    def install_world(self, world: World) -> None:
        with self.server_lock:
            self.app_server.states = world

    def snapshot_world(self, task: Task) -> Any:
        with self.server_lock:  # a copy: the snapshot is written out after the lock is let go
            return copy.deepcopy(task.world)

    def load_world(self, task: Task, world: Any) -> None:
        with self.server_lock:  # in place: the task and its template read this very dict
            task.world.clear()
            task.world.update(copy.deepcopy(world))

    def snapshot_origin(self) -> str | None:
        return self.url

    def start(self, backend: Backend) -> None:
        self.server.admit(backend)

    def close(self) -> None:
        self.server.stop()

    def _portal(self) -> str:
        items = "".join(f"<li><a href='/{name}/'>{html.escape(app.title)}</a></li>" for name, app in self.apps.items())
        return page("LocalWeb", f"<h1>LocalWeb</h1><ul class='portal'>{items}</ul>")


class LocalWebTask(Task):
    """Adapts a `TaskTemplate` instance to the env's `Task` contract."""

    def __init__(self, suite: LocalWebSuite, template: TaskTemplate, world: World):
        self.suite = suite
        self.template = template
        self.world = world
        self.task_id = template.template_id
        self.instruction = template.instruction
        self.domain = template.app
        self.max_steps = template.max_steps
        self.metadata = {"difficulty": template.difficulty, "app": template.app,
                         "params": template.params, "expert_plan": template.expert_plan(),
                         "answer_required": template.answer_required}

    def setup(self, backend: "BrowserBackend") -> None:
        self.suite.install_world(self.world)
        backend.set_start_url(f"{self.suite.url}/{self.template.app}{self.template.start_path}")

    def evaluate(self, backend: "BrowserBackend", episode: Episode) -> float:
        with self.suite.server_lock:
            return float(self.template.evaluate(self.world, episode.answer))

    def oracle(self, backend: "BrowserBackend") -> Iterator[Action]:
        from gui_gym.suites.localweb.oracle_ui import OracleUI

        return self.template.oracle(OracleUI(backend))

    def milestones(self) -> list[Milestone]:
        from gui_gym.suites.localweb.oracle_ui import OracleUI

        return [Milestone(text, (lambda backend, check=check: bool(check.check(OracleUI(backend))))
                          if isinstance(check, OnScreen) else (lambda _backend, check=check: bool(check(self.world))))
                for text, check in self.template.milestones()]

    def sample_questions(self, backend: "BrowserBackend") -> list[dict[str, Any]]:
        """The template's multiple-choice facts about the start page (MMBench-GUI samples)."""
        return self.template.sample_questions(self.world)
