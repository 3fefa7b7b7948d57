"""PAGE's criteria: extracted from successful trajectories, stored per task as versioned JSON.

Extraction reads a task's successful trajectories one at a time; each judge call proposes an
ordered list of checkable criteria, or refines the list so far; it stops when a call returns
the list unchanged (stable) or after `max_iters` calls. The store is a folder with one JSON
file per task; every build that changes a task's criteria appends a version, so a training
run can name the version it used. `build_criteria` builds the store from a gui-bench results
folder; `CRITERIA_ARGUMENTS` with `run_cli` (gui-bench's CLI table) and `main` expose it as
``gui-bench criteria``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import itertools
import json
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from gui_gym.errors import JudgeError, MissingResourceError, TaskConfigError
from gui_gym.judges.base import PNG_SIGNATURE, Judge
from gui_gym.judges.cache import CachedJudge
from gui_gym.judges.lvlm import LVLMJudge
from gui_gym.judges.trajectory import Trajectory, TrajectoryStep
from gui_gym.wrappers.recorder import RESULT_FILE, TRAJECTORY_FILE, atomic_write_json

SCHEMA_VERSION = 1


class CriteriaStore:
    """Versioned criteria per task under `directory` (``<task id>.json`` each).

    >>> import tempfile
    >>> store = CriteriaStore(tempfile.mkdtemp())
    >>> store.put("shop.buy", ["the cart holds the item", "the order is placed"])
    1
    >>> store.get("shop.buy")
    ['the cart holds the item', 'the order is placed']
    """

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)

    def path(self, task_id: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", task_id)
        if safe != task_id or safe.startswith("."):
            safe = f"{safe.lstrip('.')}-{hashlib.sha256(task_id.encode()).hexdigest()[:8]}"
        return self.directory / f"{safe}.json"

    def versions(self, task_id: str) -> list[dict[str, Any]]:
        """Every stored version of the task's criteria, oldest first ([] when none)."""
        path = self.path(task_id)
        if not path.exists():
            return []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise TaskConfigError(f"criteria file {path} is not valid JSON: {exc}") from exc
        versions = data.get("versions") if isinstance(data, dict) else None
        if not isinstance(versions, list) or data.get("task_id") != task_id:
            raise TaskConfigError(f"criteria file {path}: expected {{'task_id': {task_id!r}, 'versions': [...]}}, "
                                  f"received keys {sorted(data) if isinstance(data, dict) else type(data).__name__}")
        for entry in versions:
            criteria = entry.get("criteria") if isinstance(entry, dict) else None
            if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
                raise TaskConfigError(f"criteria file {path}: expected each version to hold 'criteria' as a list of "
                                      f"strings, received {entry!r}")
        return versions

    def get(self, task_id: str, version: int | None = None) -> list[str] | None:
        """The latest criteria (or those of `version`); None when the task has none."""
        versions = self.versions(task_id)
        if not versions:
            return None
        if version is None:
            return list(versions[-1]["criteria"])
        for entry in versions:
            if entry.get("version") == version:
                return list(entry["criteria"])
        raise TaskConfigError(f"criteria of task {task_id!r} have versions {[v.get('version') for v in versions]}, "
                              f"not {version}")

    def put(self, task_id: str, criteria: Sequence[str], **meta: Any) -> int:
        """Store `criteria` as the task's next version and return its number; criteria equal
        to the latest version are not stored again (its number is returned)."""
        criteria = [str(c) for c in criteria]
        if not criteria:
            raise ValueError(f"expected at least one criterion for task {task_id!r}, received none")
        versions = self.versions(task_id)
        if versions and versions[-1]["criteria"] == criteria:
            return int(versions[-1]["version"])
        number = int(versions[-1]["version"]) + 1 if versions else 1
        versions.append({"version": number, "criteria": criteria,
                         "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), **meta})
        atomic_write_json(self.path(task_id), {"schema_version": SCHEMA_VERSION, "task_id": task_id, "versions": versions})
        return number


@dataclass
class Extraction:
    """What one extraction run found: the criteria (None if every call failed), which
    trajectories the judge answered about, whether the last answer repeated its input, and
    the errors of the calls that failed."""

    criteria: list[str] | None
    used: list[int] = field(default_factory=list)
    stable: bool = False
    errors: list[str] = field(default_factory=list)


def extract_criteria(judge: Judge | LVLMJudge, trajectories: Iterable[Trajectory], *,
                     previous: Sequence[str] | None = None, max_iters: int | None = None,
                     seed: int = 0) -> Extraction:
    """Iterative extraction over successful `trajectories` (read lazily, so at most
    `max_iters` are loaded), starting from `previous`."""
    if max_iters is not None and max_iters < 1:
        raise ValueError(f"max_iters must be >= 1 or None, received {max_iters}")
    lvlm = judge if isinstance(judge, LVLMJudge) else LVLMJudge(judge)
    result = Extraction(list(previous) if previous else None)
    for index, trajectory in enumerate(itertools.islice(trajectories, max_iters)):
        try:
            proposed = lvlm.propose_criteria(trajectory, result.criteria, seed=seed)
        except JudgeError as exc:
            result.errors.append(f"trajectory {index}: {exc}")
            continue
        result.used.append(index)
        if proposed == result.criteria:
            result.stable = True
            break
        result.criteria = proposed
    return result


def _read_result(folder: Path) -> dict[str, Any]:
    result_path = folder / RESULT_FILE
    try:
        result = json.loads(result_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TaskConfigError(f"cannot read {result_path}: {exc}") from exc
    if not isinstance(result, dict) or "task_id" not in result:
        raise TaskConfigError(f"{result_path}: expected a JSON object with 'task_id', received {str(result)[:200]}")
    return result


def load_trajectory(folder: Path) -> Trajectory:
    """One recorded episode (`TrajectoryRecorder`'s layout: ``result.json``, ``traj.jsonl``
    whose reset line carries the first screenshot, ``step_NNNN.png``) as a trajectory."""
    result = _read_result(folder)
    trajectory = Trajectory(task_id=str(result["task_id"]), instruction=str(result.get("instruction") or ""),
                            success=bool(result.get("success")))
    traj_path = folder / TRAJECTORY_FILE
    lines = traj_path.read_text(encoding="utf-8").splitlines() if traj_path.exists() else []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise TaskConfigError(f"{traj_path} line {number} is not JSON: {exc}") from exc
        screenshot = _read_png(folder, record.get("screenshot_file"))
        if record.get("event") == "reset":
            trajectory.start_screenshot = screenshot
            trajectory.instruction = trajectory.instruction or str(record.get("instruction") or "")
        else:
            trajectory.steps.append(TrajectoryStep(action=record.get("parsed_action"), screenshot=screenshot,
                                                   action_error=record.get("action_error")))
    return trajectory


def _read_png(folder: Path, name: Any) -> "bytes | np.ndarray | None":
    """A recorded screenshot: PNG bytes as stored, or the pixels of another format (WebP)."""
    if not name:
        return None
    path = folder / str(name)
    try:
        data = path.read_bytes()
        if data.startswith(PNG_SIGNATURE):
            return data
        from PIL import Image

        with Image.open(io.BytesIO(data)) as picture:
            return np.asarray(picture.convert("RGB"))
    except OSError as exc:
        raise TaskConfigError(f"screenshot {path} named in {folder / TRAJECTORY_FILE} cannot be read: {exc}") from exc


def build_criteria(results_dir: str | os.PathLike[str], judge: Judge, store_path: str | os.PathLike[str], *,
                   max_iters: int | None = None, task_ids: Sequence[str] | None = None,
                   seed: int = 0) -> dict[str, dict[str, Any]]:
    """Criteria for every task with successful episodes under `results_dir`, stored in
    `store_path`. Returns, per task: version, criteria, trajectories used, stable, errors."""
    root = Path(results_dir)
    if not root.is_dir():
        raise TaskConfigError(f"results folder {root} does not exist")
    successes: dict[str, list[Path]] = {}
    for result_path in sorted(root.rglob(RESULT_FILE)):
        result = _read_result(result_path.parent)
        if result.get("success") and (task_ids is None or result["task_id"] in task_ids):
            successes.setdefault(str(result["task_id"]), []).append(result_path.parent)
    store = CriteriaStore(store_path)
    summary: dict[str, dict[str, Any]] = {}
    for task_id, folders in sorted(successes.items()):
        found = extract_criteria(judge, (load_trajectory(folder) for folder in folders), previous=store.get(task_id),
                                 max_iters=max_iters, seed=seed)
        sources = [str(folders[i].relative_to(root)) for i in found.used]
        entry: dict[str, Any] = {"criteria": found.criteria, "version": None, "trajectories": sources,
                                 "stable": found.stable, "errors": found.errors}
        if found.criteria and found.used:
            entry["version"] = store.put(task_id, found.criteria, judge=judge.identity, sources=sources,
                                         stable=found.stable, errors=found.errors)
        summary[task_id] = entry
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """``gui-bench criteria`` as a plain function: parse `argv`, build the store, return the
    exit code."""
    parser = argparse.ArgumentParser(prog="gui-bench criteria", description=CRITERIA_HELP)
    for flags, kwargs in CRITERIA_ARGUMENTS:
        parser.add_argument(*flags, **kwargs)
    return run_cli(parser.parse_args(argv))


def run_cli(args: argparse.Namespace) -> int:
    from gui_gym.judges.openai_judge import OpenAIJudge

    results = Path(args.results_dir)
    if not results.is_dir():
        print(f"gui-bench criteria: results folder {results} does not exist", file=sys.stderr)
        return 2
    store = Path(args.store or results / "criteria")
    try:
        judge: Judge = OpenAIJudge(args.judge_model, args.judge_base_url, args.judge_api_key,
                                   temperature=args.temperature, timeout_s=args.timeout)
    except (MissingResourceError, ValueError) as exc:
        print(f"gui-bench criteria: {exc}", file=sys.stderr)
        return 2
    if not args.no_cache:
        judge = CachedJudge(judge, store / ".judge-cache")
    try:
        summary = build_criteria(args.results_dir, judge, store, max_iters=args.max_iters,
                                 task_ids=args.task or None, seed=args.seed)
    finally:
        judge.close()
    if not summary:
        print(f"gui-bench criteria: no successful trajectories under {results}", file=sys.stderr)
        return 2
    for task_id, entry in summary.items():
        if entry["version"] is None:
            print(f"{task_id}: no criteria ({len(entry['errors'])} judge error(s)): {entry['errors'][-1:]}")
        else:
            print(f"{task_id}: v{entry['version']}, {len(entry['criteria'])} criteria from "
                  f"{len(entry['trajectories'])} trajectory(ies), {'stable' if entry['stable'] else 'not stable'}")
    print(f"criteria store: {store}")
    return 0 if all(entry["version"] is not None for entry in summary.values()) else 1


CRITERIA_HELP = ("build PAGE's evaluation criteria per task from the successful trajectories of a results folder, "
                 "with an OpenAI-compatible judge, into a versioned criteria store")
CRITERIA_ARGUMENTS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("results_dir",), {"help": "a gui-bench results folder"}),
    (("--store",), {"help": "criteria store folder (default: RESULTS_DIR/criteria)"}),
    (("--judge-base-url",), {"help": "OpenAI-compatible API root (default: $GUI_GYM_JUDGE_BASE_URL)"}),
    (("--judge-model",), {"help": "served model name (default: $GUI_GYM_JUDGE_MODEL)"}),
    (("--judge-api-key",), {"help": "API key (default: $GUI_GYM_JUDGE_API_KEY or $OPENAI_API_KEY)"}),
    (("--temperature",), {"type": float, "default": 0.0, "help": "judge sampling temperature (default 0)"}),
    (("--timeout",), {"type": float, "default": 120.0, "help": "per-request timeout in seconds"}),
    (("--max-iters",), {"type": int, "help": "judge calls per task at most (default: one per trajectory)"}),
    (("--task",), {"action": "append", "help": "only this task id (repeatable)"}),
    (("--seed",), {"type": int, "default": 0, "help": "judge sampling seed"}),
    (("--no-cache",), {"action": "store_true", "help": "do not cache judge answers in STORE/.judge-cache"}),
)
"""The arguments of ``gui-bench criteria`` (registered in benchmarks/cli.py) and of `main`."""
