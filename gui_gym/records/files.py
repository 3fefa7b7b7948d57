"""The episode folder's files, and writing them safely.

One episode is one folder, ``<task_id>__seed<seed>/`` (`episode_key`): ``traj.jsonl`` (line 0
the reset, line n step n), ``step_NNNN.png`` screenshots and ``result.json``, written last.
Every file is written whole or not at all (`atomic_write`); values are made JSON-safe first
(`json_safe`, bounded: see `gui_gym.records.values`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

from gui_gym.actions import MAX_OUTPUT_CHARS, Action
from gui_gym.errors import TaskConfigError
from gui_gym.records.jsonl import iter_jsonl
from gui_gym.records.values import json_safe

logger = logging.getLogger(__name__)

TRAJECTORY_FILE = "traj.jsonl"
RESULT_FILE = "result.json"
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
MAX_ACTION_TEXT_CHARS = 2 * MAX_OUTPUT_CHARS
"""The most of an action as given that a step's record keeps: twice what an env accepts, so
every action an env can run is recorded whole, and a bigger one (an agent's mistake, refused
as an ``action_error``) is recorded cut, with a marker."""


def episode_key(task_id: str, seed: int | None) -> str:
    """The folder name of an episode: ``<task_id>__seed<seed>``, with characters that are
    unsafe in file names replaced by ``_``."""
    safe = _UNSAFE_CHARS.sub("_", str(task_id)).strip("._") or "task"
    return f"{safe}__seed{seed}" if seed is not None else safe


def read_trajectory(folder: str | os.PathLike) -> list[dict[str, Any]]:
    """The step records of an episode folder's ``traj.jsonl`` (none when it is missing), for
    readers that show what there is (the report, an error result's step count): the records
    end at the first line that does not parse, which is logged."""
    records: list[dict[str, Any]] = []
    try:
        for _, record in iter_jsonl(Path(folder) / TRAJECTORY_FILE):
            records.append(record)
    except TaskConfigError as exc:
        logger.warning("%s; showing the %d record(s) before it", exc, len(records))
    return records


def atomic_write(path: str | os.PathLike, data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file and a rename: readers (and a resumed
    run after ``kill -9``) see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as handle:
        # backslashreplace: a lone surrogate (agent text that is not Unicode) is written as the
        # \uXXXX escape JSON reads back, instead of failing the write
        handle.write(data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data)
    os.replace(tmp, path)


def atomic_write_json(path: str | os.PathLike, value: Any) -> None:
    atomic_write(path, json.dumps(json_safe(value), indent=2, ensure_ascii=False) + "\n")


def action_text(action: Any) -> str:
    """The action as the agent gave it, as text: strings unchanged, `Action` objects and
    dicts as canonical JSON; any value at all, cut to about `MAX_ACTION_TEXT_CHARS` with a
    marker that says so (`json_safe`)."""
    if isinstance(action, str):
        text = action
    elif isinstance(action, Action):
        text = json.dumps(action.to_dict(), ensure_ascii=False)
    else:
        text = json.dumps(json_safe(action, max_chars=MAX_ACTION_TEXT_CHARS), ensure_ascii=False)
    if len(text) <= MAX_ACTION_TEXT_CHARS:
        return text
    return text[:MAX_ACTION_TEXT_CHARS] + f"<cut: {len(text) - MAX_ACTION_TEXT_CHARS} more characters>"


def final_answer(parsed_action: Any) -> str | None:
    """The text of a terminal answer/done action, from ``info["parsed_action"]``."""
    last = parsed_action[-1] if isinstance(parsed_action, list) and parsed_action else parsed_action
    if isinstance(last, dict) and last.get("kind") in ("answer", "done") and last.get("text"):
        return str(last["text"])
    return None
