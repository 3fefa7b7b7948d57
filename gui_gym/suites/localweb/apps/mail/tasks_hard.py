"""Mail's hard templates: multi-page flows through search, reading, compose with several
recipients and attachments, labels and the contacts directory."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import named, normalize_answer
from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.mail.base import (MailTemplate, attach, contact, from_contacts, message, open_row,
                                                    says, search, sent, visited)
from gui_gym.suites.localweb.apps.mail.data import WEEKDAYS
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.people import HOME_COMPANY
from gui_gym.suites.localweb.templates import World

NOTES = ("Please review this before Thursday.", "FYI, see the attached file.", "Can you take a look at this?",
         "Sharing this for our next meeting.", "Let me know what you think.")
NEW_LABELS = ("Review", "Follow-up", "Clients", "Reference", "Waiting", "Q1 files")
EVENTS = ("team offsite", "customer summit", "partner workshop", "annual planning day", "charity run",
          "product showcase")
VENUES = ("Harbor Hall", "Lighthouse Loft", "Riverside Pavilion", "Glasshouse Studio", "Old Mill Center",
          "Skyline Terrace")
DATE_WINDOW = ("2026-03-01", "2026-04-30")
"""The days a summary's date is told apart from: every date `SummarizeDetails` draws, and more."""
OUTREACH = ("Invitation: spring partner day", "Updated price list", "Contract renewal", "Quarterly review agenda",
            "New support hours")


def date_forms(iso: str) -> list[str]:
    """Ways a person writes a date: 2026-03-19, March 19, Mar 19, 19 March, 3/19, 19.03."""
    day = date.fromisoformat(iso)
    month, short = f"{day:%B}".lower(), f"{day:%b}".lower()
    return [iso, f"{month} {day.day}", f"{short} {day.day}", f"{day.day} {month}", f"{day.day} {short}",
            f"{day.month}/{day.day}", f"{day.month:02d}/{day.day:02d}", f"{day.day:02d}.{day.month:02d}"]


class ForwardAttachment(MailTemplate):
    template_id = "mail.forward-attachment"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = world["mail"]
        m = rng.choice([m for m in from_contacts(state, store.in_folder(state, "inbox")) if m["attachments"]])
        people = rng.sample([c["name"] for c in state["contacts"] if c["email"] != m["from"]["email"]], 3)
        return {"id": m["id"], "sender": m["from"]["name"], "file": m["attachments"][0], "to": people[:2],
                "cc": people[2], "note": rng.choice(NOTES), "label": rng.choice(NEW_LABELS)}

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Forward the email from {p['sender']} that has the attachment {p['file']} to {p['to'][0]} and "
                f"{p['to'][1]}, with {p['cc']} in Cc and the note \"{p['note']}\". Then file that original email "
                f"under a new label called \"{p['label']}\".")

    def _forwards(self, world: World) -> list[dict[str, Any]]:
        emails = {contact(world["mail"], n)["email"] for n in self.params["to"]}
        return [m for m in sent(world) if m["forward_of"] == self.params["id"] and set(m["to"]) == emails]

    def _complete(self, world: World) -> bool:
        cc = contact(world["mail"], self.params["cc"])["email"]
        return any(m["cc"] == [cc] and self.params["file"] in m["attachments"] and says(m["body"], self.params["note"])
                   for m in self._forwards(world))

    def _filed(self, world: World) -> bool:
        return message(world, self.params["id"])["folder"] == f"label:{self.params['label']}"

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(self._complete(world) and self._filed(world))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        return [("opened the forward form for the email", lambda w: visited(w, "/compose", forward=p["id"])),
                ("forwarded it to both recipients", lambda w: bool(self._forwards(w))),
                ("the forward has the Cc, the note and the attachment", self._complete),
                (f"created the label {p['label']}", lambda w: p["label"] in w["mail"]["labels"]),
                (f"the original is filed under {p['label']}", self._filed)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from search(ui, p["file"])
        yield from open_row(ui, p["id"])
        yield from ui.click("#forward")
        for name in p["to"]:
            yield from ui.pick_suggestion("to", name)
        yield from ui.pick_suggestion("cc", p["cc"])
        yield from ui.type_into("#body", p["note"])
        yield from ui.click("#send")
        yield from ui.click("#move-button")
        yield from ui.click("#new-label-item")
        yield from ui.type_into("#label-name", p["label"])
        yield from ui.click("#label-create")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Search for {p['file']} and open {p['sender']}'s email", "Click Forward",
                f"Add {p['to'][0]} and {p['to'][1]} in To, and {p['cc']} in Cc, from the suggestions",
                f"Type the note \"{p['note']}\" and click Send (you are back on the original email)",
                "Open Move to, choose New label...", f"Name it {p['label']} and click Create and move"]


