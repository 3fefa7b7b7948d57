"""The suite of AndroidWorld's tasks gui-gym implements (`tasks.TASKS`), with their catalogue.

Task ids are AndroidWorld's task names. With AndroidWorld's ``task_metadata.json`` given, the
suite checks that every implemented task is in it and `describe` adds AndroidWorld's
difficulty, tags and optimal step count to what each task class says about itself (apps,
complexity, step budget, whether it is faithful to AndroidWorld and what it needs).
"""

from __future__ import annotations

import os
from typing import Any

from gui_gym.errors import TaskConfigError
from gui_gym.suites.android.catalog import CatalogEntry, catalog_path, load_catalog
from gui_gym.suites.android.tasks import TASKS
from gui_gym.suites.android.tasks.base import AndroidWorldTask
from gui_gym.suites.base import TaskSuite


class AndroidWorldSuite(TaskSuite):
    """The AndroidWorld tasks gui-gym implements, plus its own few (``source`` says which).

    `apk_dir`: AndroidWorld's APKs, installed when the device is prepared; `prepare`: prepare
    the device at start (None: only an emulator gui-gym booted fresh).
    `androidworld_tasks`: AndroidWorld's task_metadata.json (or $GUI_GYM_ANDROIDWORLD_TASKS);
    optional. With it, `catalog` lists all of AndroidWorld's tasks with ``implemented`` and
    ``faithful`` flags, `describe` adds difficulty, tags and optimal steps, and asking for an
    AndroidWorld task that exists but is not implemented says so.
    """

    name = "android"
    needs = ("an Android emulator or phone on an adb server (or provider='emulator' with an Android SDK and "
             "AVD); AndroidWorld's apps installed (docs/android.md)")

    def __init__(self, androidworld_tasks: str | os.PathLike | None = None, apk_dir: str | os.PathLike | None = None,
                 prepare: bool | None = None, first_run_tap_timeout_s: float = 5.0) -> None:
        self.tasks: dict[str, type[AndroidWorldTask]] = dict(TASKS)
        self.apk_dir, self.prepare, self.first_run_tap_timeout_s = apk_dir, prepare, first_run_tap_timeout_s
        self.prepare_timings: dict[str, float] | None = None
        path = catalog_path(androidworld_tasks)
        self._catalog = load_catalog(path, self.tasks) if path is not None else None
        self._catalog_path = path
        if self._catalog is not None:
            listed = {entry.task_name for entry in self._catalog}
            unknown = [n for n, t in self.tasks.items() if t.source == "androidworld" and n not in listed]
            if unknown:
                raise TaskConfigError(f"{path}: AndroidWorld tasks {unknown} implemented by gui-gym are not in this list")

    def start(self, backend) -> None:
        """Prepare the device (`prepare.prepare_device`) when asked to, or by default when it
        is an emulator gui-gym booted without its ready snapshot; then save that snapshot."""
        from gui_gym.suites.android.device import Device
        from gui_gym.suites.android.prepare import prepare_device

        if self.prepare or (self.prepare is None and getattr(backend, "fresh", False)):
            self.prepare_timings = prepare_device(Device(backend), self.apk_dir, self.first_run_tap_timeout_s)
            save = getattr(backend, "save_ready_snapshot", None)
            if save is not None:
                save()

    @property
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    @property
    def catalog(self) -> list[CatalogEntry] | None:
        """All AndroidWorld tasks with ``implemented`` and ``faithful`` flags, when the task list was given."""
        return self._catalog

    def check_task_id(self, task_id: str) -> None:
        if self._catalog is not None and task_id not in self.tasks:
            if any(entry.task_name == task_id for entry in self._catalog):
                raise TaskConfigError(f"AndroidWorld task {task_id!r} is not implemented by gui-gym; implemented: "
                                      f"{self.task_ids}")
        super().check_task_id(task_id)

    def make_task(self, task_id: str, seed: int) -> AndroidWorldTask:
        self.check_task_id(task_id)
        return self.tasks[task_id].from_seed(seed)

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        cls = self.tasks[task_id]
        info: dict[str, Any] = {"task_id": task_id, "domain": cls.domain_name(), "apps": list(cls.app_names),
                                "complexity": cls.complexity, "max_steps": int(10 * cls.complexity),
                                "source": cls.source, "template": cls.template, "faithful": not cls.fidelity}
        if cls.fidelity:
            info["fidelity"] = cls.fidelity
        if cls.needs:
            info["needs"] = list(cls.needs)
        entry = next((e for e in self._catalog or () if e.task_name == task_id), None)
        if entry is not None:
            info.update(difficulty=entry.difficulty, tags=list(entry.tags), optimal_steps=entry.optimal_steps)
        return info
