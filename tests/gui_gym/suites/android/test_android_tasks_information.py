"""The 25 question-answering tasks on the virtual phone: each app's data is set up over adb,
then the test reads the answer from that data the way an agent reads the app (the events of a
day, the to-dos due, the tracks of a week) and answers; the task scores the answer. A wrong or
missing answer scores 0, so the filler items (which the exclusion conditions keep from
changing the answer) are checked too."""

from __future__ import annotations

import datetime

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db
from gui_gym.suites.android.tasks import TASKS
from gui_gym.suites.android.tasks.information import answer_matches, date_phrasings

CALENDAR = "/data/data/com.simplemobiletools.calendar.pro/databases/events.db"
TODOS = "/data/data/org.tasks/databases/database"
TRACKS = "/data/data/de.dennisguse.opentracks/databases/database.db"
NOTES = "/data/data/net.cozic.joplin/databases/joplin.sqlite"
NOW = datetime.datetime(2023, 10, 15, 15, 34)


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def rows(phone, path, table):
    with db(phone.device, path) as connection:
        return [dict(r) for r in connection.execute(f"SELECT * FROM {table}")]


def utc(seconds) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(tzinfo=None)


def day(text: str) -> datetime.date:
    return datetime.datetime.strptime(text, "%B %d %Y").date()


def clock(text: str) -> datetime.time:
    for fmt in ("%H:%M", "%I:%M%p", "%I%p"):
        try:
            return datetime.datetime.strptime(text, fmt).time()
        except ValueError:
            pass
    raise ValueError(text)


def events(phone):
    return [(utc(e["start_ts"]), utc(e["end_ts"]), e) for e in rows(phone, CALENDAR, "events")]


def titles(found) -> str:
    return ", ".join(e["title"] for e in found)


def calendar_answer(phone, name, p) -> str:
    evs = events(phone)
    if name in ("SimpleCalendarEventsOnDate", "SimpleCalendarAnyEventsOnDate"):
        return titles(e for s, f, e in evs if s.date() <= day(p["date"]) <= f.date())
    if name == "SimpleCalendarNextEvent":
        return min(((s, e) for s, f, e in evs if s >= NOW), key=lambda x: x[0])[1]["title"]
    if name == "SimpleCalendarEventOnDateAtTime":
        moment = datetime.datetime.combine(day(p["date"]), clock(p["time"]))
        return titles(e for s, f, e in evs if s <= moment <= f)
    if name == "SimpleCalendarNextMeetingWithPerson":
        return next(s for s, f, e in evs if p["person"] in e["title"]).strftime("%B %d %Y %H:%M")
    if name == "SimpleCalendarLocationOfEvent":
        return next(e["location"] for s, f, e in evs if e["title"] == p["title"])
    if name == "SimpleCalendarEventsInNextWeek":
        return titles(e for s, f, e in evs if datetime.date(2023, 10, 16) <= s.date() <= datetime.date(2023, 10, 22))
    on_day = sorted(((s, e) for s, f, e in evs if s.date() == day(p["date"])), key=lambda x: x[0])
    if name == "SimpleCalendarFirstEventAfterStartTime":
        return next(e for s, e in on_day if s.time() >= clock(p["time"]))["title"]
    if name == "SimpleCalendarEventsInTimeRange":
        return titles(e for s, e in on_day if clock(p["start_time"]) <= s.time() <= datetime.time(20, 0))
    raise KeyError(name)


def tasks_answer(phone, name, p) -> str:
    todos = [(utc(t["dueDate"] / 1000).date(), t) for t in rows(phone, TODOS, "tasks")]
    if name == "TasksDueOnDate":
        return titles(t for d, t in todos if d == day(p["date"]))
    if name == "TasksHighPriorityTasks":
        return titles(t for d, t in todos if t["importance"] == 0)
    if name == "TasksHighPriorityTasksDueOnDate":
        return titles(t for d, t in todos if t["importance"] == 0 and d == day(p["date"]))
    if name == "TasksDueNextWeek":
        return str(sum(datetime.date(2023, 10, 16) <= d <= datetime.date(2023, 10, 22) for d, t in todos))
    if name == "TasksCompletedTasksForDate":
        return titles(t for d, t in todos if d == day(p["date"]) and t["completed"])
    if name == "TasksIncompleteTasksOnDate":
        return titles(t for d, t in todos if d <= day(p["date"]) and not t["completed"])
    raise KeyError(name)


