"""Mail's easy and medium templates: star, delete, read a meeting time (information), reply
to the latest mail of a sender, file a project's thread under a label, send a file."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.mail.common import (
    MailTemplate, add_recipient, attach, from_contacts, inbox_first_page, message, open_row, says,
    search, sender_questions, sent, states_time, visited)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

REPLIES = ("Thanks, I will be there.", "Sounds good, let's go ahead.", "Can we move this to next week?",
           "I will send the numbers by Friday.", "Great work, thank you!", "Noted, I will review it today.",
           "Please count me in.", "Let me check with the team and get back to you.")
SUBJECTS = ("Files for Monday", "The document you asked for", "Material for the review", "For your records",
            "Latest version attached", "As discussed on the phone")


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
        return float(states_time(answer, self.params["time"]))

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


class ReplyLatest(MailTemplate):
    template_id = "mail.reply-latest"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        inbox = from_contacts(world["mail"], store.in_folder(world["mail"], "inbox"))
        counts: dict[str, int] = {}
        for m in inbox:
            counts[m["from"]["name"]] = counts.get(m["from"]["name"], 0) + 1
        sender = rng.choice(sorted(name for name, n in counts.items() if n >= 2))
        latest = next(m for m in inbox if m["from"]["name"] == sender)
        return {"id": latest["id"], "sender": sender, "email": latest["from"]["email"], "text": rng.choice(REPLIES)}

    @property
    def instruction(self) -> str:
        return f"Reply to the most recent email from {self.params['sender']} with the text: \"{self.params['text']}\""

    def _replies(self, world: World) -> list[dict[str, Any]]:
        return [m for m in sent(world) if m["reply_to"] == self.params["id"] and self.params["email"] in m["to"]]

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(any(says(m["body"], self.params["text"]) for m in self._replies(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [(f"opened the latest email from {p['sender']}", lambda w: visited(w, f"/message/{p['id']}")),
                ("opened the reply form", lambda w: visited(w, "/compose", reply=p["id"])),
                ("sent a reply to that email", lambda w: bool(self._replies(w))),
                ("the reply says the requested text", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from search(ui, self.params["sender"])
        yield from open_row(ui, self.params["id"])
        yield from ui.click("#reply")
        yield from ui.type_into("#body", self.params["text"])
        yield from ui.click("#send")

    def expert_plan(self) -> list[str]:
        return [f"Search the mailbox for {self.params['sender']}",
                "Open the newest email they sent (the list is newest first)", "Click Reply",
                f"Type \"{self.params['text']}\" in the message", "Click Send"]


class FileProject(MailTemplate):
    template_id = "mail.file-project"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        projects = sorted({m["meta"]["project"] for m in world["mail"]["messages"] if "project" in m["meta"]})
        project = rng.choice(projects)
        ids = sorted(m["id"] for m in world["mail"]["messages"] if m["meta"].get("project") == project)
        return {"project": project, "ids": ids, "label": "Projects"}

    @property
    def instruction(self) -> str:
        return f"Move every email about Project {self.params['project']} to the \"{self.params['label']}\" label."

    def _moved(self, world: World) -> int:
        return sum(message(world, i)["folder"] == f"label:{self.params['label']}" for i in self.params["ids"])

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(self._moved(world) == len(self.params["ids"])
                     and self.folders_changed(world) == set(self.params["ids"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        project = self.params["project"].lower()
        return [(f"searched for Project {self.params['project']}", lambda w: any(
                    e["path"] == "/search" and project in e["query"].get("q", "").lower() for e in w["mail"]["log"])),
                ("moved one of its emails to the label", lambda w: self._moved(w) >= 1),
                ("moved all of them, and nothing else", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from search(ui, f"Project {self.params['project']}")
        for message_id in self.params["ids"]:
            yield from ui.click(f".msg-row[data-id='{message_id}'] .msg-check")
        yield from ui.click("#bulk-move")
        yield from ui.click(f"#bulk-form [role=menu] [data-move='label:{self.params['label']}']")

    def expert_plan(self) -> list[str]:
        return [f"Search for \"Project {self.params['project']}\" (its emails are in the Inbox and the Archive)",
                "Tick the checkbox of every result", "Open the Move to menu",
                f"Choose {self.params['label']}"]


class SendFile(MailTemplate):
    template_id = "mail.send-file"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        person = rng.choice(world["mail"]["contacts"])
        return {"name": person["name"], "email": person["email"], "subject": rng.choice(SUBJECTS),
                "file": rng.choice(world["mail"]["files"])}

    @property
    def instruction(self) -> str:
        p = self.params
        return f"Send {p['name']} an email with the subject \"{p['subject']}\" and attach the file {p['file']} from My files."

    def _to_them(self, world: World) -> list[dict[str, Any]]:
        return [m for m in sent(world) if m["to"] == [self.params["email"]]]

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(any(m["subject"].lower() == self.params["subject"].lower() and m["attachments"] == [self.params["file"]]
                         for m in self._to_them(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened a new message", lambda w: visited(w, "/compose")),
                (f"sent an email to {self.params['name']}", lambda w: bool(self._to_them(w))),
                ("with the subject and the attachment", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from ui.click("#compose")
        yield from add_recipient(ui, "to", self.params["name"])
        yield from ui.type_into("#subject", self.params["subject"])
        yield from attach(ui, self.params["file"])
        yield from ui.click("#send")

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Click Compose", f"Type {p['name']} in To and pick the suggestion",
                f"Type the subject \"{p['subject']}\"", f"Click Attach files, tick {p['file']}, click Attach selected",
                "Click Send"]

