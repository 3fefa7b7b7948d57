"""PAGE's criteria kept per task as versioned JSON: a folder with one file per task; every
build that changes a task's criteria appends a version, so a training run can name the
version it used."""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from gui_gym.errors import TaskConfigError
from gui_gym.records import atomic_write_json

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
