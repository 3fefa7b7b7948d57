"""The calendar's hard templates: book a room through the availability grid (days that are
too full get refused on the way), create an event whose room turns out to be taken, and
rework a weekly series then cancel one of its meetings."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.calendar import store
from gui_gym.suites.localweb.apps.calendar.base import (CalendarTemplate, day_text, event, open_event, pick_date,
                                                        pick_time, visited)
from gui_gym.suites.localweb.apps.calendar.data import (BOOK_END, BOOK_START, TODAY, hhmm, minutes, new_event,
                                                        room_free, weekdays)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

BOOKING_TITLES = ("Partner briefing", "Hiring committee", "Pricing decision", "Migration go/no-go",
                  "Quarterly business review", "Customer advisory board")
HOLDS = ("Room hold: facilities", "Training session", "External workshop", "Reserved: visitors", "Interview loop")
TWO_HOURS = 120


def _hold(state: dict[str, Any], room: str, day: str, start: int, end: int, organizer: str) -> None:
    new_event(state, title=HOLDS[(start // 30) % len(HOLDS)], date=day, start=hhmm(start), end=hhmm(end), room=room,
              organizer=organizer, rsvp="pending", description="Reserved by facilities.")


def earliest_window(state: dict[str, Any], room: str, day: str, length: int) -> str | None:
    free = dict(store.slots(state, room, day))
    for start, _ in store.slots(state, room, day):
        if all(free.get(hhmm(m), False) for m in range(minutes(start), minutes(start) + length, 30)):
            return start
    return None


class BookRoom(CalendarTemplate):
    template_id = "calendar.book-room"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["calendar"]
        people = rng.choice((5, 7, 9, 11))
        room = min((r for r in state["rooms"] if r["capacity"] >= people), key=lambda r: r["capacity"])
        while True:
            first = rng.choice([d for d in weekdays(date(2026, 3, 9), date(2026, 4, 22)) if d.weekday() <= 2])
            blocked = rng.choice((1, 2))
            target = (first + timedelta(days=blocked)).isoformat()
            start = earliest_window(state, room["id"], target, TWO_HOURS)
            if start is not None:
                break
        guests = rng.sample(state["people"], 2)
        return {"people": people, "room": room["id"], "room_name": room["name"], "first": first.isoformat(),
                "blocked": [(first + timedelta(days=n)).isoformat() for n in range(blocked)], "date": target,
                "start": start, "end": hhmm(minutes(start) + TWO_HOURS), "title": rng.choice(BOOKING_TITLES),
                "names": [g["name"] for g in guests], "emails": [g["email"] for g in guests]}

    def prepare(self, world: World) -> None:
        """Leave no two free hours in a row on the blocked days: every run of free half hours
        that reaches an hour gets a hold right after it."""
        state, p = world["calendar"], self.params
        organizer = state["people"][0]["email"]
        closing = minutes(BOOK_END)
        for day in p["blocked"]:
            run = 0
            for begin in range(minutes(BOOK_START), closing, 30):
                if not room_free(state["events"], p["room"], day, hhmm(begin), hhmm(begin + 30)):
                    run = 0
                elif run < 2:
                    run += 1
                else:
                    hour_free = begin + 60 <= closing and room_free(state["events"], p["room"], day, hhmm(begin), hhmm(begin + 60))
                    _hold(state, p["room"], day, begin, begin + (60 if hour_free else 30), organizer)
                    run = 0

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Book the smallest meeting room that seats {p['people']} people for a 2-hour meeting \"{p['title']}\", "
                f"on the first day from {day_text(p['first'])} on when that room is free for two hours in a row "
                f"(take the earliest such time that day). Enter {p['people']} as the number of people and invite "
                f"{p['names'][0]} and {p['names'][1]}.")

    def _booked(self, world: World) -> list[dict[str, Any]]:
        return [e for e in self.changes(world)[1] if e["room"] == self.params["room"] and e["date"] == self.params["date"]]

    def evaluate(self, world: World, answer: str | None) -> float:
        p = self.params
        changed, created = self.changes(world)
        return float(not changed and len(created) == 1 and any(
            (e["start"], e["end"], e["title"].lower(), set(e["attendees"]), e["people"]) ==
            (p["start"], p["end"], p["title"].lower(), set(p["emails"]), p["people"]) for e in self._booked(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [(f"opened the booking page of {p['room_name']}", lambda w: visited(w, f"/book/{p['room']}")),
                ("continued to the booking form on the right day", lambda w: visited(w, f"/book/{p['room']}/details", date=p["date"])),
                (f"booked {p['room_name']} on {day_text(p['date'])}", lambda w: bool(self._booked(w))),
                ("at the earliest two free hours, with the title, people and attendees", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from ui.click("#nav-book")
        yield from ui.click(f".choose-room[data-room='{p['room']}']")
        yield from pick_date(ui, "#book-date", p["first"])
        yield from ui.click(f"#duration-{TWO_HOURS}")
        for _ in p["blocked"]:  # try the first free time; the server says two hours do not fit
            if ui.exists(".slot.free"):
                yield from ui.click(".slot.free")
                yield from ui.click("#continue")
            yield from ui.click("#next-day")
        yield from ui.click(f".slot[data-start='{p['start']}']")
        yield from ui.click("#continue")
        yield from ui.type_into("#book-title", p["title"])
        yield from ui.type_into("#people", str(p["people"]))
        for name in p["names"]:
            yield from ui.pick_suggestion("book-attendees", name)
        yield from ui.click("#review")
        yield from ui.click("#confirm-booking")

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Open Book a room", f"Choose {p['room_name']}, the smallest room with at least {p['people']} seats",
                f"Pick {day_text(p['first'])} and the 2 hours length",
                "Try the earliest free time and Continue; if two hours do not fit that day, go to the next day",
                f"On {day_text(p['date'])} pick {p['start']} and Continue",
                f"Type the title, {p['people']} people, add {p['names'][0]} and {p['names'][1]}",
                "Review booking, then Confirm booking"]


class ConflictingRoom(CalendarTemplate):
    template_id = "calendar.room-conflict"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["calendar"]
        while True:
            day = rng.choice(weekdays(date.fromisoformat(TODAY) + timedelta(days=1), date(2026, 3, 31))).isoformat()
            start = rng.randrange(18, 31) * 30
            end = start + rng.choice((60, 90, 120))
            held = [r for r in state["rooms"] if room_free(state["events"], r["id"], day, hhmm(start), hhmm(start + 60))]
            spare = [r for r in state["rooms"] if room_free(state["events"], r["id"], day, hhmm(start), hhmm(end))]
            if held and len(spare) >= 2:
                break
        wanted = rng.choice(held)
        fallback = rng.choice([r for r in spare if r["id"] != wanted["id"]])
        guests = rng.sample(state["people"], 2)
        return {"title": rng.choice(BOOKING_TITLES), "date": day, "start": hhmm(start), "end": hhmm(end),
                "room": wanted["id"], "room_name": wanted["name"], "fallback": fallback["id"], "fallback_name": fallback["name"],
                "names": [g["name"] for g in guests], "emails": [g["email"] for g in guests]}

    def prepare(self, world: World) -> None:
        p, state = self.params, world["calendar"]
        _hold(state, p["room"], p["date"], minutes(p["start"]), minutes(p["start"]) + 60, state["people"][1]["email"])

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Create an event \"{p['title']}\" on {day_text(p['date'])} from {p['start']} to {p['end']} in room "
                f"{p['room_name']}, with {p['names'][0]} and {p['names'][1]} as attendees. If {p['room_name']} is "
                f"already booked then, use {p['fallback_name']} instead.")

    def _created(self, world: World) -> list[dict[str, Any]]:
        return [e for e in self.changes(world)[1] if e["title"].lower() == self.params["title"].lower()
                and e["date"] == self.params["date"]]

    def evaluate(self, world: World, answer: str | None) -> float:
        p = self.params
        changed, created = self.changes(world)
        return float(not changed and len(created) == 1 and any(
            (e["start"], e["end"], e["room"], set(e["attendees"])) == (p["start"], p["end"], p["fallback"], set(p["emails"]))
            for e in self._created(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [("opened the new-event form", lambda w: visited(w, "/new")),
                ("tried to save the event", lambda w: visited(w, "/new", "POST")),
                (f"saved \"{p['title']}\" on {day_text(p['date'])}", lambda w: bool(self._created(w))),
                (f"from {p['start']} to {p['end']} in {p['fallback_name']} with both attendees", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from ui.click(f"td[data-date='{p['date']}'] .add-event")
        yield from ui.type_into("#title", p["title"])
        yield from pick_time(ui, "start", p["start"])
        yield from pick_time(ui, "end", p["end"])
        yield from ui.type_ahead("#room", p["room_name"])
        for name in p["names"]:
            yield from ui.pick_suggestion("attendees", name)
        yield from ui.click("#save")  # the room is taken: the form says so under Room
        yield from ui.type_ahead("#room", p["fallback_name"])
        yield from ui.click("#save")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Click the + of {day_text(p['date'])} in the month view", f"Type the title, pick {p['start']} and {p['end']}",
                f"Choose {p['room_name']} and add {p['names'][0]} and {p['names'][1]}", "Click Save",
                f"The form says {p['room_name']} is booked: choose {p['fallback_name']} and Save again"]


class ReworkSeries(CalendarTemplate):
    template_id = "calendar.rework-series"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["calendar"]
        series = rng.choice(sorted({e["series"] for e in state["events"] if e["series"] is not None}))
        events = store.series_events(state, series)
        length = minutes(events[0]["end"]) - minutes(events[0]["start"])
        ids = frozenset(e["id"] for e in events)
        rooms: list[dict[str, Any]] = []
        while not rooms:
            start = rng.randrange(18, 32) * 30
            slot = (hhmm(start), hhmm(start + length))
            if slot[0] != events[0]["start"]:
                rooms = [r for r in state["rooms"] if r["id"] != events[0]["room"]
                         and all(room_free(state["events"], r["id"], e["date"], *slot, ids) for e in events)]
        room = rng.choice(rooms)
        guest = rng.choice([p for p in state["people"] if p["email"] not in events[0]["attendees"]])
        upcoming = [e for e in events if e["date"] >= TODAY]
        cancel = rng.choice([e for e in upcoming if "2026-03-09" <= e["date"] <= "2026-04-24"])
        return {"series": series, "title": events[0]["title"], "ids": sorted(ids), "open": upcoming[0]["id"],
                "open_date": upcoming[0]["date"], "start": slot[0], "end": slot[1], "room": room["id"],
                "room_name": room["name"], "name": guest["name"], "email": guest["email"], "cancel": cancel["id"],
                "cancel_date": cancel["date"]}

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"The weekly \"{p['title']}\" meeting is changing: move all of its events to {p['start']}-{p['end']} "
                f"(same days) in room {p['room_name']}, add {p['name']} to them, and cancel only the one on "
                f"{day_text(p['cancel_date'])}.")

    def _kept(self, world: World) -> list[dict[str, Any]]:
        return [e for e in (event(world, i) for i in self.params["ids"] if i != self.params["cancel"]) if e is not None]

    def _moved(self, world: World) -> bool:
        kept = self._kept(world)
        return len(kept) == len(self.params["ids"]) - 1 and all(e["start"] == self.params["start"] for e in kept)

    def _reworked(self, world: World) -> bool:
        p, before = self.params, {e["id"]: e for e in self.original()["events"]}
        return self._moved(world) and all(
            (e["date"], e["end"], e["room"], e["title"]) == (before[e["id"]]["date"], p["end"], p["room"], p["title"])
            and set(e["attendees"]) == set(before[e["id"]]["attendees"]) | {p["email"]} for e in self._kept(world))

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        return float(self._reworked(world) and event(world, self.params["cancel"]) is None
                     and changed <= set(self.params["ids"]) and not created)

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [("opened the edit form of one of its events", lambda w: any(visited(w, f"/event/{i}/edit") for i in p["ids"])),
                (f"moved all its events to {p['start']}", self._moved),
                (f"all of them in {p['room_name']} with {p['name']}", self._reworked),
                (f"cancelled only the one on {day_text(p['cancel_date'])}", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from open_event(ui, {"id": p["open"], "date": p["open_date"]})
        yield from ui.click("#edit")
        yield from pick_time(ui, "start", p["start"])
        yield from ui.type_ahead("#room", p["room_name"])
        yield from ui.pick_suggestion("attendees", p["name"])
        yield from ui.click("#scope-series")
        yield from ui.click("#save")
        yield from ui.click("#back")
        yield from open_event(ui, {"id": p["cancel"], "date": p["cancel_date"]})
        yield from ui.click("#delete")
        yield from ui.click("#confirm-delete")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Open the next \"{p['title']}\" from the month view and click Edit",
                f"Pick {p['start']} as the start (the length stays), choose {p['room_name']}, add {p['name']}",
                "Apply the changes to all events in the series and Save",
                f"Go back to the month, open the one on {day_text(p['cancel_date'])}",
                "Delete it, keeping Only this event in the dialog"]
