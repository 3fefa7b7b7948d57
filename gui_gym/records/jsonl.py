"""JSON-lines files: one JSON object a line, appended as things happen. Every ``.jsonl`` file
gui-gym writes or reads goes through here: an episode's ``traj.jsonl``, WebJudge's
``calls.jsonl``, the trainers' ``metrics.jsonl`` and ``branched_groups.jsonl``, the learning
benchmark's ``runs.jsonl``, the replay agent's action files.

Why one writer and one reader: ``json.dumps(ensure_ascii=False)`` escapes the control
characters below U+0020, but writes U+0085 (NEL), U+2028 and U+2029 (line and paragraph
separators) as they are, and Python's ``str.splitlines()`` breaks lines at exactly those. An
agent that answered ``"no idea\\u2028sorry"`` split its own step record in two, and the
episode (the agent's failure) became an unreadable record, an error. So both ends hold:

- the writer (`json_line`, `append_jsonl`) escapes those three (and lone surrogates, text that
  is not Unicode) as ``\\uXXXX``: each record is one line for any reader, this one, a
  ``splitlines`` in someone's script, or a JavaScript line reader;
- the reader (`iter_jsonl`, `read_jsonl`) splits at ``"\\n"`` only, so a file written before
  the writer escaped them, or by another tool, still reads whole.

A writer killed mid-line leaves a last line cut short: the reader logs it and reads the
records before it; any other line that is not a JSON object is a `TaskConfigError` naming the
file and the line.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import IO, Any, Iterator

from gui_gym.errors import TaskConfigError

logger = logging.getLogger(__name__)

_RAW_BREAKS = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
"""What ``json.dumps(ensure_ascii=False)`` leaves raw that breaks a line for some reader
(NEL, LS, PS) or cannot be encoded (a lone surrogate); it escapes every other line break
(``\\n``, ``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``) itself."""


def escape_line_breaks(text: str) -> str:
    """`text` (JSON from ``json.dumps``) with the characters above as ``\\uXXXX`` escapes:
    inside JSON they can only stand in a string, where the escape means the same character."""
    return _RAW_BREAKS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def json_line(record: Any, *, sort_keys: bool = False) -> str:
    """`record` as one JSON line, ending in ``"\\n"``, readable by any line splitter."""
    return escape_line_breaks(json.dumps(record, ensure_ascii=False, sort_keys=sort_keys)) + "\n"


def write_jsonl(handle: IO[str], record: Any, *, sort_keys: bool = False) -> None:
    """Append `record` as one line to an open text file and flush it, so a reader (or a run
    resumed after ``kill -9``) sees every whole line written so far."""
    handle.write(json_line(record, sort_keys=sort_keys))
    handle.flush()


def append_jsonl(path: str | os.PathLike, record: Any, *, sort_keys: bool = False) -> None:
    """Append `record` as one line to the file at `path` (created when missing)."""
    with open(path, "a", encoding="utf-8") as handle:
        write_jsonl(handle, record, sort_keys=sort_keys)


def iter_jsonl(path: str | os.PathLike, *, cut_short_ok: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of a JSON-lines file with their 1-based line numbers, blank lines skipped;
    nothing when the file is missing. A last line cut short is logged and left out (see the
    module docstring) unless `cut_short_ok` is False (a file someone wrote by hand, not one
    appended to as things happened); raises `TaskConfigError` naming the file and line of any
    other line that is not a JSON object."""
    path = Path(path)
    if not path.is_file():
        return
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise TaskConfigError(f"cannot read {path}: {exc}") from exc
    lines = text.split("\n")  # never str.splitlines(): it also breaks at characters a record may hold
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            if cut_short_ok and number == len(lines):  # no newline after it: a writer killed mid-line
                logger.warning("%s: line %d was cut short (a writer stopped mid-line); reading the records "
                               "before it", path, number)
                return
            raise TaskConfigError(f"{path} line {number} is not JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise TaskConfigError(f"{path} line {number}: expected a JSON object, received {line[:80]!r}")
        yield number, record


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of a JSON-lines file (`iter_jsonl` without the line numbers)."""
    return [record for _, record in iter_jsonl(path)]
