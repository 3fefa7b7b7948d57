"""The rows of one table of an SQLite file the agent left (Chrome's ``Cookies`` and
``History``), read in the evaluator's bounded worker (`EpisodeContext.bounded`).

A database file is a program as much as data: a 4 KiB file whose ``cookies`` is a VIEW over an
endless recursive query never returns, and one whose rows are made on the fly (a view, a
generated column) holds far more than its bytes. So `table_rows` opens the file read-only and
immutable, lets no function of the file's own schema run (``trusted_schema`` off), reads only
a real table (not a view, not a virtual table), and stops at a deadline, at a cell of
`MAX_CELL_BYTES`, and at the bytes and values an answer of the worker may carry: past any of
them, `LimitExceededError` (the task scores 0 with a warning). What is not there (no file, no
such table) is an `sqlite3` error, which the getter turns into OSWorld's answer, None.
"""

from __future__ import annotations

import base64
import re
import sqlite3
import time
from typing import Any
from urllib.parse import quote

from gui_gym.errors import LimitExceededError
from gui_gym.runtime.bounded_call import MAX_ANSWER_BYTES, MAX_ANSWER_VALUES

DEADLINE_S = 30.0
"""Wall-clock time one read may take (a real profile's table reads in milliseconds)."""
MAX_CELL_BYTES = 4 << 20
"""The longest text or blob one cell may hold (Chrome caps a URL at 2 MiB)."""
PROGRESS_STEPS = 1_000
"""SQLite virtual-machine steps between two looks at the deadline."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLOB = "base64"


def table_rows(path: str, table: str, columns: str) -> list[list[Any]]:
    """``SELECT <columns> FROM <table>`` on the file at `path`, every row as a list (blobs
    as ``{"base64": ...}``, see `from_answer`); bounded as the module docstring says."""
    if not _NAME.fullmatch(table) or not all(_NAME.fullmatch(c.strip()) or c.strip() == "*" for c in columns.split(",")):
        raise ValueError(f"expected a table name and column names, received {table!r} and {columns!r}")
    connection = sqlite3.connect(f"file:{quote(path)}?mode=ro&immutable=1", uri=True)
    try:
        deadline = time.monotonic() + DEADLINE_S
        connection.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_STEPS)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_CELL_BYTES)
        connection.execute("PRAGMA trusted_schema = OFF")
        _require_table(connection, table)
        return _read(connection.execute(f'SELECT {columns} FROM "{table}"'), table)
    except sqlite3.DatabaseError as exc:
        if time.monotonic() > deadline or "interrupted" in str(exc):
            raise LimitExceededError(f"reading {table} ran past its {DEADLINE_S:g} s deadline") from None
        if "too big" in str(exc):
            raise LimitExceededError(f"{table} holds a value over {MAX_CELL_BYTES} bytes") from None
        raise
    finally:
        connection.close()


def _require_table(connection: sqlite3.Connection, table: str) -> None:
    """Refuse a `table` that is a view or a virtual table: reading it runs the agent's query
    or module; a missing one fails as the SELECT would (OSWorld's "no such table")."""
    found = connection.execute("SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE", (table,)).fetchall()
    if not found:
        raise sqlite3.OperationalError(f"no such table: {table}")
    kind, sql = found[0]
    if kind != "table" or len(found) > 1 or not str(sql or "").lstrip().upper().startswith("CREATE TABLE"):
        raise LimitExceededError(f"{table} is not a plain table but {str(sql or kind)[:120]!r}: not read, since "
                                 f"reading it would run what the file defines")


def _read(cursor: sqlite3.Cursor, table: str) -> list[list[Any]]:
    rows: list[list[Any]] = []
    values = size = 0
    for row in cursor:
        values += len(row)
        size += sum(len(cell) for cell in row if isinstance(cell, (str, bytes)))
        if values > MAX_ANSWER_VALUES or size > MAX_ANSWER_BYTES:
            raise LimitExceededError(f"{table} holds over {MAX_ANSWER_VALUES} values or {MAX_ANSWER_BYTES} bytes, "
                                     f"more than a getter reads")
        rows.append([{_BLOB: base64.b64encode(cell).decode()} if isinstance(cell, bytes) else cell for cell in row])
    return rows


def from_answer(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    """The rows as ``sqlite3`` gives them (tuples, blobs as bytes), from `table_rows`' answer."""
    return [tuple(base64.b64decode(cell[_BLOB]) if isinstance(cell, dict) else cell for cell in row) for row in rows]