class SummarizeDetails(MailTemplate):
    template_id = "mail.summarize-details"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        venue, other = rng.sample(VENUES, 2)
        people = rng.sample([c["name"] for c in world["mail"]["contacts"]], 3)
        day = date(2026, 3, 9).toordinal() + rng.randrange(0, 45)
        while date.fromordinal(day).weekday() >= 5:
            day += 1
        return {"event": rng.choice(EVENTS), "venue": venue, "other_venue": other, "date": date.fromordinal(day).isoformat(),
                "venue_from": people[0], "date_from": people[1], "recipient": people[2]}

    def prepare(self, world: World) -> None:
        p, state = self.params, world["mail"]
        day = date.fromisoformat(p["date"])
        mails = [(p["venue_from"], "2026-03-01T17:40", f"Venue for the {p['event']}",
                  f"Hi Sam,\n\n{p['other_venue']} was fully booked, so we have booked {p['venue']} for the "
                  f"{p['event']}. It holds up to 80 people."),
                 (p["date_from"], "2026-02-27T11:15", f"{p['event'].capitalize()} date confirmed",
                  f"Hi Sam,\n\nThe {p['event']} is confirmed for {WEEKDAYS[day.weekday()]}, {day:%B} {day.day}. "
                  "Please block your calendar.")]
        for name, stamp, subject, body in mails:
            person = contact(state, name)
            state["messages"].append({
                "id": state["next_id"], "folder": "inbox", "from": {"name": name, "email": person["email"]},
                "to": [state["me"]["email"]], "cc": [], "subject": subject, "body": f"{body}\n\n{name.split()[0]}",
                "date": stamp, "read": False, "starred": False, "attachments": [], "reply_to": None,
                "forward_of": None, "meta": {"fact": subject}})
            state["next_id"] += 1

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"{p['venue_from']} and {p['date_from']} each emailed you about the {p['event']}: one sent the venue, "
                f"the other the date. Send {p['recipient']} an email with the subject \"{self.subject}\" that gives "
                "both the venue and the date.")

    @property
    def subject(self) -> str:
        return f"{self.params['event'].capitalize()} details"

    def _source_ids(self, world: World) -> list[int]:
        return [m["id"] for m in world["mail"]["messages"]
                if "fact" in m["meta"] and self.params["event"] in m["meta"]["fact"].lower()]

    def _sent_to(self, world: World) -> list[dict[str, Any]]:
        email = contact(world["mail"], self.params["recipient"])["email"]
        return [m for m in sent(world) if email in m["to"] and m["subject"].strip().lower() == self.subject.lower()]

    def _names_the_date(self, body: str) -> bool:
        """Whether `body` names the event's date and no other day around it (a body listing
        every date of the spring is no summary)."""
        first, last = (date.fromisoformat(day) for day in DATE_WINDOW)
        days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
        forms = {day: {normalize_answer(form) for form in date_forms(day)} for day in days}
        found = named(body, [form for day_forms in forms.values() for form in day_forms])
        return {day for day, day_forms in forms.items() if found & day_forms} == {self.params["date"]}

    def evaluate(self, world: World, answer: str | None) -> float:
        p = self.params
        return float(any(says(m["body"], p["venue"]) and not says(m["body"], p["other_venue"])
                         and self._names_the_date(m["body"]) for m in self._sent_to(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        def read(w: World) -> int:
            return sum(visited(w, f"/message/{i}") for i in self._source_ids(w))
        return [("read one of the two emails", lambda w: read(w) >= 1), ("read both emails", lambda w: read(w) >= 2),
                ("opened a new message", lambda w: visited(w, "/compose")),
                (f"sent {self.params['recipient']} an email with the subject", lambda w: bool(self._sent_to(w))),
                ("the email gives the right venue and date", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        day = date.fromisoformat(p["date"])
        first, second = sorted(self._source_ids({"mail": self.original()}))
        yield from search(ui, p["event"])
        yield from open_row(ui, first)
        yield Action("navigate_back")
        yield from open_row(ui, second)
        yield from ui.click("#compose")
        yield from ui.pick_suggestion("to", p["recipient"])
        yield from ui.type_into("#subject", self.subject)
        yield from ui.type_into("#body", f"The {p['event']} will be at {p['venue']} on {day:%B} {day.day}.")
        yield from ui.click("#send")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Search for \"{p['event']}\"", f"Open {p['venue_from']}'s email and note the venue (not the booked-out one)",
                f"Go back and open {p['date_from']}'s email and note the date", "Click Compose",
                f"Add {p['recipient']} in To, type the subject \"{self.subject}\"",
                "Write the venue and the date in the message and click Send"]


class MailCompany(MailTemplate):
    template_id = "mail.mail-company"
    difficulty = "hard"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        contacts = world["mail"]["contacts"]
        sizes: dict[str, int] = {}
        for c in contacts:
            sizes[c["company"]] = sizes.get(c["company"], 0) + 1
        company = rng.choice(sorted(name for name, n in sizes.items() if name != HOME_COMPANY and n <= 4))
        return {"company": company, "people": [c["name"] for c in contacts if c["company"] == company],
                "cc": rng.choice([c["name"] for c in contacts if c["company"] == HOME_COMPANY]),
                "subject": rng.choice(OUTREACH), "file": rng.choice(world["mail"]["files"])}

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Send one email to every contact at {p['company']} (see Contacts), with {p['cc']} in Cc, the subject "
                f"\"{p['subject']}\" and the file {p['file']} attached.")

    def _emails(self, world: World) -> set[str]:
        return {contact(world["mail"], n)["email"] for n in self.params["people"]}

    def _reaching(self, world: World) -> list[dict[str, Any]]:
        return [m for m in sent(world) if set(m["to"]) & self._emails(world)]

    def _all_in_to(self, world: World) -> list[dict[str, Any]]:
        return [m for m in self._reaching(world) if set(m["to"]) == self._emails(world)]

    def evaluate(self, world: World, answer: str | None) -> float:
        p, cc = self.params, contact(world["mail"], self.params["cc"])["email"]
        return float(any(m["cc"] == [cc] and m["subject"].strip().lower() == p["subject"].lower()
                         and m["attachments"] == [p["file"]] for m in self._all_in_to(world)))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        return [("opened a new message", lambda w: visited(w, "/compose")),
                (f"sent an email to someone at {self.params['company']}", lambda w: bool(self._reaching(w))),
                (f"the email went to all of {self.params['company']}'s contacts", lambda w: bool(self._all_in_to(w))),
                ("with the Cc, the subject and the attachment", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from ui.click("#contacts-link")
        yield from ui.click(f".pills a[href$='company={p['company'].replace(' ', '+')}']")
        yield from ui.click("#compose")
        for name in p["people"]:
            yield from ui.pick_suggestion("to", name)
        yield from ui.pick_suggestion("cc", p["cc"])
        yield from ui.type_into("#subject", p["subject"])
        yield from attach(ui, p["file"])
        yield from ui.click("#send")

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Open Contacts", f"Filter by {p['company']} and note its people", "Click Compose",
                "Add each of them in To from the suggestions", f"Add {p['cc']} in Cc",
                f"Type the subject \"{p['subject']}\"", f"Attach {p['file']} from My files", "Click Send"]
