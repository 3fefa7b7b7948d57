"""Reading and changing one calendar state: lookups, the event form's validation (end after
start, known attendees, no double-booked room) and create/update/delete over single events
and whole series, and the room booking flow's rules (the free slots of a room's day, whether
a length fits, the booking itself). The app's handlers change the state only through here."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from gui_gym.suites.localweb.apps.calendar.data import (BOOK_END, BOOK_START, DAY_END, DAY_START, REPEATS, RSVPS, TODAY,
                                                        hhmm, minutes, new_event, overlaps, room_free)

TITLE_MAX_CHARS = 80
MAX_OCCURRENCES = 12
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class CalendarError(ValueError):
    """Refused input; `errors` maps each form field to the message shown under it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(errors.values()))
        self.errors = errors


def find(state: dict[str, Any], event_id: Any) -> dict[str, Any] | None:
    return next((e for e in state["events"] if str(e["id"]) == str(event_id)), None)


def room(state: dict[str, Any], room_id: str) -> dict[str, Any] | None:
    return next((r for r in state["rooms"] if r["id"] == room_id), None)


def person(state: dict[str, Any], email: str) -> dict[str, Any]:
    """A colleague by address (the user included)."""
    if email == state["me"]["email"]:
        return state["me"]
    return next((p for p in state["people"] if p["email"] == email), {"name": email, "email": email})


def day_events(state: dict[str, Any], day: str) -> list[dict[str, Any]]:
    return sorted((e for e in state["events"] if e["date"] == day), key=lambda e: (e["start"], e["end"], e["id"]))


def series_events(state: dict[str, Any], series: int | None) -> list[dict[str, Any]]:
    return sorted((e for e in state["events"] if series is not None and e["series"] == series), key=lambda e: e["date"])


def time_options() -> list[str]:
    return [hhmm(m) for m in range(minutes(DAY_START), minutes(DAY_END) + 1, 30)]


def long_day(day: str) -> str:
    moment = date.fromisoformat(day)
    return f"{moment:%A}, {moment:%B} {moment.day}, {moment.year}"


def parse_day(value: Any) -> str | None:
    """A YYYY-MM-DD date of 2026, or None."""
    text = value.strip() if isinstance(value, str) else ""
    if not _DAY.match(text):
        return None
    try:
        moment = date.fromisoformat(text)
    except ValueError:
        return None
    return text if moment.year == 2026 else None


def suggestions(state: dict[str, Any], query: str, limit: int = 6) -> list[dict[str, str]]:
    query = query.strip().lower()
    return [{"label": f"{p['name']} <{p['email']}>", "email": p["email"]} for p in state["people"]
            if query and (p["name"].lower().startswith(query) or any(w.startswith(query) for w in p["name"].lower().split()))
            ][:limit]


def conflict(state: dict[str, Any], room_id: str, day: str, start: str, end: str, ignore: set[int]) -> str | None:
    """The message for a booking of `room_id` that overlaps another event, or None."""
    if not room_id:
        return None
    for other in day_events(state, day):
        if other["room"] == room_id and other["id"] not in ignore and overlaps(other, day, start, end):
            name = room(state, room_id)["name"]  # type: ignore[index]
            return (f"{name} is already booked on {long_day(day)} from {other['start']} to {other['end']} "
                    f"({other['title']}). Choose another room or time.")
    return None


