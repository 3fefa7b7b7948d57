"""Which tasks a `gui-bench run` runs: ``--tasks`` specs (ids, files of ids, ``field:value``
filters on the suite's facts) and ``--limit``."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any, Callable

from gui_gym.errors import HarnessError


def select_tasks(task_ids: list[str], describe: Callable[[str], dict[str, Any]], specs: list[str] | None,
                 limit: int | None) -> list[str]:
    """Task ids chosen by `specs`: ids, files (one id per line, or a JSON list), and filters
    ``field:value`` on the suite's `describe` facts (``domain:shop``, ``difficulty:hard``)."""
    items = [part.strip() for spec in (specs or []) for part in spec.split(",") if part.strip()]
    known = set(task_ids)
    chosen: list[str] = []
    for item in items or [None]:
        if item is None:
            picked = list(task_ids)
        elif item in known:
            picked = [item]
        elif Path(item).is_file():
            picked = _read_id_file(Path(item), known)
        elif re.fullmatch(r"[A-Za-z_]\w*:.+", item):
            field, value = item.split(":", 1)
            picked = [t for t in task_ids if str(describe(t).get(field)) == value]
            if not picked:
                values = sorted({str(describe(t).get(field)) for t in task_ids})
                raise HarnessError(f"--tasks {item!r} selects nothing; {field} takes the values {values}")
        else:
            close = difflib.get_close_matches(item, task_ids, n=3)
            raise HarnessError(f"--tasks {item!r} is not a task id, a file, or a field:value filter"
                               + (f"; did you mean {close}?" if close else ""))
        chosen += [t for t in picked if t not in chosen]
    if limit is not None:
        if limit < 1:
            raise HarnessError(f"--limit must be >= 1, received {limit}")
        chosen = chosen[:limit]
    return chosen


def _read_id_file(path: Path, known: set[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    try:
        ids = json.loads(text)
    except json.JSONDecodeError:
        ids = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise HarnessError(f"task file {str(path)!r}: expected one id per line or a JSON list of ids")
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise HarnessError(f"task file {str(path)!r} names unknown task ids {unknown[:5]}")
    return ids
