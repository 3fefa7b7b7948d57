"""Simple Calendar Pro tasks on the virtual phone: events set up in the app's database over
adb, the agent's additions and deletions written straight into it, scored by AndroidWorld's
event checks."""

from __future__ import annotations

import datetime

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db
from gui_gym.suites.android.tasks import TASKS
from gui_gym.suites.android.tasks.calendar import EVENT_DEFAULTS

DB = "/data/data/com.simplemobiletools.calendar.pro/databases/events.db"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def rows(phone):
    with db(phone.device, DB) as connection:
        return [dict(r) for r in connection.execute("SELECT * FROM events")]


def add(phone, row):
    columns = ["start_ts", "end_ts", "title", *EVENT_DEFAULTS]
    with db(phone.device, DB) as connection:
        connection.execute(f"INSERT INTO events ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                           [row[c] for c in columns])


def when(row):
    return datetime.datetime.fromtimestamp(row["start_ts"], datetime.timezone.utc)


@pytest.mark.parametrize("task_id, day", [
    ("SimpleCalendarAddOneEvent", None), ("SimpleCalendarAddOneEventRelativeDay", None),
    ("SimpleCalendarAddOneEventTomorrow", 16), ("SimpleCalendarAddOneEventInTwoWeeks", 29),
    ("SimpleCalendarAddRepeatingEvent", None)])
def test_add(phone, task_id, day):
    task = phone.task(task_id, seed=1)
    [target] = task.params["row_objects"]
    assert len(rows(phone)) == len(task.params["noise_row_objects"]) and phone.score(task) == 0.0
    assert f"{when(target).hour}h" in task.goal and target["title"] in task.goal
    if day:
        assert when(target).day == day
    if "RelativeDay" in task_id:
        assert task.params["day_of_week"] in task.goal and 16 <= when(target).day <= 21
    add(phone, {**target, "end_ts": target["end_ts"] + 60})  # a minute too long
    assert phone.score(task) == 0.0
    with db(phone.device, DB) as connection:
        connection.execute("DELETE FROM events WHERE id = (SELECT max(id) FROM events)")
    add(phone, {**target, "title": target["title"].lower(), "color": 3})  # fuzzy title; other columns not compared
    assert phone.score(task) == 1.0


def test_the_repeating_event_needs_its_rule(phone):
    seed = next(s for s in range(40) if TASKS["SimpleCalendarAddRepeatingEvent"].from_seed(s).params["repeat_rule"] == "weekly")
    task = phone.task("SimpleCalendarAddRepeatingEvent", seed)
    [target] = task.params["row_objects"]
    assert target["repeat_interval"] == 7 * 24 * 3600 and target["repeat_rule"] == 1 << (when(target).isoweekday() - 1)
    add(phone, {**target, "repeat_rule": 0})
    assert phone.score(task) == 0.0


@pytest.mark.parametrize("task_id, targets", [
    ("SimpleCalendarDeleteEvents", 3), ("SimpleCalendarDeleteEventsOnRelativeDay", 2), ("SimpleCalendarDeleteOneEvent", 1)])
def test_delete(phone, task_id, targets):
    task = phone.task(task_id, seed=2)
    day = task.params["day"]
    one = task_id.endswith("OneEvent")  # other events may share the day, not the hour and title
    on_day = [r["id"] for r in rows(phone) if when(r).day == day and
              (not one or (when(r).hour == task.params["hour"] and r["title"] == task.params["event_title"]))]
    assert len(rows(phone)) == 20 + targets and len(on_day) == targets and phone.score(task) == 0.0
    with db(phone.device, DB) as connection:
        connection.execute(f"DELETE FROM events WHERE id IN ({', '.join('?' * len(on_day))})", on_day)
    assert phone.score(task) == 1.0
