"""Reading and changing one mailbox state: folder listings, search, flags, moves, labels and
sending, with the validation the compose form reports. The app's handlers change the state
only through here; templates read it through here too, so both agree on what a folder is.

A message lives in exactly one folder: a system folder (inbox, sent, drafts, archive, trash)
or a custom label, written ``label:<name>``. Starred is a view over the starred flag.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from gui_gym.suites.localweb.apps.mail.data import NOW

FOLDERS = {"inbox": "Inbox", "starred": "Starred", "sent": "Sent", "drafts": "Drafts",
           "archive": "Archive", "trash": "Trash"}
MOVE_TARGETS = ("inbox", "archive", "trash")
PAGE_SIZE = 25
LABEL_MAX_CHARS = 30
_EMAIL = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[A-Za-z]{2,}$")
_NAMED = re.compile(r"^\s*(.*?)\s*<([^<>]+)>\s*$")


class MailError(ValueError):
    """A request the mailbox refuses; `field` names the form field the message belongs to."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def find(state: dict[str, Any], message_id: Any) -> dict[str, Any] | None:
    for message in state["messages"]:
        if str(message["id"]) == str(message_id):
            return message
    return None


def folder_title(folder: str) -> str:
    return folder[len("label:"):] if folder.startswith("label:") else FOLDERS.get(folder, folder)


