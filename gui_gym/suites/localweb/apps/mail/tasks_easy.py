"""Mail's easy templates: star, delete, read a meeting time (information)."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import names_time
from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.mail.base import (MailTemplate, inbox_first_page, message, open_row, sender_questions,
                                                    visited)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World


def _pick_row(world: World, rng: random.Random) -> dict[str, Any]:
    return rng.choice(inbox_first_page(world["mail"]))


class StarMail(MailTemplate):
    template_id = "mail.star"
    difficulty = "easy"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        m = rng.choice([m for m in inbox_first_page(world["mail"]) if not m["starred"]])
        return {"id": m["id"], "sender": m["from"]["name"], "subject": m["subject"]}

    @property
    def instruction(self) -> str:
        return f"Star the email \"{self.params['subject']}\" from {self.params['sender']}."

    def evaluate(self, world: World, answer: str | None) -> float:
        before = {m["id"] for m in self.original()["messages"] if m["starred"]}
        now = {m["id"] for m in world["mail"]["messages"] if m["starred"]}
        return float(now == before | {self.params["id"]})

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("the email is starred", lambda w: message(w, self.params["id"])["starred"])]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_row(ui, self.params["id"])
        yield from ui.click("#star-button")

    def expert_plan(self) -> list[str]:
        return [f"Find the email \"{self.params['subject']}\" from {self.params['sender']} in the Inbox",
                "Open it", "Click Star in the message toolbar"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        return sender_questions(world["mail"])


class MeetingTime(MailTemplate):
    template_id = "mail.meeting-time"
    difficulty = "easy"
    answer_required = True

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        meetings = [m for m in store.in_folder(world["mail"], "inbox") if "time" in m["meta"]]
        m = rng.choice([m for m in meetings if m in inbox_first_page(world["mail"])] or meetings)
        return {"id": m["id"], "sender": m["from"]["name"], "topic": m["meta"]["topic"], "time": m["meta"]["time"]}

    @property
    def instruction(self) -> str:
        return (f"{self.params['sender']} emailed you about the {self.params['topic']} meeting. At what time does "
                "that meeting start? Answer with the time as HH:MM.")

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(names_time(answer, self.params["time"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened the meeting email", lambda w: visited(w, f"/message/{self.params['id']}"))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_row(ui, self.params["id"])
        yield ui.answer(self.params["time"])

    def expert_plan(self) -> list[str]:
        return [f"Open the email from {self.params['sender']} about the {self.params['topic']} meeting",
                "Read the body: the meeting was moved, take the new start time", "Answer with that time"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        unread = store.unread_count(world["mail"], "inbox")
        return [{"question": "How many unread emails are in the Inbox?", "answer": str(unread),
                 "distractors": [str(unread + d) for d in (1, 2, 3)]}]


class DeleteMail(MailTemplate):
    template_id = "mail.delete"
    difficulty = "easy"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        m = _pick_row(world, rng)
        return {"id": m["id"], "sender": m["from"]["name"], "subject": m["subject"]}

    @property
    def instruction(self) -> str:
        return f"Delete the email \"{self.params['subject']}\" from {self.params['sender']}."

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(message(world, self.params["id"])["folder"] in ("trash", "deleted")
                     and self.folders_changed(world) == {self.params["id"]})

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("the email is in Trash", lambda w: message(w, self.params["id"])["folder"] in ("trash", "deleted"))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_row(ui, self.params["id"])
        yield from ui.click("#delete-button")

    def expert_plan(self) -> list[str]:
        return [f"Find the email \"{self.params['subject']}\" in the Inbox", "Open it", "Click Delete"]

    def sample_questions(self, world: World) -> list[dict[str, Any]]:
        rows = inbox_first_page(world["mail"])
        return [{"question": "What is the subject of the newest email in the Inbox?", "answer": rows[0]["subject"],
                 "distractors": [m["subject"] for m in rows[1:4]]}]
