"""Checking app database rows as AndroidWorld's SQLite validators do, and the SQLite task shapes.

A row is a dict of every column. Deleting is right when exactly the target rows are gone and
every other row is unchanged, with nothing added. Adding is right when each reference row
has a match (free-text fields fuzzily, the rest exactly), the table grew by exactly the
references, and every earlier row is unchanged. A playlist is right when it holds exactly the
files, in order (its name matched fuzzily).

`SQLiteTask` is AndroidWorld's ``SQLiteApp``: the table emptied before and after the task
(and once more before the clock and snapshots are set, in case a previous run crashed), noise
rows added; `AddRowsTask` and `DeleteRowsTask` / `DeleteDuplicatesTask` score the change
against the rows read after set-up.
"""

from __future__ import annotations

import random
import textwrap
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from gui_gym.suites.android.device import Device
from gui_gym.suites.android.matching import fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask

Row = dict[str, Any]
ROWS, NOISE_ROWS = "row_objects", "noise_row_objects"


def rows_removed_intact(before: Sequence[Row], after: Sequence[Row], ids: Iterable[Any], id_name: str) -> bool:
    ids = list(ids)
    for row_id in ids:
        if not any(row[id_name] == row_id for row in before):
            raise ValueError(f"row {id_name}={row_id} is not among the rows before")
    for row in before:
        if (row[id_name] in ids) == (row in after):
            return False
    return all(row in before for row in after)


def rows_added_intact(before: Sequence[Row], after: Sequence[Row], references: Sequence[Mapping[str, Any]],
                      compare_fields: Sequence[str], free_form_fields: Sequence[str] = ()) -> bool:
    if not compare_fields:
        raise ValueError("compare_fields must not be empty")

    def matches(reference: Mapping[str, Any], row: Row) -> bool:
        return all(fuzzy_match(reference[f], row.get(f)) if f in free_form_fields else reference[f] == row.get(f)
                   for f in compare_fields)
    if not all(any(matches(reference, row) for row in after) for reference in references):
        return False
    if len(after) != len(before) + len(references):
        return False
    return all(row in after for row in before)


def playlist_matches(rows: Sequence[Mapping[str, Any]], name: str, files: Sequence[str]) -> bool:
    """`rows` of (playlist_name, media_file_name, order_in_playlist): the playlist fuzzily named
    `name` holds exactly `files` at positions 0, 1, ..."""
    named = [r for r in rows if fuzzy_match(r["playlist_name"], name)]
    if len(named) != len(files):
        return False
    return all(any(r["media_file_name"] == file and r["order_in_playlist"] == n for r in named)
               for n, file in enumerate(files))


def random_rows(rng: random.Random, n: int, make: Callable[[random.Random], Row], replacement: bool = False,
                keep: Callable[[Row], bool] | None = None) -> list[Row]:
    """`n` rows from `make`, filtered by `keep`, distinct unless `replacement`."""
    rows: list[Row] = []
    for _attempt in range(10_000):
        if len(rows) == n:
            return rows
        candidate = make(rng)
        if (keep is None or keep(candidate)) and (replacement or candidate not in rows):
            rows.append(candidate)
    if len(rows) == n:
        return rows
    raise ValueError(f"could not draw {n} rows that pass the filter (drew {len(rows)})")


def rows_as_text(rows: Sequence[Mapping[str, Any]], fields: Sequence[str], format_type: str, title_field: str,
                 type_name: str, wrap_width: int | None = None) -> str:
    """Rows as AndroidWorld writes them into goals and notes: "a|b" lines under a header
    ("csv"), or blocks of "Type: title" and " field: value" lines ("text_block")."""
    if format_type == "csv":
        return "|".join(fields) + "\n" + "\n".join("|".join(str(row.get(f, "")) for f in fields) for row in rows)
    if format_type != "text_block":
        raise ValueError(f"format_type must be 'csv' or 'text_block', received {format_type!r}")
    blocks = []
    for row in rows:
        block = f"{type_name}: {row.get(title_field, '')}\n"
        for field in fields:
            if field != title_field:
                value = str(row.get(field, ""))
                block += f" {field}: {chr(10).join(textwrap.wrap(value, wrap_width)) if wrap_width else value}\n"
        blocks.append(block)
    return "\n".join(blocks)


class SQLiteTask(AndroidWorldTask):
    """A task on one table of one app database."""

    db_path: ClassVar[str]
    table: ClassVar[str]
    db_key: ClassVar[str]
    db_app: ClassVar[str]
    """The app that owns the database (AndroidWorld's app name)."""

    def list_rows(self, device: Device) -> list[Row]:
        return device.rows(self.db_path, self.table)

    def add_rows(self, device: Device, rows: Sequence[Mapping[str, Any]]) -> None:
        device.insert_rows(self.db_path, self.table, [{k: v for k, v in r.items() if k != self.db_key} for r in rows],
                           self.db_app)

    def clear_table(self, device: Device) -> None:
        device.delete_all_rows(self.db_path, self.table, self.db_app)

    def initialize_task(self, device: Device) -> None:
        self.clear_table(device)  # in case the previous run crashed
        super().initialize_task(device)
        self.clear_table(device)
        if NOISE_ROWS in self.params:
            self.add_rows(device, self.params[NOISE_ROWS])

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        self.clear_table(device)


class AddRowsTask(SQLiteTask):
    """The agent adds ``params[ROWS]``."""

    compare_fields: ClassVar[tuple[str, ...]]
    free_form_fields: ClassVar[tuple[str, ...]] = ()

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        self.before = self.list_rows(device)

    def is_successful(self, device: Device) -> float:
        return float(rows_added_intact(self.before, self.list_rows(device), self.params[ROWS], self.compare_fields,
                                       self.free_form_fields))


class DeleteRowsTask(SQLiteTask):
    """The agent deletes ``params[ROWS]`` (added last, after the noise rows)."""

    n_rows: ClassVar[int]
    n_rows_noise: ClassVar[int]

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        targets = self.params.get(ROWS, [])
        self.add_rows(device, targets)
        self.before = self.list_rows(device)
        self.rows_to_delete = self.before[len(self.before) - len(targets):]
        self.check_initial_rows(self.before)

    def check_initial_rows(self, before: Sequence[Row]) -> None:
        if len(before) != self.n_rows + self.n_rows_noise:
            raise RuntimeError(f"{self.name}: found {len(before)} rows after set-up, expected "
                               f"{self.n_rows + self.n_rows_noise}")

    def is_successful(self, device: Device) -> float:
        ids = [row[self.db_key] for row in self.rows_to_delete]
        return float(rows_removed_intact(self.before, self.list_rows(device), ids, self.db_key))


class DeleteDuplicatesTask(DeleteRowsTask):
    """Two identical target rows among noise: one of the two must go, nothing else."""

    def check_initial_rows(self, before: Sequence[Row]) -> None:
        if len(before) != 2 + self.n_rows_noise:
            raise RuntimeError(f"{self.name}: found {len(before)} rows after set-up, expected {2 + self.n_rows_noise}")
        first, second = ({k: v for k, v in r.items() if k != self.db_key} for r in self.params[ROWS])
        if first != second:
            raise RuntimeError(f"{self.name}: the two target rows are not duplicates")

    def is_successful(self, device: Device) -> float:
        after = self.list_rows(device)
        return float(any(rows_removed_intact(self.before, after, [row[self.db_key]], self.db_key)
                         for row in self.rows_to_delete))