def read_fields(state: dict[str, Any], form: dict[str, Any]) -> dict[str, Any]:
    """The event form's fields, validated; raises CalendarError with every problem found."""
    errors: dict[str, str] = {}
    title = str(form.get("title") or "").strip()
    if not title:
        errors["title"] = "Give the event a title"
    elif len(title) > TITLE_MAX_CHARS:
        errors["title"] = f"Titles have at most {TITLE_MAX_CHARS} characters"
    day = parse_day(form.get("date"))
    if day is None:
        errors["date"] = "Pick a date in 2026 (YYYY-MM-DD)"
    start, end = str(form.get("start") or "").strip(), str(form.get("end") or "").strip()
    options = time_options()
    if start not in options:
        errors["start"] = f"Choose a start time between {DAY_START} and {DAY_END}"
    if end not in options:
        errors["end"] = f"Choose an end time between {DAY_START} and {DAY_END}"
    elif start in options and minutes(end) <= minutes(start):
        errors["end"] = "The end time must be after the start time"
    room_id = str(form.get("room") or "")
    if room_id and room(state, room_id) is None:
        errors["room"] = f"Unknown room {room_id!r}"
    attendees = form.get("attendees") or []
    known = {p["email"] for p in state["people"]}
    if not isinstance(attendees, list) or any(a not in known for a in attendees):
        strangers = [a for a in attendees if a not in known] if isinstance(attendees, list) else [attendees]
        errors["attendees"] = f"Unknown attendee(s): {', '.join(map(str, strangers))}. Pick people from the suggestions."
    repeat = str(form.get("repeat") or "none")
    if repeat not in REPEATS:
        errors["repeat"] = f"Unknown repeat {repeat!r}"
    count = str(form.get("count") or "1").strip()
    if repeat != "none" and (not count.isdigit() or not 2 <= int(count) <= MAX_OCCURRENCES):
        errors["count"] = f"A repeating event has 2 to {MAX_OCCURRENCES} occurrences"
    if errors:
        raise CalendarError(errors)
    return {"title": title, "date": day, "start": start, "end": end, "room": room_id,
            "attendees": list(dict.fromkeys(attendees)), "description": str(form.get("description") or "").strip(),
            "repeat": repeat, "count": int(count) if repeat != "none" else 1}


