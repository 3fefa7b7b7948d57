"""`LocalWebSuite`: the embedded offline web suite, served by the env itself on loopback.

Every episode gets a fresh *world*: each app's state built from the episode seed, then
prepared by the task's template. The world is the server's state, so reset restores it
exactly and episodes never leak into each other.
"""

from __future__ import annotations

import copy
import html
import threading
from typing import Any, Iterable

from gui_gym.backends.base import Backend
from gui_gym.suites.base import Task, TaskSuite
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.suites.localweb.apps import load_apps
from gui_gym.suites.localweb.framework import AppServer, WebApp, page
from gui_gym.suites.localweb.templates import LocalWebTask, TaskTemplate, World


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
