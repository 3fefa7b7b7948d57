"""The calendar's medium templates: create an event, reschedule one, invite people."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.calendar import store
from gui_gym.suites.localweb.apps.calendar.base import (MONTH_END, CalendarTemplate, day_text, event, open_event,
                                                        pick_date, pick_time, shown_in_month, visited)
from gui_gym.suites.localweb.apps.calendar.data import TODAY, hhmm, minutes, room_free, weekdays
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

NEW_TITLES = ("Call with the auditors", "Desk move", "Planning poker", "Coffee with the new hires", "Vendor demo prep",
              "Write Q2 goals", "Focus time", "Mentoring session", "Fire safety briefing", "Budget check-in")


class CreateEvent(CalendarTemplate):
    template_id = "calendar.create-event"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        day = rng.choice(weekdays(date.fromisoformat(TODAY) + timedelta(days=1), date.fromisoformat(MONTH_END)))
        start = rng.randrange(19, 33) * 30  # from 09:30: never the form's default start
        return {"title": rng.choice(NEW_TITLES), "date": day.isoformat(), "start": hhmm(start),
                "end": hhmm(start + rng.choice((30, 60, 90, 120)))}

    @property
    def instruction(self) -> str:
        p = self.params
        return f"Create an event \"{p['title']}\" on {day_text(p['date'])} from {p['start']} to {p['end']}."

    def _created(self, world: World) -> list[dict[str, Any]]:
        return [e for e in self.changes(world)[1] if e["title"].lower() == self.params["title"].lower()]

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        p = self.params
        return float(not changed and len(created) == 1 and created == self._created(world)
                     and (created[0]["date"], created[0]["start"], created[0]["end"]) == (p["date"], p["start"], p["end"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened the new-event form", lambda w: visited(w, "/new")),
                (f"saved an event titled {self.params['title']}", lambda w: bool(self._created(w))),
                ("on the right date and time, and nothing else", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from ui.click(f"td[data-date='{p['date']}'] .add-event")
        yield from ui.type_into("#title", p["title"])
        yield from pick_time(ui, "start", p["start"])
        yield from pick_time(ui, "end", p["end"])
        yield from ui.click("#save")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"In the month view, click the + of {day_text(p['date'])}", f"Type the title \"{p['title']}\"",
                f"Pick {p['start']} in the Start list and {p['end']} in the End list", "Click Save"]


class Reschedule(CalendarTemplate):
    template_id = "calendar.reschedule"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["calendar"]
        e = rng.choice(shown_in_month(state, mine=True))
        length = minutes(e["end"]) - minutes(e["start"])
        while True:
            day = rng.choice(weekdays(date(2026, 3, 3), date(2026, 4, 24))).isoformat()
            start = rng.randrange(18, 33) * 30
            slot = (hhmm(start), hhmm(start + length))
            if day != e["date"] and slot[0] != e["start"] and (
                    not e["room"] or room_free(state["events"], e["room"], day, *slot, frozenset({e["id"]}))):
                break
        return {"id": e["id"], "title": e["title"], "date": e["date"], "new_date": day, "start": slot[0], "end": slot[1]}

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Move \"{p['title']}\" from {day_text(p['date'])} to {day_text(p['new_date'])} at {p['start']}, "
                "keeping its length.")

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        p, now = self.params, event(world, self.params["id"])
        before = store.find(self.original(), p["id"])
        return float(changed == {p["id"]} and not created and now is not None and before is not None
                     and (now["date"], now["start"], now["end"]) == (p["new_date"], p["start"], p["end"])
                     and (now["title"], now["room"], now["attendees"]) == (before["title"], before["room"], before["attendees"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [("opened the event's edit form", lambda w: visited(w, f"/event/{p['id']}/edit")),
                ("moved it to the new date", lambda w: (event(w, p["id"]) or {}).get("date") == p["new_date"]),
                ("at the new time, with the same length", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from open_event(ui, p)
        yield from ui.click("#edit")
        yield from pick_date(ui, "#date", p["new_date"])
        yield from pick_time(ui, "start", p["start"])
        yield from ui.click("#save")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Open \"{p['title']}\" from the month view and click Edit",
                f"Pick {day_text(p['new_date'])} in the date picker",
                f"Pick {p['start']} as the start (the end follows, keeping the length)", "Click Save"]


class InvitePeople(CalendarTemplate):
    template_id = "calendar.invite-people"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["calendar"]
        e = rng.choice(shown_in_month(state, mine=True))
        guests = rng.sample([p for p in state["people"] if p["email"] not in e["attendees"]], 2)
        return {"id": e["id"], "title": e["title"], "date": e["date"], "names": [g["name"] for g in guests],
                "emails": [g["email"] for g in guests]}

    @property
    def instruction(self) -> str:
        p = self.params
        return f"Invite {p['names'][0]} and {p['names'][1]} to \"{p['title']}\" on {day_text(p['date'])}."

    def _invited(self, world: World) -> int:
        now = event(world, self.params["id"])
        return sum(email in now["attendees"] for email in self.params["emails"]) if now else 0

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        before, now = store.find(self.original(), self.params["id"]), event(world, self.params["id"])
        return float(changed <= {self.params["id"]} and not created and before is not None and now is not None
                     and set(now["attendees"]) == set(before["attendees"]) | set(self.params["emails"])
                     and {k: now[k] for k in ("date", "start", "end", "room", "title")} ==
                     {k: before[k] for k in ("date", "start", "end", "room", "title")})

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened the event's edit form", lambda w: visited(w, f"/event/{self.params['id']}/edit")),
                ("invited one of them", lambda w: self._invited(w) >= 1),
                ("invited both, nothing else changed", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_event(ui, self.params)
        yield from ui.click("#edit")
        for name in self.params["names"]:
            yield from ui.pick_suggestion("attendees", name)
        yield from ui.click("#save")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Open \"{p['title']}\" from the month view and click Edit",
                f"In Attendees, type {p['names'][0]} and pick the suggestion; same for {p['names'][1]}", "Click Save"]
