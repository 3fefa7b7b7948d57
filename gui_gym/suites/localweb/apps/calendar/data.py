"""The calendar's world, generated from the seed: colleagues, meeting rooms, weekly series
and one-off events from mid-February to the end of April 2026.

The app's today is fixed (`TODAY`, a Monday), never the machine clock. Times sit on a
30-minute grid, no room is ever double-booked, and titles of one-off events are unique, so a
title and a date always name one event.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from gui_gym.suites.localweb.framework import seeded
from gui_gym.suites.localweb.people import COMPANIES, FIRST_NAMES, LAST_NAMES, ME, PROJECTS

TODAY = "2026-03-02"
FIRST_DAY = date(2026, 2, 2)
DAY_START, DAY_END = "07:00", "21:00"
"""The range the event form's time lists offer."""
BOOK_START, BOOK_END = "08:00", "18:00"
"""Opening hours of the meeting rooms, for the booking flow."""
ROOMS = (("aurora", "Aurora", 4, 1, "Screen"), ("birch", "Birch", 6, 1, "Whiteboard"),
         ("cedar", "Cedar", 8, 2, "Screen, whiteboard"), ("dune", "Dune", 10, 2, "Video call kit"),
         ("elm", "Elm", 12, 3, "Projector"), ("fjord", "Fjord", 16, 3, "Projector, video call kit"),
         ("glacier", "Glacier", 24, 4, "Stage, microphones"))
SERIES = ("Team sync", "Product review", "Design critique", "Sales pipeline", "Engineering all-hands",
          "Marketing huddle")
ONE_OFF = ("Budget review", "Quarterly planning", "Security training", "Hiring sync", "Roadmap workshop",
           "Offsite prep", "Board prep", "Release retro", "Expense policy Q&A", "Team lunch", "Office move briefing",
           "Data privacy check", "Brand refresh", "Escalation review", "Pricing workshop", "Town hall prep")
REPEATS = {"none": "Does not repeat", "daily": "Daily", "weekly": "Weekly", "biweekly": "Every 2 weeks",
           "monthly": "Monthly"}
RSVPS = {"accepted": "Going", "tentative": "Maybe", "declined": "Not going", "pending": "Not answered"}


def minutes(hhmm: str) -> int:
    hours, mins = hhmm.split(":")
    return int(hours) * 60 + int(mins)


def hhmm(total: int) -> str:
    return f"{total // 60:02d}:{total % 60:02d}"


def rooms() -> list[dict[str, Any]]:
    return [{"id": i, "name": n, "capacity": c, "floor": f, "equipment": e} for i, n, c, f, e in ROOMS]


def overlaps(event: dict[str, Any], day: str, start: str, end: str) -> bool:
    return event["date"] == day and minutes(event["start"]) < minutes(end) and minutes(start) < minutes(event["end"])


def room_free(events: list[dict[str, Any]], room: str, day: str, start: str, end: str,
              ignore: frozenset[int] = frozenset()) -> bool:
    return not any(e["room"] == room and e["id"] not in ignore and overlaps(e, day, start, end) for e in events)


def _people(rng: random.Random) -> list[dict[str, Any]]:
    firsts = rng.sample(FIRST_NAMES, 22)
    lasts = rng.sample(LAST_NAMES, 22)
    people = [{"name": f"{f} {l}", "email": f"{f.lower()}.{l.lower()}@northwind.test"} for f, l in zip(firsts, lasts)]
    return sorted(people, key=lambda p: p["name"])


def new_event(state: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Store an event with the next id; `fields` override the defaults of a private event."""
    event = {"id": state["next_id"], "title": "", "date": TODAY, "start": "09:00", "end": "10:00", "room": "",
             "attendees": [], "organizer": state["me"]["email"], "rsvp": "accepted", "series": None,
             "repeat": "none", "description": "", "people": None, **fields}
    state["next_id"] += 1
    state["events"].append(event)
    return event


def weekdays(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1) if (first + timedelta(days=n)).weekday() < 5]


def initial_state(seed: int) -> dict[str, Any]:
    """A fresh calendar for one episode; pure function of `seed`."""
    rng = seeded(seed, "calendar")
    people = _people(rng)
    state: dict[str, Any] = {"today": TODAY, "me": dict(ME), "people": people, "rooms": rooms(), "events": [],
                             "next_id": 1, "next_series": 1}
    room_ids = [r["id"] for r in state["rooms"]]
    for title in rng.sample(SERIES, 3):
        weekday, start = rng.randrange(5), rng.randrange(18, 32)
        length = rng.choice((1, 2))
        first = FIRST_DAY + timedelta(days=weekday)
        days = [first + timedelta(weeks=n) for n in range(13)]
        slot = (hhmm(start * 30), hhmm((start + length) * 30))
        room = next(r for r in rng.sample(room_ids, len(room_ids))
                    if all(room_free(state["events"], r, d.isoformat(), *slot) for d in days))
        attendees = [p["email"] for p in rng.sample(people, rng.randrange(2, 5))]
        series = state["next_series"]
        state["next_series"] += 1
        for day in days:
            new_event(state, title=title, date=day.isoformat(), start=slot[0], end=slot[1], room=room,
                      attendees=list(attendees), series=series, repeat="weekly",
                      description=f"Our weekly {title.lower()}.")
    titles = list(ONE_OFF)
    for person in rng.sample(people, 6):
        titles.append(f"Lunch with {person['name'].split()[0]}")
    for company in rng.sample(COMPANIES, 5):
        titles.append(f"{company} demo")
    for project in rng.sample(PROJECTS, 4):
        titles.append(f"Project {project} kickoff")
    for first, last in zip(rng.sample(FIRST_NAMES, 5), rng.sample(LAST_NAMES, 5)):
        titles.append(f"Interview: {first} {last}")
    rng.shuffle(titles)
    span = weekdays(date(2026, 2, 16), date(2026, 4, 24))
    for title in titles:
        day = rng.choice(span).isoformat()
        start = rng.randrange(17, 34)
        slot = (hhmm(start * 30), hhmm((start + rng.choice((1, 2, 2, 3, 4))) * 30))
        free_rooms = [r for r in room_ids if room_free(state["events"], r, day, *slot)]
        room = rng.choice(free_rooms) if free_rooms and not title.startswith("Lunch") else ""
        mine = rng.random() < 0.55
        guests = rng.sample(people, rng.randrange(1, 5))
        organizer = state["me"]["email"] if mine else guests[0]["email"]
        new_event(state, title=title, date=day, start=slot[0], end=slot[1], room=room,
                  attendees=[g["email"] for g in guests if g["email"] != organizer], organizer=organizer,
                  rsvp="accepted" if mine else rng.choice(("pending", "pending", "accepted", "tentative")),
                  description=f"{title}. Agenda to follow.")
    return state
