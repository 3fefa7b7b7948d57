"""Reading Online-Mind2Web task files, exactly as the benchmark ships them, and pinning them.

A task file is a JSON list of task objects (the released ``Online_Mind2Web.json``) or JSON
Lines. Each task has ``task_id``, ``website`` (the start URL), the instruction under
``confirmed_task`` (some copies call it ``task_description``: both are read),
``reference_length`` (steps a human took) and ``level`` (easy 1-5 steps, medium 6-10, hard
11+). Fields beyond these are kept in `Mind2WebTaskSpec.extra` (the local task file maps each
task onto a LocalWeb template there).

The benchmark's tasks are revised from time to time (36 were replaced in one update), so a
score means something only with the file it was run on: `load_task_file` hashes the file's
bytes, every result carries that hash, and ``pin=`` refuses any other version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from gui_gym.errors import TaskConfigError

LEVELS = ("easy", "medium", "hard")
LEVEL_STEPS = {"easy": (1, 5), "medium": (6, 10), "hard": (11, None)}
"""Online-Mind2Web's levels by human reference length (inclusive; hard has no upper bound)."""
INSTRUCTION_KEYS = ("confirmed_task", "task_description")
KNOWN_KEYS = frozenset({"task_id", "website", "reference_length", "level", *INSTRUCTION_KEYS})


@dataclass(frozen=True)
class Mind2WebTaskSpec:
    """One Online-Mind2Web task, as its file states it."""

    task_id: str
    task: str
    """The instruction (``confirmed_task`` or ``task_description``)."""
    website: str
    reference_length: int | None
    level: str | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskFile:
    """A loaded task file: its tasks in file order, where it came from and its sha256."""

    path: Path
    sha256: str
    tasks: tuple[Mind2WebTaskSpec, ...]

    def by_id(self) -> dict[str, Mind2WebTaskSpec]:
        return {task.task_id: task for task in self.tasks}


def level_of(reference_length: int) -> str:
    """The Online-Mind2Web level of a task that took a human `reference_length` steps."""
    for level, (low, high) in LEVEL_STEPS.items():
        if reference_length >= low and (high is None or reference_length <= high):
            return level
    raise ValueError(f"expected a reference length >= 1, received {reference_length}")


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def check_pin(path: Path, sha256: str, pin: str | None) -> None:
    """Raise `TaskConfigError` when `pin` (a sha256, optionally ``sha256:``-prefixed) is given
    and is not the file's hash."""
    if pin is None:
        return
    wanted = pin.strip().lower().removeprefix("sha256:")
    if wanted != sha256:
        raise TaskConfigError(f"task file {str(path)!r} has sha256 {sha256}, but the run is pinned to {wanted}: "
                              "the tasks changed since the pin was taken; use the pinned file, or drop or update pin=")


def parse_levels(levels: str | Iterable[str] | None) -> frozenset[str] | None:
    """``"easy"``, ``"easy,medium"`` or a list of levels, checked; None keeps every level."""
    if levels is None:
        return None
    names = [p.strip() for p in levels.split(",")] if isinstance(levels, str) else [str(p).strip() for p in levels]
    names = [n for n in names if n]
    unknown = sorted(set(names) - set(LEVELS))
    if unknown or not names:
        raise ValueError(f"levels must name some of {list(LEVELS)}, received {levels!r}")
    return frozenset(names)


def load_task_file(path: str | Path, *, levels: str | Iterable[str] | None = None,
                   pin: str | None = None) -> TaskFile:
    """The tasks of the Online-Mind2Web task file at `path` (JSON list or JSON Lines), keeping
    only `levels` when given, after checking the file against `pin`."""
    path = Path(path)
    if not path.is_file():
        raise TaskConfigError(f"Online-Mind2Web task file {str(path)!r} does not exist")
    raw = path.read_bytes()
    sha256 = hashlib.sha256(raw).hexdigest()
    check_pin(path, sha256, pin)
    records = _records(path, raw.decode("utf-8"))
    tasks = [_spec(path, index, record) for index, record in enumerate(records)]
    seen: set[str] = set()
    for task in tasks:
        if task.task_id in seen:
            raise TaskConfigError(f"{path}: task_id {task.task_id!r} appears more than once")
        seen.add(task.task_id)
    wanted = parse_levels(levels)
    if wanted is not None:
        tasks = [t for t in tasks if t.level in wanted]
        if not tasks:
            raise TaskConfigError(f"{path}: no task has a level in {sorted(wanted)}")
    return TaskFile(path, sha256, tuple(tasks))


def _records(path: Path, text: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TaskConfigError(f"{path}: expected a JSON list of tasks, the JSON is malformed: {exc}") from exc
    else:
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise TaskConfigError(f"{path}: line {number}: expected one JSON task object per line: {exc}") from exc
    if not records:
        raise TaskConfigError(f"{path}: expected at least one task, the file holds none")
    return records


def _spec(path: Path, index: int, record: Any) -> Mind2WebTaskSpec:
    where = f"{path}: task {index}"
    if not isinstance(record, dict):
        raise TaskConfigError(f"{where}: expected a JSON object, received {type(record).__name__}")
    task_id = record.get("task_id")
    if not isinstance(task_id, str) or not task_id.strip():
        raise TaskConfigError(f"{where}: expected a non-empty string 'task_id', received {task_id!r}")
    where = f"{path}: task {task_id!r}"
    instruction = next((record[k] for k in INSTRUCTION_KEYS if k in record), None)
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskConfigError(f"{where}: expected the instruction as a non-empty string under 'confirmed_task' "
                              f"or 'task_description', received {instruction!r}")
    website = record.get("website")
    if not isinstance(website, str) or not website.strip():
        raise TaskConfigError(f"{where}: expected 'website' as a non-empty URL string, received {website!r}")
    length = record.get("reference_length")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 1):
        raise TaskConfigError(f"{where}: expected 'reference_length' as an integer >= 1, received {length!r}")
    level = record.get("level")
    if level is not None and level not in LEVELS:
        raise TaskConfigError(f"{where}: expected 'level' to be one of {list(LEVELS)}, received {level!r}")
    extra = {k: v for k, v in record.items() if k not in KNOWN_KEYS}
    return Mind2WebTaskSpec(task_id.strip(), instruction.strip(), website.strip(), length, level, extra)
