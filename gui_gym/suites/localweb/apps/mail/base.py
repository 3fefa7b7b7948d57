"""What every mail template shares: the world lookups, the original world (rebuilt from the
seed, so an evaluator can check that nothing else changed), visit checks for milestones, and
the oracle's recurring moves (search, open a row, attach a file; a recipient is picked with
`OracleUI.pick_suggestion`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import normalize_answer
from gui_gym.suites.localweb.apps.mail import data, store
from gui_gym.suites.localweb.framework import log_has
from gui_gym.suites.localweb.templates import TaskTemplate, World

if TYPE_CHECKING:
    from gui_gym.suites.localweb.oracle_ui import OracleUI


class MailTemplate(TaskTemplate):
    app = "mail"

    initial_state = staticmethod(data.initial_state)

    def folders_changed(self, world: World) -> set[int]:
        """Ids of original messages now in another folder (or deleted)."""
        now = {m["id"]: m["folder"] for m in world["mail"]["messages"]}
        return {m["id"] for m in self.original()["messages"] if now.get(m["id"]) != m["folder"]}


def message(world: World, message_id: int) -> dict[str, Any]:
    """The message, or an empty stand-in once it has been deleted for good."""
    return store.find(world["mail"], message_id) or {"folder": "deleted", "starred": False, "read": True}


def contact(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in state["contacts"] if c["name"] == name)


def sent(world: World) -> list[dict[str, Any]]:
    """Messages the user sent during the episode (the seeded Sent folder excluded)."""
    return [m for m in world["mail"]["messages"] if m["folder"] == "sent" and m["date"] > data.NOW.strftime("%Y-%m-%dT%H:%M")]


def visited(world: World, path: str, **query: Any) -> bool:
    return log_has(world["mail"]["log"], path, **query)


def says(text: str, phrase: str) -> bool:
    """Whether `text` contains `phrase`, ignoring case, spacing and end punctuation."""
    return normalize_answer(phrase) in re.sub(r"\s+", " ", text.lower())


def inbox_first_page(state: dict[str, Any]) -> list[dict[str, Any]]:
    return store.in_folder(state, "inbox")[:store.PAGE_SIZE]


def from_contacts(state: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    emails = {c["email"] for c in state["contacts"]}
    return [m for m in messages if m["from"]["email"] in emails]


# ---- oracle moves ------------------------------------------------------------------------------

def search(ui: "OracleUI", query: str) -> Iterator[Action]:
    yield from ui.type_into("#search", query, clear=True)
    yield ui.press("enter")


def open_row(ui: "OracleUI", message_id: int) -> Iterator[Action]:
    """Open a message of the list shown, turning its pages until the message is on one."""
    row = f".msg-row[data-id='{message_id}'] .msg-link"
    while not ui.exists(row):
        yield from ui.click(".pagination a[aria-label='Next page']")
    yield from ui.click(row)


def attach(ui: "OracleUI", filename: str) -> Iterator[Action]:
    yield from ui.click("#attach-button")
    yield from ui.click(f".file-option[data-file='{filename}']")
    yield from ui.click("#files-done")


def sender_questions(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Who sent which of the first inbox rows (visible on the start page)."""
    rows = inbox_first_page(state)[:6]
    questions = []
    for m in rows[:3]:
        others = list(dict.fromkeys(r["from"]["name"] for r in rows if r["from"]["name"] != m["from"]["name"]))[:3]
        if len(others) == 3:
            questions.append({"question": f"Who sent the email with the subject \"{m['subject']}\"?",
                              "answer": m["from"]["name"], "distractors": others})
    return questions
