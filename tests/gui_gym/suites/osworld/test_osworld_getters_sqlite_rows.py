"""An SQLite file the agent left, read by `table_rows` within bounds: a real table's rows as
sqlite3 gives them; a view, a virtual table, rows made on the fly, a query that runs past the
deadline, refused; what is not there, an sqlite3 error (OSWorld's None)."""

from __future__ import annotations

import sqlite3

import pytest

from gui_gym.errors import LimitExceededError
from gui_gym.suites.osworld.getters import sqlite_rows
from gui_gym.suites.osworld.getters.sqlite_rows import from_answer, table_rows


def database(tmp_path, script: str) -> str:
    path = tmp_path / "Cookies"
    db = sqlite3.connect(path)
    db.executescript(script)
    db.close()
    return str(path)


def test_a_real_table_reads_as_sqlite3_gives_it(tmp_path):
    path = database(tmp_path, "CREATE TABLE cookies (creation_utc, host_key, encrypted_value BLOB); "
                              "INSERT INTO cookies VALUES (1, '.amazon.com', x'00ff10'), (2, '.a.org', NULL);")
    assert from_answer(table_rows(path, "cookies", "*")) == [(1, ".amazon.com", b"\x00\xff\x10"), (2, ".a.org", None)]
    assert from_answer(table_rows(path, "Cookies", "host_key")) == [(".amazon.com",), (".a.org",)]


@pytest.mark.parametrize("script, message", [
    ("CREATE VIEW cookies AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i, i FROM n;",
     "cookies is not a plain table but 'CREATE VIEW"),
    ("CREATE VIRTUAL TABLE cookies USING rtree(id, a, b);", "cookies is not a plain table but 'CREATE VIRTUAL TABLE"),
    ("CREATE TABLE cookies (i, host_key GENERATED ALWAYS AS (zeroblob(1000000)) VIRTUAL); INSERT INTO cookies (i) "
     "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 500) SELECT k FROM n;",
     "cookies holds over 500000 values or 16777216 bytes"),
    ("CREATE TABLE cookies (i, host_key GENERATED ALWAYS AS (zeroblob(5000000)) VIRTUAL); INSERT INTO cookies VALUES (1);",
     "cookies holds a value over 4194304 bytes"),
])
def test_what_would_run_the_files_own_query_or_make_rows_on_the_fly_is_refused(tmp_path, script, message):
    """The attacks: a 4 KiB file whose table is a view over an endless query (it never
    returned), 500 rows of 1 MB made on the fly by a generated column (+955 MiB)."""
    with pytest.raises(LimitExceededError, match=message.replace("(", r"\(")):
        table_rows(database(tmp_path, script), "cookies", "*")


def test_a_slow_table_stops_at_the_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_rows, "DEADLINE_S", 0.2)
    path = database(tmp_path, "CREATE TABLE urls (url, title, last_visit_time GENERATED ALWAYS AS "
                              "(length(hex(zeroblob(1000000 + url)))) VIRTUAL); INSERT INTO urls (url) "
                              "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 1000) SELECT k FROM n;")
    with pytest.raises(LimitExceededError, match="reading urls ran past its 0.2 s deadline"):
        table_rows(path, "urls", "url, title, last_visit_time")


def test_what_is_not_there_is_an_sqlite3_error(tmp_path):
    with pytest.raises(sqlite3.OperationalError, match="no such table: cookies"):
        table_rows(database(tmp_path, "CREATE TABLE other (x);"), "cookies", "*")
    (tmp_path / "junk").write_bytes(b"SQLite format 3\0" + bytes(4096))
    with pytest.raises(sqlite3.DatabaseError):
        table_rows(str(tmp_path / "junk"), "cookies", "*")
    with pytest.raises(ValueError, match="expected a table name and column names"):
        table_rows(str(tmp_path / "junk"), "cookies; DROP TABLE x", "*")