def sports_answer(phone, name, p) -> str:
    tracks = [(utc(t["starttime"] / 1000).date(), t) for t in rows(phone, TRACKS, "tracks")]
    week = [t for d, t in tracks if datetime.date(2023, 10, 9) <= d <= datetime.date(2023, 10, 15)
            and p.get("category", "?") in t["category"]]
    if name == "SportsTrackerActivitiesOnDate":
        return ", ".join(t["category"] for d, t in tracks if d == day(p["date"]))
    if name == "SportsTrackerActivitiesCountForWeek":
        return str(len(week))
    if name == "SportsTrackerActivityDuration":
        track = next(t for d, t in tracks if d == day(p["date"]) and p["category"] in t["category"])
        return str((track["stoptime"] - track["starttime"]) // 60000)
    if name == "SportsTrackerLongestDistanceActivity":
        return str(round(max(t["totaldistance"] for t in week)))
    if name == "SportsTrackerTotalDurationForCategoryThisWeek":
        return str(sum((t["stoptime"] - t["starttime"]) // 60000 for t in week))
    if name == "SportsTrackerTotalDistanceForCategoryOverInterval":
        return str(round(sum(t["totaldistance"] for d, t in tracks if p["category"] in t["category"]
                             and day(p["start_date"]) <= d <= day(p["end_date"]))))
    raise KeyError(name)


def notes_answer(phone, name, p) -> str:
    folders = {f["id"]: f["title"] for f in rows(phone, NOTES, "folders")}
    notes = rows(phone, NOTES, "notes")
    if name == "NotesTodoItemCount":
        return str(sum(n["is_todo"] == 1 and folders[n["parent_id"]] == p["folder"] for n in notes))
    note = next(n for n in notes if n["title"] == p["title"])
    if name == "NotesIsTodo":
        return str(bool(note["is_todo"]))
    if name == "NotesMeetingAttendeeCount":
        return next(word for word in note["body"].split() if word.isdigit())
    if name == "NotesRecipeIngredientCount":
        line = next(line for line in note["body"].split("\n") if line.endswith(" " + p["ingredient"]))
        return line[2:-len(p["ingredient"]) - 1]
    raise KeyError(name)


ANSWERS = {"calendar": calendar_answer, "tasks": tasks_answer, "sports": sports_answer, "notes": notes_answer}
IR_TASKS = [name for name, cls in TASKS.items() if hasattr(cls, "spec")]


def test_there_are_25():
    assert len(IR_TASKS) == 25


@pytest.mark.parametrize("task_id", IR_TASKS)
def test_the_answer_read_from_the_app_scores(phone, task_id):
    task = phone.task(task_id, seed=7)
    answer = ANSWERS[task.spec.app](phone, task_id, task.params)
    assert phone.score(task) == 0.0  # no answer
    assert phone.score(task, answer) == 1.0, (answer, task.expected())
    assert phone.score(task, answer + ", Something Else") == 0.0
    assert phone.score(task, "not an answer at all") == 0.0


def test_tear_down_empties_the_app(phone):
    task = phone.task("TasksDueOnDate", seed=1)
    assert len(rows(phone, TODOS, "tasks")) == 23
    task.teardown(phone.backend)
    assert rows(phone, TODOS, "tasks") == []


def test_answers_are_compared_as_androidworld_compares_them():
    spec = TASKS["SportsTrackerLongestDistanceActivity"].spec
    assert answer_matches("805", spec.expect, [810.0]) and not answer_matches("800", spec.expect, [810.0])
    spec = TASKS["SimpleCalendarNextMeetingWithPerson"].spec
    expected = [datetime.datetime(2023, 10, 20, 14, 30)]
    assert answer_matches("October 20 2023 14:30", spec.expect, expected)
    assert not answer_matches("Oct 20 2023 2:30pm", spec.expect, expected)
    spec = TASKS["SimpleCalendarEventsOnDate"].spec
    assert answer_matches("team picnic , Pub Quiz", spec.expect, ["Pub Quiz", "Team Picnic"])
    assert not answer_matches("Pub Quiz", spec.expect, ["Pub Quiz", "Team Picnic"])


def test_dates_are_reworded_truthfully():
    assert date_phrasings(datetime.date(2023, 10, 16)) == ["October 16", "October 16 2023", "tomorrow", "Monday",
                                                            "this Monday"]
    assert "the Friday after next" in date_phrasings(datetime.date(2023, 10, 27))
    assert date_phrasings(datetime.date(2023, 10, 15))[-1] == "today"
