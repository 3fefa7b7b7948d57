"""OSWorld task files, read exactly as they are.

A task file (``examples/<domain>/<id>.json``) has ``id``, ``snapshot``, ``instruction``,
``source``, ``config`` (setup steps), ``related_apps``, ``evaluator`` and, in newer files,
``proxy``, ``fixed_ip``, ``possibility_of_env_change``, ``hint``. Every field is kept (`raw`);
the evaluator is normalised the way OSWorld's ``DesktopEnv`` reads it: ``func`` a name or a
list, ``result``/``expected`` getter configs parallel to it, ``options`` a dict or a list,
``conj`` "and" unless said otherwise, ``postconfig`` steps run before evaluation.

Task sets are chosen by an index file (``test_all.json``, ``test_nogdrive.json``, ...:
``{domain: [ids]}``) in a data folder, or by a folder of task files, with optional domain
filters. A malformed file raises `TaskConfigError` naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui_gym.errors import MissingResourceError, TaskConfigError

SAMPLE_DIR = Path(__file__).with_name("sample")
DEFAULT_INDEX = "test_all.json"
CONJUNCTIONS = ("and", "or")


@dataclass(frozen=True)
class SetupStep:
    """One ``{"type": ..., "parameters": {...}}`` entry of ``config`` or ``postconfig``."""

    type: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Evaluator:
    """An evaluator, normalised: one entry per metric in `funcs`, `results`, `expecteds`,
    `options` (``None`` where OSWorld has no getter)."""

    funcs: tuple[str, ...]
    multi: bool
    conj: str
    results: tuple[dict[str, Any] | None, ...]
    expecteds: tuple[dict[str, Any] | None, ...]
    options: tuple[dict[str, Any], ...]
    postconfig: tuple[SetupStep, ...]

    @property
    def infeasible(self) -> bool:
        return self.funcs == ("infeasible",)

    @property
    def getters(self) -> tuple[dict[str, Any], ...]:
        return tuple(g for g in (*self.results, *self.expecteds) if g)


@dataclass(frozen=True)
class OSWorldTaskSpec:
    """One OSWorld task file."""

    id: str
    domain: str
    instruction: str
    snapshot: str
    config: tuple[SetupStep, ...]
    evaluator: Evaluator
    related_apps: tuple[str, ...]
    source: str
    path: Path
    proxy: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def folder(self) -> Path:
        """Folder of the task file: relative ``local_path``/``path`` values resolve here."""
        return self.path.parent


def _where(path: Path, name: str) -> str:
    return f"{path}: field {name!r}"


def _steps(value: Any, path: Path, name: str) -> tuple[SetupStep, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise TaskConfigError(f"{_where(path, name)} must be a list of setup steps, received {type(value).__name__}")
    steps = []
    for index, step in enumerate(value):
        if not isinstance(step, dict) or not isinstance(step.get("type"), str):
            raise TaskConfigError(f"{_where(path, f'{name}[{index}]')} must be an object with a string 'type'")
        parameters = step.get("parameters", {})
        if not isinstance(parameters, dict):
            raise TaskConfigError(f"{_where(path, f'{name}[{index}].parameters')} must be an object")
        steps.append(SetupStep(step["type"], parameters))
    return tuple(steps)


def _parallel(value: Any, count: int, multi: bool, path: Path, name: str) -> tuple[Any, ...]:
    """A getter (or option) entry per metric: a list parallel to a list ``func``, one value
    for a single ``func``; absent means none."""
    if not value:
        return (None,) * count
    if multi:
        if not isinstance(value, list) or len(value) != count:
            raise TaskConfigError(f"{_where(path, 'evaluator.' + name)} must be a list of {count} entries "
                                  f"(one per func), received {value!r:.120}")
        return tuple(value)
    if isinstance(value, list):
        raise TaskConfigError(f"{_where(path, 'evaluator.' + name)} is a list but func is a single name")
    return (value,)


def parse_evaluator(value: Any, path: Path) -> Evaluator:
    if not isinstance(value, dict):
        raise TaskConfigError(f"{_where(path, 'evaluator')} must be an object")
    func = value.get("func")
    multi = isinstance(func, list)
    funcs = tuple(func) if multi else (func,)
    if not funcs or not all(isinstance(f, str) and f for f in funcs):
        raise TaskConfigError(f"{_where(path, 'evaluator.func')} must be a metric name or a list of names, "
                              f"received {func!r}")
    conj = value.get("conj", "and")
    if conj not in CONJUNCTIONS:
        raise TaskConfigError(f"{_where(path, 'evaluator.conj')} must be 'and' or 'or', received {conj!r}")
    options = value.get("options")
    if multi and isinstance(options, dict) and options:
        raise TaskConfigError(f"{_where(path, 'evaluator.options')} must be a list parallel to func "
                              "(OSWorld indexes it per metric)")
    if isinstance(options, list) and not multi:
        raise TaskConfigError(f"{_where(path, 'evaluator.options')} is a list but func is a single name")
    if isinstance(options, list):
        option_list = _parallel(options, len(funcs), True, path, "options")
    else:
        option_list = (options or {},) * len(funcs)
    return Evaluator(
        funcs=funcs, multi=multi, conj=conj,
        results=_parallel(value.get("result"), len(funcs), multi, path, "result"),
        expecteds=_parallel(value.get("expected"), len(funcs), multi, path, "expected"),
        options=tuple(dict(o or {}) for o in option_list),
        postconfig=_steps(value.get("postconfig"), path, "evaluator.postconfig"))


def parse_task(data: Any, path: Path, domain: str | None = None) -> OSWorldTaskSpec:
    """An `OSWorldTaskSpec` from a task file's parsed JSON."""
    if not isinstance(data, dict):
        raise TaskConfigError(f"{path}: expected a JSON object, received {type(data).__name__}")
    for name in ("id", "instruction"):
        if not isinstance(data.get(name), str) or not data[name]:
            raise TaskConfigError(f"{_where(path, name)} must be a non-empty string")
    if "evaluator" not in data:
        raise TaskConfigError(f"{_where(path, 'evaluator')} is missing")
    apps = data.get("related_apps", [])
    return OSWorldTaskSpec(
        id=data["id"], domain=domain or path.parent.name, instruction=data["instruction"],
        snapshot=str(data.get("snapshot", "")), config=_steps(data.get("config", []), path, "config"),
        evaluator=parse_evaluator(data["evaluator"], path),
        related_apps=tuple(apps) if isinstance(apps, list) else (str(apps),),
        source=str(data.get("source", "")), path=path, proxy=bool(data.get("proxy", False)), raw=data)


