"""App databases, read and written the way AndroidWorld does it: over adb, never in place.

Reading pulls the database with its ``-wal``/``-shm`` companions (rows an app committed but
has not checkpointed live in the ``-wal``) and queries the copy with `sqlite3`. Writing pulls,
changes the copy, checkpoints it into one file, deletes the database and its companions on the
device, pushes the file back (world-writable, so the app can write it again) and force-stops
the app, which re-reads it at its next start. A table the app has not created yet (it was
never opened since its data was cleared) is created by launching the app once and waiting
until the table appears. Rows are dicts of every column, so comparing rows compares all of
them, as AndroidWorld's row dataclasses do. Everything under ``/data/data`` needs adbd as root.
"""

from __future__ import annotations

import logging
import posixpath
import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from gui_gym.errors import InfraError, MissingResourceError
from gui_gym.runtime.waiting import wait_until

logger = logging.getLogger(__name__)
Row = dict[str, Any]
COMPANIONS = ("-wal", "-shm", "-journal")


class DatabaseOps:
    """Database operations of `Device` (mixed in; needs `backend`, `shell`, `shell_all`,
    `ensure_root`, `package_of`, `close_app` and `launch`)."""

    table_wait_s: float = 20.0
    """How long to wait for an app to create its database on first launch."""

    @contextmanager
    def pulled_database(self, database: str) -> Iterator[Path | None]:
        """A local copy of a device database (with companions), None when it does not exist."""
        if database.startswith("/data/"):
            self.ensure_root()
        folder_on_device, name = posixpath.split(database)
        files = self.backend.list_and_read(folder_on_device, [name + suffix for suffix in ("", *COMPANIONS)])
        with tempfile.TemporaryDirectory(prefix="gui-gym-db-") as folder:
            local = Path(folder) / name
            if name not in files:
                yield None
                return
            for file_name, data in files.items():
                (Path(folder) / file_name).write_bytes(data)
            yield local

    @staticmethod
    def _connect(local: Path) -> sqlite3.Connection:
        connection = sqlite3.connect(local)
        connection.row_factory = sqlite3.Row
        return connection

    def query(self, database: str, sql: str, params: Sequence[Any] = ()) -> list[Row] | None:
        """Rows of `sql` as {column: value}; None when the database does not exist."""
        with self.pulled_database(database) as local:
            if local is None:
                return None
            connection = self._connect(local)
            try:
                return [dict(row) for row in connection.execute(sql, tuple(params)).fetchall()]
            finally:
                connection.close()

    def _table_rows(self, database: str, table: str) -> list[Row] | None:
        """Every row of `table`, None when the database or the table does not exist (one pull)."""
        with self.pulled_database(database) as local:
            if local is None:
                return None
            connection = self._connect(local)
            try:
                if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                      (table,)).fetchone() is None:
                    return None
                return [dict(row) for row in connection.execute(f'SELECT * FROM "{table}"')]
            finally:
                connection.close()

    def table_exists(self, database: str, table: str) -> bool:
        return self._table_rows(database, table) is not None

    def rows(self, database: str, table: str) -> list[Row]:
        """Every row of `table` (``SELECT *``); ValueError when the table does not exist."""
        rows = self._table_rows(database, table)
        if rows is None:
            raise ValueError(f"table {table!r} does not exist in {database}: has its app been opened since it was "
                             "installed or cleared?")
        return rows

    def ensure_table(self, database: str, table: str, app_name: str) -> None:
        """Open the app once if its table does not exist yet, and wait until it does."""
        if self.table_exists(database, table):
            return
        self.launch(app_name)
        created = wait_until(lambda: self.table_exists(database, table), self.table_wait_s, interval_s=0.1)
        self.close_app(app_name)
        if not created:
            raise InfraError(f"{app_name} did not create table {table!r} in {database} within {self.table_wait_s:g} s "
                             "of being opened; is it installed (and set up once)?")

    def change_database(self, database: str, app_name: str, statements: Sequence[tuple[str, Sequence[Any]]],
                        table: str | None = None) -> None:
        """Run (sql, params) statements on a pulled copy and put it back; the app is stopped.
        `table`: the app is opened first if it has not created this table yet."""
        for attempt in (1, 2):
            with self.pulled_database(database) as local:
                connection = self._connect(local) if local is not None else None
                missing = connection is None or (table is not None and connection.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is None)
                if missing:
                    if connection is not None:
                        connection.close()
                    if table is None or attempt == 2:
                        raise MissingResourceError(f"{database} has no table {table!r}: is {app_name} installed?")
                    self.ensure_table(database, table, app_name)
                    continue
                try:
                    connection.execute("PRAGMA synchronous=OFF")  # a scratch copy: no need to wait for the disk
                    for sql, params in statements:
                        connection.execute(sql, tuple(params))
                    connection.commit()
                    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    if connection.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                        connection.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                finally:
                    connection.close()
                self.shell("rm", "-f", database, *(database + s for s in COMPANIONS))
                self.backend.write_file(database, local.read_bytes())
            self.shell_all(("chmod", "777", database), ("am", "force-stop", self.package_of(app_name)))
            return

    def delete_all_rows(self, database: str, table: str, app_name: str) -> None:
        self.change_database(database, app_name, [(f'DELETE FROM "{table}"', ())], table=table)

    def insert_rows(self, database: str, table: str, rows: Sequence[Mapping[str, Any]], app_name: str) -> None:
        """Insert rows (each a {column: value}; columns left out take the table's defaults)."""
        if not rows:
            return
        statements = []
        for row in rows:
            columns = ", ".join(f'"{c}"' for c in row)
            statements.append((f'INSERT INTO "{table}" ({columns}) VALUES ({", ".join("?" * len(row))})',
                               list(row.values())))
        self.change_database(database, app_name, statements, table=table)

    def sqlite_on_device(self, database: str, sql: str) -> str:
        """Run `sql` with the device's own ``sqlite3`` (for databases a running system
        provider holds open, such as the telephony one)."""
        self.ensure_root()
        return self.shell("sqlite3", database, sql)
