"""The apps behind the question-answering tasks: how their items become database rows, and
the random filler items around them (AndroidWorld's calendar, Tasks, OpenTracks and Joplin
utilities for its information-retrieval tasks).

Each set-up empties the app's tables, turns the task's items into rows, adds filler rows (75
events, 20 to-dos, 20 activities, 100 notes) that do not meet all the task's exclusion
conditions, shuffles, and inserts. Dates and times are UTC. OpenTracks shows distances in miles
to two decimals, so an activity's distance is rounded through miles and back, in the row and
in the item the answer is read from.
"""

from __future__ import annotations

import datetime
import random
import uuid
from typing import Any, Sequence

from gui_gym.suites.android.device import DEVICE_TIME, Device
from gui_gym.suites.android.tasks import calendar
from gui_gym.suites.android.tasks.information_fields import DATE_FORMAT, Condition, compare, parse_date, parse_time

MILES_TO_METERS = 1609.34
DAY_MS = 24 * 3600 * 1000


def timestamp_s(date_text: str, time_text: str | None) -> int:
    """A "<Month> <day> <year>" date at a time ("14:30", "2:30pm"; midnight if none), UTC."""
    date = parse_date(date_text)
    time = parse_time(time_text) if time_text else datetime.time(0, 0)
    return int(datetime.datetime.combine(date, time, datetime.timezone.utc).timestamp())


def random_datetime(rng: random.Random, days: int = 14, center: datetime.datetime = DEVICE_TIME) -> datetime.datetime:
    """A minute within a window of `days` days centred on `center`."""
    return center - datetime.timedelta(days=days) / 2 + datetime.timedelta(minutes=rng.randrange(days * 24 * 60))


def parse_duration_s(text: str) -> int:
    """"90 min", "1.5 hours", "2 h", "45min" -> seconds (hours if it holds an h, else minutes)."""
    if "h" in text:
        return int(3600 * float(text[: text.find("h")].strip()))
    if "m" in text:
        return 60 * int(text[: text.find("m")].strip())
    raise ValueError(f"duration {text!r} is neither hours nor minutes")


def _naive(ts_s: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ts_s, datetime.timezone.utc).replace(tzinfo=None)