def load_task_file(path: Path, domain: str | None = None) -> OSWorldTaskSpec:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskConfigError(f"{path}: not valid JSON ({exc})") from exc
    return parse_task(data, Path(path), domain)


def resolve_root(tasks: str | Path) -> Path:
    """``"sample"`` is the bundled sample set; anything else is a folder on disk."""
    root = SAMPLE_DIR if str(tasks) == "sample" else Path(tasks).expanduser()
    if not root.is_dir():
        raise MissingResourceError(
            f"OSWorld task folder {str(root)!r} not found; pass tasks='sample' for the bundled set or "
            "tasks='<path>' to OSWorld's evaluation_examples folder (the one holding examples/ and test_all.json)")
    return root


def load_tasks(tasks: str | Path = "sample", index: str | None = None,
               domains: Sequence[str] | None = None) -> list[OSWorldTaskSpec]:
    """Task specs from a data folder, in index order.

    Args:
        tasks: "sample", a folder holding ``examples/`` (and index files), or a folder of task
            files (one sub-folder per domain, or flat).
        index: an index file name or path (default ``test_all.json`` when the folder has one,
            else every task file found).
        domains: keep only these domains.
    """
    root = resolve_root(tasks)
    examples = root / "examples" if (root / "examples").is_dir() else root
    index_path = _index_path(root, index)
    if index_path is not None:
        entries = _read_index(index_path)
        specs = [load_task_file(_task_path(examples, d, task_id, index_path), d)
                 for d, ids in entries.items() for task_id in ids]
    else:
        specs = [load_task_file(p) for p in sorted(examples.rglob("*.json")) if not p.name.startswith("test_")]
    if domains is not None:
        wanted = set(domains)
        unknown = wanted - {s.domain for s in specs}
        if unknown:
            raise TaskConfigError(f"unknown domain(s) {sorted(unknown)}; this task set has "
                                  f"{sorted({s.domain for s in specs})}")
        specs = [s for s in specs if s.domain in wanted]
    seen: dict[str, Path] = {}
    for spec in specs:
        if spec.id in seen:
            raise TaskConfigError(f"task id {spec.id!r} appears twice: {seen[spec.id]} and {spec.path}")
        seen[spec.id] = spec.path
    return specs


def _index_path(root: Path, index: str | None) -> Path | None:
    if index is None:
        default = root / DEFAULT_INDEX
        return default if default.is_file() else None
    path = Path(index)
    candidate = path if path.is_absolute() else root / path
    if not candidate.is_file():
        available = sorted(p.name for p in root.glob("test_*.json"))
        raise MissingResourceError(f"index file {str(candidate)!r} not found; available here: {available}")
    return candidate


def _read_index(path: Path) -> dict[str, list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise TaskConfigError(f"{path}: an index must map each domain to a list of task ids")
    return data


def _task_path(examples: Path, domain: str, task_id: str, index: Path) -> Path:
    path = examples / domain / f"{task_id}.json"
    if not path.is_file():
        raise TaskConfigError(f"{index}: task {domain}/{task_id} is listed but {path} does not exist")
    return path


def domains_of(specs: Iterable[OSWorldTaskSpec]) -> list[str]:
    return sorted({s.domain for s in specs})
