"""AndroidWorld's task list (116 tasks over 20 apps), with how gui-gym implements each.

The list is AndroidWorld's ``task_metadata.json`` (task_name, task_template, difficulty,
tags, optimal_steps). gui-gym does not ship it: pass its path as ``androidworld_tasks=`` or
set ``$GUI_GYM_ANDROIDWORLD_TASKS``. Each entry says whether gui-gym implements the task and
whether faithfully (AndroidWorld's set-up and check), and if not, what differs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from gui_gym.errors import MissingResourceError, TaskConfigError

ENV_VAR = "GUI_GYM_ANDROIDWORLD_TASKS"
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class CatalogEntry:
    """One AndroidWorld task as its metadata describes it."""

    task_name: str
    task_template: str
    difficulty: str
    tags: tuple[str, ...]
    optimal_steps: int
    implemented: bool
    faithful: bool = False
    fidelity: str = ""
    """What differs from AndroidWorld's task when it is implemented but not faithful."""


def catalog_path(explicit: str | os.PathLike | None) -> Path | None:
    """The task list to read: the explicit path, else $GUI_GYM_ANDROIDWORLD_TASKS, else None."""
    value = explicit if explicit is not None else os.environ.get(ENV_VAR)
    if value is None or value == "":
        return None
    path = Path(value)
    if not path.is_file():
        source = "androidworld_tasks" if explicit is not None else f"${ENV_VAR}"
        raise MissingResourceError(f"{source} points at {str(path)!r}, which is not a file; give the path of "
                                   "AndroidWorld's task_metadata.json")
    return path


def load_catalog(path: str | os.PathLike, implemented: Iterable[str] | Mapping[str, type]) -> list[CatalogEntry]:
    """Every task in an AndroidWorld ``task_metadata.json``; TaskConfigError naming the file,
    the entry and the field when it is malformed. `implemented`: the task names gui-gym
    implements, or {name: task class} (its ``fidelity`` note says what differs, if anything)."""
    path = Path(path)
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(records, list):
        raise TaskConfigError(f"{path}: expected a list of task records, received {type(records).__name__}")
    classes = dict(implemented) if isinstance(implemented, Mapping) else {name: None for name in implemented}
    entries = []
    for n, record in enumerate(records):
        where = f"{path}: entry {n}"
        if not isinstance(record, dict):
            raise TaskConfigError(f"{where}: expected an object, received {type(record).__name__}")
        missing = {"task_name", "task_template", "difficulty", "tags", "optimal_steps"} - set(record)
        if missing:
            raise TaskConfigError(f"{where}: missing field(s) {sorted(missing)}")
        if record["difficulty"] not in DIFFICULTIES:
            raise TaskConfigError(f"{where}: difficulty must be one of {DIFFICULTIES}, received {record['difficulty']!r}")
        try:
            optimal = int(record["optimal_steps"])
        except (TypeError, ValueError):
            raise TaskConfigError(f"{where}: optimal_steps must be an integer, received {record['optimal_steps']!r}") from None
        name = str(record["task_name"])
        note = getattr(classes.get(name), "fidelity", "") or ""
        entries.append(CatalogEntry(
            task_name=name, task_template=str(record["task_template"]), difficulty=record["difficulty"],
            tags=tuple(t for t in record["tags"] if t), optimal_steps=optimal, implemented=name in classes,
            faithful=name in classes and not note, fidelity=note))
    return entries
