"""AndroidWorld's task shape on gui-gym's `Task`, and the suite of those gui-gym implements.

An AndroidWorld task (``TaskEval``) has a goal ``template`` filled from ``params``,
``generate_random_params``, a ``complexity`` whose tenfold is the step budget, and three
methods that talk to the device: ``initialize_task`` (put the device in the start state),
``is_successful`` (a score in [0, 1] read from device state) and ``tear_down``.
`AndroidWorldTask` keeps exactly that shape, so a task reads like its AndroidWorld original,
and maps it onto `Task`: params come from the episode seed, ``setup`` runs
``initialize_task`` and returns to the home screen, ``evaluate`` is ``is_successful``.
"""

from __future__ import annotations

import os
import random
from abc import abstractmethod
from typing import Any, ClassVar

from gui_gym.backends.base import Backend
from gui_gym.errors import TaskConfigError
from gui_gym.suites.android.catalog import CatalogEntry, catalog_path, load_catalog
from gui_gym.suites.android.device import Device
from gui_gym.suites.base import Episode, Task, TaskSuite


class AndroidWorldTask(Task):
    """One task in AndroidWorld's shape. Subclasses set the class attributes and implement
    `is_successful`; `initialize_task` / `tear_down` extend the defaults."""

    name: ClassVar[str]
    """The AndroidWorld task name (also the gui-gym task id)."""
    template: ClassVar[str]
    complexity: ClassVar[float]
    app_names: ClassVar[tuple[str, ...]] = ()
    source: ClassVar[str] = "androidworld"
    """"androidworld" for AndroidWorld's own tasks, "gui-gym" for tasks added here."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = dict(params)
        self.task_id = self.name
        self.instruction = self.goal
        self.domain = self.domain_name()
        self.max_steps = int(10 * self.complexity)
        self.metadata = {"params": self.params, "complexity": self.complexity, "source": self.source}

    @classmethod
    def domain_name(cls) -> str:
        """The app a single-app task is about; "android" for tasks over several or none."""
        return cls.app_names[0] if len(cls.app_names) == 1 else "android"

    @classmethod
    def from_seed(cls, seed: int) -> "AndroidWorldTask":
        return cls(cls.generate_random_params(random.Random(seed)))

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {}

    @property
    def goal(self) -> str:
        return self.template.format(**self.params)

    # ---- AndroidWorld's methods ------------------------------------------------------------

    def initialize_task(self, device: Device) -> None:
        """Bring the device to the task's start state (the home screen follows)."""

    @abstractmethod
    def is_successful(self, device: Device) -> float:
        """Score in [0, 1] read from the device."""

    def tear_down(self, device: Device) -> None:
        """Undo what `initialize_task` left behind."""

    # ---- the Task contract -----------------------------------------------------------------

    def setup(self, backend: Backend) -> None:
        device = Device(backend)
        self.initialize_task(device)
        device.go_home()

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        return float(self.is_successful(Device(backend)))

    def teardown(self, backend: Backend) -> None:
        self.tear_down(Device(backend))


class AndroidWorldSuite(TaskSuite):
    """The AndroidWorld tasks gui-gym implements, plus its own few (``source`` says which).

    `androidworld_tasks`: AndroidWorld's task_metadata.json (or $GUI_GYM_ANDROIDWORLD_TASKS);
    optional. With it, `catalog` lists all of AndroidWorld's tasks with an ``implemented``
    flag, `describe` adds difficulty, tags and optimal steps, and asking for an AndroidWorld
    task that exists but is not implemented says so.
    """

    name = "android"

    def __init__(self, androidworld_tasks: str | os.PathLike | None = None) -> None:
        from gui_gym.suites.android.tasks import TASKS

        self.tasks: dict[str, type[AndroidWorldTask]] = dict(TASKS)
        path = catalog_path(androidworld_tasks)
        self._catalog = load_catalog(path, self.tasks) if path is not None else None
        self._catalog_path = path
        if self._catalog is not None:
            listed = {entry.task_name for entry in self._catalog}
            unknown = [n for n, t in self.tasks.items() if t.source == "androidworld" and n not in listed]
            if unknown:
                raise TaskConfigError(f"{path}: AndroidWorld tasks {unknown} implemented by gui-gym are not in this list")

    @property
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    @property
    def catalog(self) -> list[CatalogEntry] | None:
        """All AndroidWorld tasks with ``implemented`` flags, when the task list was given."""
        return self._catalog

    def check_task_id(self, task_id: str) -> None:
        if self._catalog is not None and task_id not in self.tasks:
            if any(entry.task_name == task_id for entry in self._catalog):
                raise TaskConfigError(
                    f"AndroidWorld task {task_id!r} is not implemented by gui-gym (it needs apps or checks beyond "
                    f"stock settings, contacts, files and clock); implemented: {self.task_ids}")
        super().check_task_id(task_id)

    def make_task(self, task_id: str, seed: int) -> AndroidWorldTask:
        self.check_task_id(task_id)
        return self.tasks[task_id].from_seed(seed)

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        cls = self.tasks[task_id]
        info: dict[str, Any] = {"task_id": task_id, "domain": cls.domain_name(),
                                "apps": list(cls.app_names), "complexity": cls.complexity,
                                "max_steps": int(10 * cls.complexity), "source": cls.source,
                                "template": cls.template}
        entry = next((e for e in self._catalog or () if e.task_name == task_id), None)
        if entry is not None:
            info.update(difficulty=entry.difficulty, tags=list(entry.tags), optimal_steps=entry.optimal_steps)
        return info