def _insert_all(device: Device, database: str, app: str, tables: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> None:
    statements = []
    for table, rows in tables:
        for row in rows:
            columns = ", ".join(f'"{c}"' for c in row)
            statements.append((f'INSERT INTO "{table}" ({columns}) VALUES ({", ".join("?" * len(row))})',
                               list(row.values())))
    if statements:
        device.change_database(database, app, statements, table=tables[0][0])
    device.close_app(app)


# ---- Simple Calendar Pro -----------------------------------------------------------------------

class CalendarSetup:
    db, app, table = calendar.DB_PATH, calendar.APP, "events"

    def clear(self, device: Device) -> None:
        device.delete_all_rows(self.db, self.table, self.app)

    @staticmethod
    def row(item: dict[str, str]) -> dict[str, Any]:
        start = timestamp_s(item["start_date"], item.get("start_time"))
        duration = parse_duration_s(item["duration"]) if item.get("duration") else 1800
        return calendar.event(start, start + duration, item.get("title", ""), location=item.get("location", ""),
                              description=item.get("description", ""))

    @staticmethod
    def allowed(item: dict[str, str], conditions: Sequence[Condition]) -> bool:
        """False when the event meets every condition. A start date and a start time both
        given as equalities form one moment; an equality holds when the event spans the value."""
        if not conditions:
            return True
        exact = {c.field: c for c in conditions if c.op == "eq"}
        moment = None
        if "start_date" in exact and "start_time" in exact:
            moment = datetime.datetime.combine(parse_date(exact["start_date"].value), parse_time(exact["start_time"].value))
        start = datetime.datetime.combine(parse_date(item["start_date"]), datetime.datetime.strptime(
            item["start_time"], "%H:%M").time())
        end = start + datetime.timedelta(seconds=parse_duration_s(item["duration"]))
        met = True
        for condition in conditions:
            if condition.field in ("start_date", "start_time"):
                if condition.field == "start_date":
                    value = moment or parse_date(condition.value)
                    first, last = (start, end) if moment else (start.date(), end.date())
                else:
                    value = moment or parse_time(condition.value)
                    first, last = (start, end) if moment else (start.time(), end.time())
                if condition.op == "eq":
                    met = met and first <= value <= last
                else:
                    met = met and (compare(first, condition.op, value) or compare(last, condition.op, value))
            elif condition.field == "title":
                met = met and compare(item["title"].lower(), condition.op, condition.value.lower())
        return not met

    def filler(self, rng: random.Random, conditions: Sequence[Condition]) -> dict[str, Any]:
        for _ in range(100):
            when = random_datetime(rng, days=30)
            minutes = rng.choice((15, 30, 45, 60))
            item = {"start_date": when.strftime(DATE_FORMAT), "start_time": when.strftime("%H:%M"),
                    "duration": f"{minutes} m", "title": calendar.event_title(rng),
                    "description": calendar.event_description(rng)}
            if self.allowed(item, conditions):
                start = int(when.timestamp())
                return calendar.event(start, start + minutes * 60, item["title"], description=item["description"])
        raise ValueError("could not draw a calendar event outside the exclusion conditions")

    def setup(self, device: Device, items, conditions, rng: random.Random) -> None:
        self.clear(device)
        rows = [self.row(i) for i in items] + [self.filler(rng, conditions) for _ in range(75)]
        rng.shuffle(rows)
        _insert_all(device, self.db, self.app, [(self.table, rows)])


# ---- Tasks -------------------------------------------------------------------------------------

TODOS = {
    "Buy Groceries": "Milk, oats, apples and coffee beans. Snacks for the weekend.",
    "Send Project Update": "Summarise progress and risks for the steering group.",
    "Book Eye Test": "Overdue by six months. Call the optician on Elm Road.",
    "Repot the Ficus": "Use the larger pot in the shed and fresh compost.",
    "Plan Weekly Meals": "Cook lentils and rice on Sunday, freeze half.",
    "Compare Holiday Rentals": "Somewhere near a lake, with a kitchen.",
    "Finish Reading 'Dune'": "Two chapters left. Return it to the library after.",
    "Call Uncle Ray": "Ask about the family reunion dates.",
    "Replace Smoke Alarm Battery": "The hallway one beeps at night.",
    "Draft Newsletter": "Three stories and the events calendar.",
    "Renew Passport": "Expires in spring. Photos first.",
    "Sort the Garage": "Donate the old bikes and the paint tins.",
    "File Travel Expenses": "Receipts are in the blue folder.",
    "Prepare Sprint Demo": "Record the new onboarding flow.",
    "Practice Piano": "Twenty minutes of scales a day.",
    "Clear Inbox": "Archive newsletters, answer the two supplier mails.",
    "Defrost the Freezer": "Move food to the cool box first.",
    "Set Up Savings Plan": "Automatic transfer on payday.",
    "Back Up Photos": "Copy the phone's camera roll to the external drive.",
    "Walk the Neighbour's Dog": "Saturday morning, keys under the mat.",
}


class TasksSetup:
    db, app, table = "/data/data/org.tasks/databases/database", "tasks", "tasks"

    def clear(self, device: Device) -> None:
        device.delete_all_rows(self.db, self.table, self.app)
        device.close_app(self.app)

    @staticmethod
    def row(item: dict[str, str], rng: random.Random) -> dict[str, Any]:
        due = timestamp_s(item["due_date"], item.get("due_time")) * 1000 if item.get("due_date") else 0
        created = due - 7 * 3600  # AndroidWorld's "a week before": seconds taken from milliseconds, as it does
        hide = timestamp_s(item["hide_until_date"], item.get("hide_until_time")) * 1000 if item.get("hide_until_date") else 0
        done = timestamp_s(item["completed_date"], item.get("completed_time")) * 1000 if item.get("completed_date") else 0
        return {"title": item.get("title", ""), "importance": int(item["importance"]) if item.get("importance") else 2,
                "dueDate": due, "hideUntil": hide, "created": created, "modified": created, "completed": done,
                "deleted": 0, "notes": item.get("notes"), "estimatedSeconds": 0, "elapsedSeconds": 0, "timerStart": 0,
                "notificationFlags": 0, "lastNotified": 0, "recurrence": None, "repeat_from": 0, "calendarUri": None,
                "remoteId": str(uuid.UUID(int=rng.getrandbits(128)).int), "collapsed": 0, "parent": 0, "order": None,
                "read_only": 0}

    @staticmethod
    def allowed(row: dict[str, Any], conditions: Sequence[Condition]) -> bool:
        if not conditions:
            return True
        met = True
        for condition in conditions:
            if condition.field == "due_date":
                met = met and compare(_naive(row["dueDate"] / 1000).date(), condition.op, parse_date(condition.value))
            elif condition.field == "completed_date":
                if condition.value == "0":  # Tasks marks "not completed" with 0
                    met = met and compare(int(row["completed"]), condition.op, 0)
                else:
                    met = met and compare(_naive(row["completed"] / 1000).date(), condition.op, parse_date(condition.value))
            elif condition.field == "title":
                met = met and compare(row["title"].lower(), condition.op, condition.value.lower())
            elif condition.field == "importance":
                met = met and compare(int(row["importance"]), condition.op, int(condition.value))
        return not met

    def filler(self, rng: random.Random, conditions: Sequence[Condition]) -> dict[str, Any]:
        for _ in range(10_000):
            title = rng.choice(list(TODOS))
            item = {"title": title, "importance": str(rng.choice((0, 1, 2, 3)))}
            if rng.choice((True, False)):
                item["notes"] = TODOS[title]
            due = random_datetime(rng)
            hide = random_datetime(rng, days=5, center=due - datetime.timedelta(days=6))
            item.update(due_date=due.strftime(DATE_FORMAT), due_time=due.strftime("%H:%M"),
                        hide_until_date=hide.strftime(DATE_FORMAT), hide_until_time=hide.strftime("%H:%M"))
            if rng.choice((True, False)):
                done = random_datetime(rng, center=DEVICE_TIME - datetime.timedelta(days=14))
                item.update(completed_date=done.strftime(DATE_FORMAT), completed_time=done.strftime("%H:%M"))
            row = self.row(item, rng)
            if self.allowed(row, conditions):
                return row
        raise ValueError("could not draw a to-do outside the exclusion conditions")

    def setup(self, device: Device, items, conditions, rng: random.Random) -> None:
        self.clear(device)
        rows = [self.row(i, rng) for i in items] + [self.filler(rng, conditions) for _ in range(20)]
        rng.shuffle(rows)
        _insert_all(device, self.db, self.app, [(self.table, rows)])


# ---- OpenTracks --------------------------------------------------------------------------------

ACTIVITIES = {
    "biking": ("Hill Loop", "Canal Ride", "Gravel Route", "Commute Ride", "Forest Trail Ride"),
    "running": ("Park Run", "Track Intervals", "Tempo Run", "River Run", "Recovery Jog"),
    "hiking": ("Ridge Walk", "Summit Hike", "Valley Trek", "Waterfall Trail", "Moor Hike"),
    "swimming": ("Pool Laps", "Lake Swim", "Sea Swim", "Swim Drills", "Open Water Session"),
    "walking": ("Evening Walk", "Lunch Stroll", "Dog Walk", "City Walk", "Sunday Walk"),
    "skiing": ("Piste Day", "Ski Touring", "Cross-country Loop", "Morning Slopes", "Powder Run"),
    "rowing": ("Lake Row", "River Row", "Erg Session", "Sculling Practice", "Harbour Row"),
    "surfing": ("Dawn Patrol", "Beach Break", "Reef Session", "Evening Waves", "Point Break"),
}


def round_through_miles(meters: float) -> int:
    """A distance as OpenTracks shows it (miles to two decimals), back in whole meters."""
    return round(round(meters / MILES_TO_METERS, 2) * MILES_TO_METERS)


class SportsSetup:
    db, app, table = "/data/data/de.dennisguse.opentracks/databases/database.db", "open tracks sports tracker", "tracks"

    def clear(self, device: Device) -> None:
        device.delete_all_rows(self.db, self.table, self.app)
        device.close_app(self.app)

    @staticmethod
    def row(item: dict[str, str], rng: random.Random) -> dict[str, Any]:
        """The track row; `item`'s distance is rewritten to the rounded value (it is what the
        app shows and what the answer is read from)."""
        start = timestamp_s(item["start_date"], item.get("start_time")) * 1000
        distance = round_through_miles(float(item["total_distance"]))
        item["total_distance"] = str(distance)
        stop = start + int(float(item["duration"]) * 60 * 1000)
        speed = float(distance) / ((stop - start) * 1000)  # AndroidWorld's units; the app recomputes speeds
        category = item.get("category", "")
        return {"name": item.get("name", ""), "description": item.get("description", ""), "category": category,
                "activity_type": category, "starttime": start, "stoptime": stop, "numpoints": 0,
                "totaldistance": float(distance), "totaltime": stop - start, "movingtime": stop - start,
                "avgspeed": speed, "avgmovingspeed": speed, "maxspeed": 0.0, "minelevation": 0.0, "maxelevation": 0.0,
                "elevationgain": int(item["elevation_gain"]) if item.get("elevation_gain") else 0, "icon": None,
                "uuid": rng.randbytes(16), "elevationloss": int(item["elevation_loss"]) if item.get("elevation_loss") else 0,
                "starttime_offset": 0}

    @staticmethod
    def allowed(row: dict[str, Any], conditions: Sequence[Condition]) -> bool:
        if not conditions:
            return True
        met = True
        for condition in conditions:
            if condition.field == "start_date":
                met = met and compare(_naive(row["starttime"] / 1000).date(), condition.op, parse_date(condition.value))
            elif condition.field == "category":
                met = met and compare(row["category"].lower(), condition.op, condition.value.lower())
            elif condition.field == "total_distance":
                met = met and compare(row["totaldistance"], condition.op,
                                      float(round_through_miles(float(condition.value))))
        return not met

    def filler(self, rng: random.Random, conditions: Sequence[Condition]) -> dict[str, Any]:
        for _ in range(10_000):
            category = rng.choice(list(ACTIVITIES))
            when = random_datetime(rng, center=DEVICE_TIME - datetime.timedelta(days=7))
            item = {"category": category, "name": rng.choice(ACTIVITIES[category]),
                    "start_date": when.strftime(DATE_FORMAT), "start_time": when.strftime("%H:%M"),
                    "duration": str(rng.randrange(1, 60 * 5)), "total_distance": str(rng.randint(0, 20000)),
                    "elevation_gain": str(rng.randint(0, 500)), "elevation_loss": str(rng.randint(0, 500))}
            row = self.row(item, rng)
            if self.allowed(row, conditions):
                return row
        raise ValueError("could not draw an activity outside the exclusion conditions")

    def setup(self, device: Device, items, conditions, rng: random.Random) -> None:
        self.clear(device)
        rows = [self.row(i, rng) for i in items] + [self.filler(rng, conditions) for _ in range(20)]
        rng.shuffle(rows)
        _insert_all(device, self.db, self.app, [(self.table, rows)])


# ---- Joplin ------------------------------------------------------------------------------------

NOTES = {
    "Recipes": (("Lemon Rice", "Ingredients:\nRice, lemon zest, butter, peas\nInstructions:\nCook rice, stir the rest in."),
                ("Green Smoothie", "Ingredients:\nSpinach, banana, oat milk\nInstructions:\nBlend until smooth."),
                ("Tomato Omelette", "Ingredients:\nEggs, tomato, chives\nInstructions:\nWhisk, pour, fold.")),
    "Tasks": (("Fix the Gate", "Buy two hinges and oil the latch."), ("Tax Papers", "Collect payslips and receipts."),
              ("Car Wash", "Inside and out before the trip.")),
    "Meeting Notes": (("Design Review", "Agreed on the new colour scheme. Follow up on icons."),
                      ("Budget Sync", "Cut travel costs by ten percent.")),
    "Personal": (("Birthday Wishlist", "Headphones, a cookbook, hiking socks."),
                 ("Gratitude List", "Sunny mornings, good friends, quiet evenings.")),
    "Work": (("Onboarding Checklist", "Laptop, accounts, first-week buddy."),
             ("Quarter Goals", "Ship the export feature and cut build times.")),
    "School": (("Chemistry Revision", "Moles, bonding and the periodic table."),
               ("Essay Plan", "Intro, three arguments, counterpoint, conclusion.")),
    "Home": (("Cleaning Rota", "Kitchen on Mondays, bathroom on Thursdays."),
             ("Paint Colours", "Sage for the hall, white for the ceiling.")),
    "Projects": (("Bird Feeder Build", "Cedar planks, screws, a roof hinge."),
                 ("Website Refresh", "New photos, shorter about page.")),
    "Ideas": (("App Idea", "A plant-watering reminder that reads the weather."),
              ("Story Prompt", "A lighthouse keeper who finds a map.")),
    "Health": (("Stretch Routine", "Hamstrings, hips, shoulders: ten minutes."),
               ("Sleep Log", "Aim for lights out by eleven.")),
    "Travel": (("Packing List", "Adapter, rain jacket, charger, passport."),
               ("Rome Day Plan", "Forum in the morning, Trastevere for dinner.")),
    "Finance": (("Monthly Budget", "Rent, food, savings, fun money."),
                ("Subscriptions", "Cancel the unused streaming one.")),
}
YESTERDAY_MS = int((DEVICE_TIME - datetime.timedelta(days=1)).timestamp() * 1000)


class NotesSetup:
    db, app = "/data/data/net.cozic.joplin/databases/joplin.sqlite", "joplin"
    tables = ("folders", "notes", "notes_normalized")

    def clear(self, device: Device) -> None:
        device.change_database(self.db, self.app, [(f'DELETE FROM "{t}"', ()) for t in self.tables], table="notes")
        device.close_app(self.app)

    @staticmethod
    def note(item: dict[str, str], folder_id: str, rng: random.Random) -> dict[str, Any]:
        is_todo = item.get("is_todo", "").lower() == "true"
        return {"id": uuid.UUID(int=rng.getrandbits(128)).hex, "parent_id": folder_id, "title": item.get("title", ""),
                "body": item.get("body", ""), "created_time": YESTERDAY_MS, "updated_time": YESTERDAY_MS,
                "is_todo": int(is_todo), "todo_completed": int(item.get("todo_completed", "").lower() == "true"),
                "user_created_time": YESTERDAY_MS, "user_updated_time": YESTERDAY_MS}

    @staticmethod
    def allowed(note: dict[str, Any], folder: str, conditions: Sequence[Condition]) -> bool:
        if not conditions:
            return True
        met = True
        for condition in conditions:
            if condition.field == "title":
                met = met and compare(note["title"].lower(), condition.op, condition.value.lower())
            elif condition.field == "folder":
                met = met and compare(folder.lower(), condition.op, condition.value.lower())
            elif condition.field in ("is_todo", "todo_completed"):
                met = met and compare(note[condition.field], condition.op, int(condition.value.lower() == "true"))
        return not met

    def setup(self, device: Device, items, conditions, rng: random.Random) -> None:
        self.clear(device)
        folders: dict[str, str] = {}

        def folder_id(name: str) -> str:
            if name not in folders:
                folders[name] = uuid.UUID(int=rng.getrandbits(128)).hex
            return folders[name]
        relevant = [item["folder"] for item in items]
        notes: list[dict[str, Any]] = []
        while len(notes) < 100:
            folder = rng.choice(relevant) if rng.random() < 0.3 else rng.choice(list(NOTES))
            title, body = rng.choice(NOTES[folder])
            todo = rng.choice(("True", "False"))
            candidate = self.note({"title": title, "body": body, "is_todo": todo,
                                   "todo_completed": rng.choice(("True", "False"))}, folder_id(folder), rng)
            if self.allowed(candidate, folder, conditions):
                notes.append(candidate)
        notes += [self.note(item, folder_id(item["folder"]), rng) for item in items]
        rng.shuffle(notes)
        folder_rows = [{"id": fid, "title": name, "created_time": YESTERDAY_MS, "updated_time": YESTERDAY_MS,
                        "user_created_time": YESTERDAY_MS, "user_updated_time": YESTERDAY_MS}
                       for name, fid in folders.items()]
        normalized = [{"id": n["id"], "parent_id": n["parent_id"], "title": n["title"].lower(), "body": n["body"],
                       "is_todo": n["is_todo"], "todo_completed": n["todo_completed"],
                       "user_created_time": n["user_created_time"], "user_updated_time": n["user_updated_time"]}
                      for n in notes]
        _insert_all(device, self.db, self.app, [("folders", folder_rows), ("notes", notes),
                                                ("notes_normalized", normalized)])


SETUPS = {"calendar": CalendarSetup(), "tasks": TasksSetup(), "sports": SportsSetup(), "notes": NotesSetup()}
