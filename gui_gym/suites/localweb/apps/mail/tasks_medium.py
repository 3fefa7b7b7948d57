"""Mail's medium templates: reply to the latest mail of a sender, file a project's thread
under a label, send a file."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.mail.base import (MailTemplate, attach, from_contacts, message, open_row, says,
                                                    search, sent, visited)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

REPLIES = ("Thanks, I will be there.", "Sounds good, let's go ahead.", "Can we move this to next week?",
           "I will send the numbers by Friday.", "Great work, thank you!", "Noted, I will review it today.",
           "Please count me in.", "Let me check with the team and get back to you.")
SUBJECTS = ("Files for Monday", "The document you asked for", "Material for the review", "For your records",
            "Latest version attached", "As discussed on the phone")


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

    def _search_shows_them(self, world: World) -> bool:
        """A search page the agent loaded listed every email of the project, ready to tick: a
        search for the project's name, or anything as narrow; one so broad that they spread
        over pages lists them nowhere."""
        state = world["mail"]
        for e in state["log"]:
            if e["path"] == "/search":
                page = int(e["query"]["page"]) if e["query"].get("page", "").isdigit() else 1
                shown = store.page_of(store.search(state, e["query"].get("q", "").strip()), page)[0]
                if set(self.params["ids"]) <= {m["id"] for m in shown}:
                    return True
        return False

    def _moved(self, world: World) -> int:
        return sum(message(world, i)["folder"] == f"label:{self.params['label']}" for i in self.params["ids"])

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(self._moved(world) == len(self.params["ids"])
                     and self.folders_changed(world) == set(self.params["ids"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [(f"searched for Project {self.params['project']}", self._search_shows_them),
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
        yield from ui.pick_suggestion("to", self.params["name"])
        yield from ui.type_into("#subject", self.params["subject"])
        yield from attach(ui, self.params["file"])
        yield from ui.click("#send")

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Click Compose", f"Type {p['name']} in To and pick the suggestion",
                f"Type the subject \"{p['subject']}\"", f"Click Attach files, tick {p['file']}, click Attach selected",
                "Click Send"]