def newest_first(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(messages, key=lambda m: (m["date"], m["id"]), reverse=True)


def in_folder(state: dict[str, Any], folder: str) -> list[dict[str, Any]]:
    """The messages a folder view lists, newest first."""
    if folder == "starred":
        chosen = [m for m in state["messages"] if m["starred"] and m["folder"] != "trash"]
    else:
        chosen = [m for m in state["messages"] if m["folder"] == folder]
    return newest_first(chosen)


def unread_count(state: dict[str, Any], folder: str) -> int:
    return sum(1 for m in in_folder(state, folder) if not m["read"])


def search(state: dict[str, Any], query: str) -> list[dict[str, Any]]:
    """Messages outside Trash whose sender, recipients, subject, body or attachment names
    contain every word of `query` (case-insensitive), newest first."""
    words = query.lower().split()
    if not words:
        return []

    def haystack(m: dict[str, Any]) -> str:
        return " ".join([m["from"]["name"], m["from"]["email"], *m["to"], *m["cc"], m["subject"],
                         m["body"], *m["attachments"]]).lower()
    return newest_first([m for m in state["messages"]
                         if m["folder"] != "trash" and all(w in haystack(m) for w in words)])


def page_of(items: list[Any], page: int, size: int = PAGE_SIZE) -> tuple[list[Any], int, int]:
    """(items on `page`, the page actually shown, number of pages); pages count from 1."""
    pages = max(1, -(-len(items) // size))
    page = min(max(page, 1), pages)
    return items[(page - 1) * size:page * size], page, pages


def check_folder(state: dict[str, Any], folder: str) -> str:
    if folder in MOVE_TARGETS or (folder.startswith("label:") and folder[len("label:"):] in state["labels"]):
        return folder
    targets = [*MOVE_TARGETS, *(f"label:{name}" for name in state["labels"])]
    raise MailError("folder", f"cannot move messages to {folder!r}; expected one of {targets}")


def messages_by_ids(state: dict[str, Any], ids: Any) -> list[dict[str, Any]]:
    if not isinstance(ids, list) or not ids:
        raise MailError("ids", f"expected a non-empty list of message ids, received {ids!r}")
    found = [find(state, i) for i in ids]
    missing = [i for i, m in zip(ids, found) if m is None]
    if missing:
        raise MailError("ids", f"no message with id(s) {missing}")
    return found  # type: ignore[return-value]


def move(state: dict[str, Any], messages: list[dict[str, Any]], folder: str) -> None:
    """Move to a folder or label; ``deleted`` removes messages that already are in Trash."""
    if folder == "deleted":
        if any(m["folder"] != "trash" for m in messages):
            raise MailError("folder", "only messages in Trash can be deleted forever")
        gone = {m["id"] for m in messages}
        state["messages"] = [m for m in state["messages"] if m["id"] not in gone]
        return
    folder = check_folder(state, folder)
    for message in messages:
        if message["folder"] in ("sent", "drafts") and folder == "inbox":
            raise MailError("folder", "sent messages and drafts cannot be moved to the Inbox")
        message["folder"] = folder


def create_label(state: dict[str, Any], name: Any) -> str:
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise MailError("name", "Give the label a name")
    if len(name) > LABEL_MAX_CHARS or ":" in name:
        raise MailError("name", f"Label names have at most {LABEL_MAX_CHARS} characters and no ':'")
    if name.lower() in (existing.lower() for existing in [*state["labels"], *FOLDERS.values()]):
        raise MailError("name", f"A folder or label called {name!r} already exists")
    state["labels"].append(name)
    state["labels"].sort(key=str.lower)
    return name


def suggestions(state: dict[str, Any], query: str, limit: int = 6) -> list[dict[str, str]]:
    """Contacts whose name or address starts a word with `query`, for the To/Cc fields."""
    query = query.strip().lower()
    hits = []
    for contact in state["contacts"]:
        words = contact["name"].lower().split() + [contact["email"]]
        if query and (contact["name"].lower().startswith(query) or any(w.startswith(query) for w in words)):
            hits.append({"label": f"{contact['name']} <{contact['email']}>", "email": contact["email"]})
    return hits[:limit]


def parse_address(text: Any, field: str) -> str:
    """An address from ``name@host`` or ``Name <name@host>``."""
    raw = text.strip() if isinstance(text, str) else ""
    named = _NAMED.match(raw)
    address = named.group(2).strip() if named else raw
    if not _EMAIL.match(address):
        raise MailError(field, f"{raw!r} is not a valid email address")
    return address.lower()


def _addresses(payload: dict[str, Any], field: str) -> list[str]:
    values = payload.get(field) or []
    if isinstance(values, str):
        values = [v for v in re.split(r"[,;]", values) if v.strip()]
    if not isinstance(values, list):
        raise MailError(field, f"expected a list of addresses, received {values!r}")
    addresses: list[str] = []
    for value in values:
        address = parse_address(value, field)
        if address not in addresses:
            addresses.append(address)
    return addresses


def _reference(state: dict[str, Any], payload: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = payload.get(key)
    if value in (None, ""):
        return None
    message = find(state, value)
    if message is None:
        raise MailError(key, f"no message with id {value!r}")
    return message


def compose(state: dict[str, Any], payload: dict[str, Any], as_draft: bool) -> dict[str, Any]:
    """Send (or save as a draft) what the compose form holds; returns the stored message."""
    to, cc = _addresses(payload, "to"), _addresses(payload, "cc")
    subject = str(payload.get("subject") or "").strip()
    if not as_draft and not to:
        raise MailError("to", "Add at least one recipient")
    if not as_draft and not subject:
        raise MailError("subject", "Add a subject")
    reply, forward, draft = (_reference(state, payload, k) for k in ("reply_to", "forward_of", "draft_id"))
    if draft is not None and draft["folder"] != "drafts":
        raise MailError("draft_id", f"message {draft['id']} is not a draft")
    allowed = set(state["files"])
    for source in (forward, draft):
        if source is not None:
            allowed.update(source["attachments"])
    attachments = payload.get("attachments") or []
    if not isinstance(attachments, list) or any(a not in allowed for a in attachments):
        raise MailError("attachments", f"attachments must be files from My files, received {attachments!r}")
    if draft is not None:
        state["messages"].remove(draft)
    state["clock"] += 1
    message = {
        "id": state["next_id"], "folder": "drafts" if as_draft else "sent", "from": dict(state["me"]),
        "to": to, "cc": cc, "subject": subject, "body": str(payload.get("body") or ""),
        "date": (NOW + timedelta(minutes=state["clock"])).strftime("%Y-%m-%dT%H:%M"), "read": True,
        "starred": False, "attachments": list(dict.fromkeys(attachments)),
        "reply_to": reply["id"] if reply else None, "forward_of": forward["id"] if forward else None, "meta": {},
    }
    state["next_id"] += 1
    state["messages"].append(message)
    return message
