"""The calendar's easy templates: delete an event, read its end time (information), answer
an invitation."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import names_time
from gui_gym.suites.localweb.apps.calendar import store
from gui_gym.suites.localweb.apps.calendar.base import (CalendarTemplate, day_text, event, open_event, shown_in_month,
                                                        visited)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

ANSWERS = {"accepted": ("Accept the invitation to", "Yes"), "tentative": ("Answer Maybe to the invitation to", "Maybe"),
           "declined": ("Decline the invitation to", "No")}


def _day_questions(state: dict[str, Any]) -> list[dict[str, Any]]:
    """On which day of the month is a given event (read off the month grid)."""
    shown = shown_in_month(state)
    days = sorted({e["date"] for e in shown})
    questions = []
    for e in shown[:3]:
        others = [d for d in days if d != e["date"]][:3]
        if len(others) == 3:
            questions.append({"question": f"On which day is \"{e['title']}\"?", "answer": day_text(e["date"]),
                              "distractors": [day_text(d) for d in others]})
    return questions


class DeleteEvent(CalendarTemplate):
    template_id = "calendar.delete-event"
    difficulty = "easy"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        e = rng.choice(shown_in_month(world["calendar"], mine=True))
        return {"id": e["id"], "title": e["title"], "date": e["date"]}

    @property
    def instruction(self) -> str:
        return f"Delete the event \"{self.params['title']}\" on {day_text(self.params['date'])}."

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        return float(changed == {self.params["id"]} and event(world, self.params["id"]) is None and not created)

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("the event is deleted", lambda w: event(w, self.params["id"]) is None)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_event(ui, self.params)
        yield from ui.click("#delete")
        yield from ui.click("#confirm-delete")

    def expert_plan(self) -> list[str]:
        return [f"In the month view, click \"{self.params['title']}\" on {day_text(self.params['date'])}",
                "Click Delete", "Confirm with Delete in the dialog"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        return _day_questions(world["calendar"])


class EventEnd(CalendarTemplate):
    template_id = "calendar.event-end"
    difficulty = "easy"
    answer_required = True

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        e = rng.choice(shown_in_month(world["calendar"], one_off=False))
        return {"id": e["id"], "title": e["title"], "date": e["date"], "end": e["end"]}

    @property
    def instruction(self) -> str:
        return (f"When does \"{self.params['title']}\" on {day_text(self.params['date'])} end? "
                "Answer with the time as HH:MM.")

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(names_time(answer, self.params["end"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened the event", lambda w: visited(w, f"/event/{self.params['id']}"))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_event(ui, self.params)
        yield ui.answer(self.params["end"])

    def expert_plan(self) -> list[str]:
        return [f"Click \"{self.params['title']}\" on {day_text(self.params['date'])} in the month view",
                "Read the end time next to the date", "Answer with it"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        state = world["calendar"]
        busiest = max(sorted({e["date"] for e in shown_in_month(state, one_off=False)}),
                      key=lambda d: len(store.day_events(state, d)))
        count = len(store.day_events(state, busiest))
        return [{"question": f"How many events are on {day_text(busiest)}?", "answer": str(count),
                 "distractors": [str(count + d) for d in (-1, 1, 2)]}]


class AnswerInvite(CalendarTemplate):
    template_id = "calendar.answer-invite"
    difficulty = "easy"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        e = rng.choice([e for e in shown_in_month(world["calendar"], mine=False) if e["rsvp"] == "pending"]
                       or shown_in_month(world["calendar"], mine=False))
        value = rng.choice(sorted(v for v in ANSWERS if v != e["rsvp"]))
        return {"id": e["id"], "title": e["title"], "date": e["date"], "answer": value}

    @property
    def instruction(self) -> str:
        return f"{ANSWERS[self.params['answer']][0]} \"{self.params['title']}\" on {day_text(self.params['date'])}."

    def evaluate(self, world: World, answer: str | None) -> float:
        changed, created = self.changes(world)
        target = event(world, self.params["id"])
        return float(changed == {self.params["id"]} and not created and target is not None
                     and target["rsvp"] == self.params["answer"])

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened the invitation", lambda w: visited(w, f"/event/{self.params['id']}")),
                ("answered it as asked", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_event(ui, self.params)
        yield from ui.click(f"#rsvp-{self.params['answer']}")

    def expert_plan(self) -> list[str]:
        return [f"Click \"{self.params['title']}\" on {day_text(self.params['date'])} in the month view",
                f"Under Going?, click {ANSWERS[self.params['answer']][1]}"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        state = world["calendar"]
        days = sorted({e["date"] for e in shown_in_month(state, one_off=False)})
        questions = []
        for day in days[:2]:
            first = store.day_events(state, day)[0]["title"]
            others = list(dict.fromkeys(e["title"] for e in state["events"] if e["title"] != first))[:3]
            questions.append({"question": f"What is the first event on {day_text(day)}?", "answer": first, "distractors": others})
        return questions