def occurrence_days(first: str, repeat: str, count: int) -> list[str]:
    start = date.fromisoformat(first)
    days = []
    for n in range(count):
        if repeat == "monthly":
            month = start.month - 1 + n
            moment = start.replace(year=start.year + month // 12, month=month % 12 + 1, day=min(start.day, 28))
        else:
            moment = start + timedelta(days=n * {"none": 0, "daily": 1, "weekly": 7, "biweekly": 14}[repeat])
        days.append(moment.isoformat())
    return days


def _check_rooms(state: dict[str, Any], room_id: str, days: list[str], start: str, end: str, ignore: set[int]) -> None:
    for day in days:
        message = conflict(state, room_id, day, start, end, ignore)
        if message:
            raise CalendarError({"room": message})


def create(state: dict[str, Any], form: dict[str, Any]) -> dict[str, Any]:
    """A new event, or a series of them; returns the first."""
    fields = read_fields(state, form)
    days = occurrence_days(fields["date"], fields["repeat"], fields["count"])
    _check_rooms(state, fields["room"], days, fields["start"], fields["end"], set())
    series = None
    if len(days) > 1:
        series = state["next_series"]
        state["next_series"] += 1
    keep = {k: fields[k] for k in ("title", "start", "end", "room", "description", "repeat")}
    created = [new_event(state, **keep, date=day, attendees=list(fields["attendees"]), series=series) for day in days]
    return created[0]


def update(state: dict[str, Any], event: dict[str, Any], form: dict[str, Any]) -> dict[str, Any]:
    """Edit one event, or (scope ``series``) every event of its series, shifted by the same
    number of days as this one."""
    if event["organizer"] != state["me"]["email"]:
        raise CalendarError({"title": "Only the organizer can edit this event"})
    fields = read_fields(state, {**form, "repeat": "none"})
    scope = form.get("scope") or "this"
    if scope not in ("this", "series"):
        raise CalendarError({"scope": f"Unknown scope {scope!r}; expected this or series"})
    targets = series_events(state, event["series"]) if scope == "series" and event["series"] else [event]
    shift = date.fromisoformat(fields["date"]) - date.fromisoformat(event["date"])
    moved = {t["id"]: (date.fromisoformat(t["date"]) + shift).isoformat() for t in targets}
    ignore = set(moved)
    _check_rooms(state, fields["room"], sorted(set(moved.values())), fields["start"], fields["end"], ignore)
    for target in targets:
        target.update(title=fields["title"], date=moved[target["id"]], start=fields["start"], end=fields["end"],
                      room=fields["room"], attendees=list(fields["attendees"]), description=fields["description"])
    return event


def delete(state: dict[str, Any], event: dict[str, Any], scope: str) -> None:
    if event["organizer"] != state["me"]["email"]:
        raise CalendarError({"scope": "Only the organizer can delete this event; decline it instead"})
    if scope not in ("this", "series"):
        raise CalendarError({"scope": f"Unknown scope {scope!r}; expected this or series"})
    gone = {e["id"] for e in series_events(state, event["series"])} if scope == "series" and event["series"] else {event["id"]}
    state["events"] = [e for e in state["events"] if e["id"] not in gone]


def answer(state: dict[str, Any], event: dict[str, Any], value: Any) -> None:
    if event["organizer"] == state["me"]["email"] or value not in RSVPS or value == "pending":
        raise CalendarError({"rsvp": f"Cannot answer {value!r} to this event"})
    event["rsvp"] = value


# ---- the room booking flow's rules ------------------------------------------------------------

DURATIONS = {30: "30 min", 60: "1 hour", 90: "1.5 hours", 120: "2 hours"}
SLOT_MINUTES = 30


def slots(state: dict[str, Any], room_id: str, day: str) -> list[tuple[str, bool]]:
    """(start, free) for every half hour of the opening hours."""
    return [(hhmm(m), room_free(state["events"], room_id, day, hhmm(m), hhmm(m + SLOT_MINUTES)))
            for m in range(minutes(BOOK_START), minutes(BOOK_END), SLOT_MINUTES)]


def check(state: dict[str, Any], room_id: str, day: str, start: str, duration: int) -> str | None:
    """Why `room_id` cannot be booked then, or None when it can."""
    name = room(state, room_id)["name"]  # type: ignore[index]
    if day < TODAY:
        return "Bookings cannot be made in the past."
    if date.fromisoformat(day).weekday() >= 5:
        return "Rooms cannot be booked on weekends."
    if duration not in DURATIONS or start not in {s for s, _ in slots(state, room_id, day)}:
        return "Choose a start time and a length on the grid."
    end = minutes(start) + duration
    if end > minutes(BOOK_END):
        return f"{name} closes at {BOOK_END}: a {DURATIONS[duration]} booking cannot start at {start}."
    busy = [e for e in day_events(state, day) if e["room"] == room_id
            and minutes(e["start"]) < end and minutes(start) < minutes(e["end"])]
    if busy:
        return (f"{name} is not free for {DURATIONS[duration]} from {start}: it is booked "
                f"{busy[0]['start']}\u2013{busy[0]['end']} ({busy[0]['title']}).")
    return None


def book(state: dict[str, Any], form: dict[str, Any]) -> dict[str, Any]:
    where = room(state, str(form.get("room") or ""))
    day = parse_day(form.get("date"))
    duration = int(form["duration"]) if str(form.get("duration", "")).isdigit() else 0
    start = str(form.get("start") or "")
    if where is None or day is None:
        raise CalendarError({"booking": "This booking has no valid room or day; start again from Book a room"})
    problem = check(state, where["id"], day, start, duration)
    if problem:
        raise CalendarError({"booking": problem})
    errors: dict[str, str] = {}
    title = str(form.get("title") or "").strip()
    if not title:
        errors["title"] = "Give the booking a title"
    attendees = form.get("attendees") or []
    known = {p["email"] for p in state["people"]}
    if not isinstance(attendees, list) or any(a not in known for a in attendees):
        errors["attendees"] = "Pick attendees from the suggestions"
        attendees = []
    people = str(form.get("people") or "").strip()
    if not people.isdigit() or int(people) < 1:
        errors["people"] = "Enter the number of people (1 or more)"
    elif int(people) > where["capacity"]:
        errors["people"] = f"{where['name']} seats {where['capacity']}: choose a bigger room or fewer people"
    elif int(people) < len(attendees) + 1:
        errors["people"] = f"The number of people must count you and your {len(attendees)} attendee(s)"
    if errors:
        raise CalendarError(errors)
    return new_event(state, title=title, date=day, start=start, end=hhmm(minutes(start) + duration), room=where["id"],
                     attendees=list(dict.fromkeys(attendees)), description=str(form.get("notes") or "").strip(),
                     people=int(people))
