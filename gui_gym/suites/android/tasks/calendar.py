"""Simple Calendar Pro tasks (AndroidWorld's ``single/calendar``), read from the app's database.

The ``events`` table of ``events.db``: start and end as Unix seconds (the device runs on UTC;
today is Sunday 15 October 2023), title, location, description, repeat interval (seconds
between occurrences) and rule (for weekly repeats, the weekday's bit: Monday 1, Tuesday 2,
... Sunday 64), and the app's bookkeeping columns. Adding checks start, end, title, location
and description (text fuzzily, the repeat fields exactly for the repeating event); deleting
checks that exactly the targets went. Noise events fill October around the targets.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from gui_gym.suites.android.tasks.rows import NOISE_ROWS, ROWS, AddRowsTask, DeleteRowsTask, SQLiteTask, random_rows

APP = "simple calendar pro"
DB_PATH = "/data/data/com.simplemobiletools.calendar.pro/databases/events.db"
TITLE_PREFIXES = ("Meeting with", "Call with", "Workshop on", "Appointment for", "Sync on", "Review of")
PEOPLE = ("Priya", "Marco", "the Board", "Finance", "Dr. Okafor", "Sales")
SUBJECTS = ("Project Atlas", "Quarterly Report", "Hiring Plan", "Launch Campaign")
ACTIONS = ("discuss", "finalize", "plan", "celebrate", "prepare for", "review", "explore", "clarify", "organize",
           "decide on")
TOPICS = ("the roadmap", "pricing options", "the yearly budget", "the product launch", "team roles",
          "customer feedback", "the contract terms", "the software release", "our goals")
NOTES = ("Please bring your laptop.", "Confirm attendance by noon.", "Let's start on time.",
         "Expect a lively discussion.", "Coffee will be provided.")
REPEATS = {"daily": 24 * 3600, "weekly": 7 * 24 * 3600}
EVENT_DEFAULTS = {"location": "", "description": "", "repeat_interval": 0, "repeat_rule": 0, "reminder_1_minutes": -1,
                  "reminder_2_minutes": -1, "reminder_3_minutes": -1, "reminder_1_type": 0, "reminder_2_type": 0,
                  "reminder_3_type": 0, "repeat_limit": 0, "repetition_exceptions": "[]", "attendees": "",
                  "import_id": "", "time_zone": "UTC", "flags": 0, "event_type": 1, "parent_id": 0, "last_updated": 0,
                  "source": "imported-ics", "availability": 0, "color": 0, "type": 0}
"""The columns an imported event gets besides start, end and title (as AndroidWorld writes them)."""


def event(start_ts: int, end_ts: int, title: str, **fields: Any) -> dict[str, Any]:
    return {"start_ts": start_ts, "end_ts": end_ts, "title": title, **EVENT_DEFAULTS, **fields}


def start(row: dict[str, Any]) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(row["start_ts"], datetime.timezone.utc)


def october_ts(rng: random.Random, start_day: int = 15, end_day: int = 31, start_hour: int = 0) -> int:
    """A random hour of a random day of October 2023 (the device's month), in Unix seconds."""
    when = datetime.datetime(2023, 10, rng.randint(start_day, end_day), rng.randint(start_hour, 23),
                             tzinfo=datetime.timezone.utc)
    return int(when.timestamp())


def event_title(rng: random.Random) -> str:
    prefix = rng.choice(TITLE_PREFIXES)
    return f"{prefix} {rng.choice(PEOPLE) if 'with' in prefix else rng.choice(SUBJECTS)}"


def event_description(rng: random.Random) -> str:
    text = f"We will {rng.choice(ACTIONS)} {rng.choice(TOPICS)}."
    return text + f" {rng.choice(NOTES)}" if rng.choice((False, True)) else text


def random_event(rng: random.Random, start_ts: int) -> dict[str, Any]:
    end_ts = start_ts + rng.choice((15, 30, 45, 60)) * 60
    return event(start_ts, end_ts, event_title(rng), description=event_description(rng))


def noise_events(rng: random.Random, targets, n: int, keep=None) -> list[dict[str, Any]]:
    if keep is None:
        titles = {t["title"] for t in targets}
        keep = lambda candidate: candidate["title"] not in titles  # noqa: E731
    return random_rows(rng, n, lambda r: random_event(r, october_ts(r, start_day=1)), keep=keep)


def _goal_fields(row: dict[str, Any]) -> dict[str, Any]:
    when = start(row)
    return {"year": 2023, "month": 10, "day": when.day, "hour": when.hour,
            "duration_mins": (row["end_ts"] - row["start_ts"]) // 60, "event_title": row["title"],
            "event_description": row["description"], "day_of_week": when.strftime("%A")}


class _Calendar(SQLiteTask):
    app_names = (APP,)
    db_path, table, db_key, db_app = DB_PATH, "events", "id", APP


class SimpleCalendarAddOneEvent(_Calendar, AddRowsTask):
    name, complexity, n_rows = "SimpleCalendarAddOneEvent", 3.4, 1
    template = ("In Simple Calendar Pro, create a calendar event on {year}-{month}-{day} at {hour}h with the title "
                "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} "
                "mins.")
    compare_fields = ("start_ts", "end_ts", "title", "location", "description", "repeat_rule", "repeat_interval")
    free_form_fields = ("title", "location", "description")

    @classmethod
    def target_start(cls, rng: random.Random) -> int:
        return october_ts(rng)

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        target = random_event(rng, cls.target_start(rng))
        return {**_goal_fields(target), ROWS: [target], NOISE_ROWS: noise_events(rng, [target], rng.randint(0, 20))}


class SimpleCalendarAddOneEventRelativeDay(SimpleCalendarAddOneEvent):
    name = "SimpleCalendarAddOneEventRelativeDay"
    template = ("In Simple Calendar Pro, create a calendar event for this {day_of_week} at {hour}h with the title "
                "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} "
                "mins.")

    @classmethod
    def target_start(cls, rng: random.Random) -> int:
        return october_ts(rng, 16, 21)  # Monday 16 to Saturday 21


class SimpleCalendarAddOneEventTomorrow(SimpleCalendarAddOneEvent):
    name = "SimpleCalendarAddOneEventTomorrow"
    template = ("In Simple Calendar Pro, create a calendar event for tomorrow at {hour}h with the title '{event_title}' "
                "and the description '{event_description}'. The event should last for {duration_mins} mins.")

    @classmethod
    def target_start(cls, rng: random.Random) -> int:
        return october_ts(rng, 16, 16)


class SimpleCalendarAddOneEventInTwoWeeks(SimpleCalendarAddOneEvent):
    name = "SimpleCalendarAddOneEventInTwoWeeks"
    template = ("In Simple Calendar Pro, create a calendar event in two weeks from today at {hour}h with the title "
                "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} "
                "mins.")

    @classmethod
    def target_start(cls, rng: random.Random) -> int:
        return october_ts(rng, 29, 29)


class SimpleCalendarAddRepeatingEvent(SimpleCalendarAddOneEvent):
    name = "SimpleCalendarAddRepeatingEvent"
    template = ("In Simple Calendar Pro, create a recurring calendar event titled '{event_title}' starting on "
                "{year}-{month}-{day} at {hour}h. The event recurs {repeat_rule}, forever, and lasts for {duration_mins} "
                "minutes each occurrence. The event description should be '{event_description}'.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        target = random_event(rng, cls.target_start(rng))
        repeat = rng.choice(list(REPEATS))
        rule = 1 << (start(target).isoweekday() - 1) if repeat == "weekly" else 0
        target = {**target, "repeat_interval": REPEATS[repeat], "repeat_rule": rule}
        return {**_goal_fields(target), ROWS: [target], NOISE_ROWS: noise_events(rng, [target], rng.randint(0, 20)),
                "repeat_rule": repeat}


class SimpleCalendarDeleteEvents(_Calendar, DeleteRowsTask):
    """Every event of one day must go (three, among 20 on other days)."""

    name, complexity, n_rows, n_rows_noise = "SimpleCalendarDeleteEvents", 1.4, 3, 20
    template = "In Simple Calendar Pro, delete all the calendar events on {year}-{month}-{day}"

    @classmethod
    def day_start(cls, rng: random.Random) -> int:
        return october_ts(rng)

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        day = start(random_event(rng, cls.day_start(rng))).day
        targets = [random_event(rng, october_ts(rng, day, day)) for _ in range(cls.n_rows)]
        days = {start(t).day for t in targets}
        noise = noise_events(rng, targets, cls.n_rows_noise, keep=lambda c: start(c).day not in days)
        when = datetime.date(2023, 10, day)
        return {"year": 2023, "month": 10, "day": day, "day_of_week": when.strftime("%A"), ROWS: targets,
                NOISE_ROWS: noise}


class SimpleCalendarDeleteEventsOnRelativeDay(SimpleCalendarDeleteEvents):
    name, complexity, n_rows = "SimpleCalendarDeleteEventsOnRelativeDay", 1.2, 2
    template = "In Simple Calendar Pro, delete all events scheduled for this {day_of_week}."

    @classmethod
    def day_start(cls, rng: random.Random) -> int:
        return october_ts(rng, 16, 21)


class SimpleCalendarDeleteOneEvent(SimpleCalendarDeleteEvents):
    name, complexity, n_rows = "SimpleCalendarDeleteOneEvent", 1.2, 1
    template = ("In Simple Calendar Pro, delete the calendar event on {year}-{month}-{day} at {hour}h with the title "
                "'{event_title}'")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        target = random_event(rng, october_ts(rng))
        noise = noise_events(rng, [target], cls.n_rows_noise,
                             keep=lambda c: start(c) != start(target) and c["title"] != target["title"])
        return {**_goal_fields(target), ROWS: [target], NOISE_ROWS: noise}


TASKS = (SimpleCalendarAddOneEvent, SimpleCalendarAddOneEventRelativeDay, SimpleCalendarAddOneEventTomorrow,
         SimpleCalendarAddOneEventInTwoWeeks, SimpleCalendarAddRepeatingEvent, SimpleCalendarDeleteEvents,
         SimpleCalendarDeleteEventsOnRelativeDay, SimpleCalendarDeleteOneEvent)
