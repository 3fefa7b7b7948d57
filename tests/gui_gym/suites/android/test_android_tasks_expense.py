"""Pro Expense tasks on the virtual phone: rows set up in the app's database over adb, the
agent's changes written straight into that database, scored as AndroidWorld scores them."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db

DB = "/data/data/com.arduia.expense/databases/accounting.db"
COLUMNS = ("name", "amount", "category", "note", "created_date", "modified_date")


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def rows(phone):
    with db(phone.device, DB) as connection:
        return [dict(r) for r in connection.execute("SELECT * FROM expense")]


def execute(phone, sql, params=()):
    with db(phone.device, DB) as connection:
        connection.execute(sql, params)


def add(phone, row):
    execute(phone, f"INSERT INTO expense ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            [row.get(c, 0) for c in COLUMNS])


@pytest.mark.parametrize("task_id, targets, noise", [
    ("ExpenseDeleteSingle", 1, 0), ("ExpenseDeleteMultiple", 3, 0), ("ExpenseDeleteMultiple2", 3, 50)])
def test_delete(phone, task_id, targets, noise):
    task = phone.task(task_id, seed=1)
    assert len(rows(phone)) == targets + noise and phone.score(task) == 0.0
    for target in task.params["row_objects"][:-1]:
        execute(phone, "DELETE FROM expense WHERE name = ?", (target["name"],))
    assert phone.score(task) == 0.0  # not all of them yet
    execute(phone, "DELETE FROM expense WHERE name = ?", (task.params["row_objects"][-1]["name"],))
    assert phone.score(task) == 1.0
    if noise:
        execute(phone, "DELETE FROM expense WHERE expense_id = (SELECT min(expense_id) FROM expense)")
        assert phone.score(task) == 0.0  # a row that should have stayed
    task.teardown(phone.backend)
    assert rows(phone) == []


@pytest.mark.parametrize("task_id, total", [("ExpenseDeleteDuplicates", 7), ("ExpenseDeleteDuplicates2", 42)])
def test_delete_duplicates(phone, task_id, total):
    task = phone.task(task_id, seed=2)
    before = rows(phone)
    target = {k: v for k, v in task.params["row_objects"][0].items()}
    twins = [r["expense_id"] for r in before if all(r[c] == target[c] for c in COLUMNS)]
    assert len(before) == total and len(twins) == 2 and phone.score(task) == 0.0
    if task_id.endswith("2"):  # near-duplicates (another amount) must stay
        assert sum(r["name"] == target["name"] for r in before) == 5
    execute(phone, "DELETE FROM expense WHERE expense_id = ?", (twins[1],))
    assert phone.score(task) == 1.0
    execute(phone, "DELETE FROM expense WHERE expense_id = ?", (twins[0],))
    assert phone.score(task) == 0.0  # no instance left


@pytest.mark.parametrize("task_id", ["ExpenseAddSingle", "ExpenseAddMultiple"])
def test_add(phone, task_id):
    task = phone.task(task_id, seed=3)
    assert len(rows(phone)) == 10 and phone.score(task) == 0.0
    for row in task.params["row_objects"]:
        assert row["name"] in task.goal and f"${row['amount'] / 100}" in task.goal
        add(phone, {**row, "name": row["name"].lower(), "created_date": 1})  # free text is matched fuzzily
    assert phone.score(task) == 1.0
    execute(phone, "UPDATE expense SET amount = amount + 1 WHERE expense_id = (SELECT max(expense_id) FROM expense)")
    assert phone.score(task) == 0.0


def test_add_from_markor(phone):
    task = phone.task("ExpenseAddMultipleFromMarkor", seed=4)
    lines = phone.device.host_path("/sdcard/Documents/Markor/my_expenses.txt").read_text().split("\n")
    assert lines[0] == "name|amount_dollars|category_name|note" and len(lines) == 103
    assert sum(line.endswith(". Reimbursable.") for line in lines) == 2
    for row in task.params["row_objects"]:
        add(phone, row)  # the note as the goal lists it, without the file's " Reimbursable." suffix
    assert phone.score(task) == 1.0


def test_add_from_gallery(phone):
    task = phone.task("ExpenseAddMultipleFromGallery", seed=5)
    pictures = sorted(p.name for p in phone.device.host_path("/sdcard/DCIM").iterdir())
    assert pictures == ["expenses.jpg"] + [f"old_expenses_{n}.jpg" for n in range(10)]
    assert phone.device.host_path("/sdcard/DCIM/expenses.jpg").read_bytes()[:2] == b"\xff\xd8"
    for row in task.params["row_objects"][:2]:
        add(phone, row)
    assert phone.score(task) == 0.0
    add(phone, task.params["row_objects"][2])
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert not any(phone.device.host_path("/sdcard/DCIM").iterdir())
