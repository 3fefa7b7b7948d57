"""Mail's world, generated from the seed: the user, a contact directory, custom labels, a
"My files" shelf for attachments, and about ninety messages spread over the folders.

Everything is a pure function of the seed and dated relative to the app's fixed today
(`TODAY`), never the machine clock, so an episode's inbox is the same on every machine.
Subjects are unique, project code names appear only in their own threads, and each meeting
mail states its time once in the body (after a superseded time), so templates can draw
unambiguous targets from any world.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from gui_gym.suites.localweb.framework import seeded
from gui_gym.suites.localweb.people import COMPANIES, FIRST_NAMES, HOME_COMPANY, LAST_NAMES, ME, PROJECTS

TODAY = "2026-03-02"
NOW = datetime(2026, 3, 2, 9, 0)

JOB_TITLES = ("Account Manager", "Project Lead", "Engineer", "Designer", "Finance Officer",
              "Operations Manager", "Analyst", "Sales Director", "Consultant", "Product Manager")
LABELS = ("Finance", "Projects", "Travel")
FILES = (
    "q1-report.pdf", "budget-2026.xlsx", "team-photo.jpg", "roadmap.pptx", "contract-draft.docx",
    "meeting-notes.txt", "price-list.pdf", "floor-plan.png", "travel-policy.pdf", "logo-final.svg",
    "customer-survey.csv", "press-release.docx", "invoice-template.xlsx", "org-chart.pdf",
    "launch-plan.pptx", "security-policy.pdf", "expenses-feb.xlsx", "product-sheet.pdf",
    "training-video.mp4", "vendor-list.csv", "board-minutes.docx", "brand-colors.pdf",
    "warehouse-map.png", "sprint-review.pptx",
)
PROJECT_ASPECTS = ("kickoff notes", "status update", "budget question", "timeline change",
                   "risks to review", "next milestones", "vendor shortlist", "test results")
MEETING_TOPICS = ("budget review", "hiring plan", "vendor contract", "website redesign",
                  "quarterly goals", "security audit", "customer feedback", "onboarding",
                  "pricing", "launch checklist", "office move", "data migration")
ROOMS = ("Aurora", "Birch", "Cedar", "Dune", "Elm", "Fjord")
DOCUMENTS = ("Q1 roadmap", "pricing proposal", "hiring plan", "security checklist",
             "brand guidelines", "sales forecast", "vendor comparison", "onboarding guide",
             "release notes", "board deck", "market study", "support handbook")
DOC_EXTENSIONS = ("pdf", "docx", "pptx", "xlsx")
CASUAL = (
    ("Lunch on {weekday}?", "Are you free for lunch on {weekday}? The new place on Harbor Street opened."),
    ("Thanks for your help", "Thanks again for jumping in yesterday, it saved us a lot of time."),
    ("Coffee next week?", "Would you like to grab a coffee next week and catch up?"),
    ("Quick question about the report", "Do you know who owns the numbers in section 3 of the report?"),
    ("Parking permits", "The new parking permits are ready; you can pick yours up at reception."),
    ("Conference recommendations", "Any conference you would recommend this spring? I have budget for one."),
    ("Welcome aboard", "Welcome to the team! Let me know if you need anything during your first weeks."),
    ("Follow-up from the workshop", "Here are my notes from the workshop, let me know what you think."),
    ("Out of office next Friday", "Heads up: I am out of office next Friday, back on Monday."),
    ("Happy hour on Thursday", "We are meeting at the Lantern after work on Thursday, join us!"),
)
NOTIFIERS = (
    ("IT Helpdesk", "helpdesk@northwind.test", "Your password expires in {n} days",
     "Your network password expires in {n} days. Change it from the self-service portal."),
    ("Northwind News", "news@northwind.test", "Weekly digest #{n}",
     "This week: new cafeteria menu, the spring volunteering day and a record sales month."),
    ("HR Team", "hr@northwind.test", "Benefits enrollment reminder ({n})",
     "Open enrollment closes soon. Review your benefits in the HR portal."),
    ("Facilities", "facilities@northwind.test", "Fire drill on floor {n}",
     "A fire drill is planned on floor {n} this week. Please follow the wardens."),
)
CITIES = ("Lisbon", "Oslo", "Toronto", "Nairobi", "Osaka", "Denver", "Tallinn", "Seville")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def _contacts(rng: random.Random) -> list[dict[str, Any]]:
    names = [(f, l) for f in FIRST_NAMES for l in LAST_NAMES]
    rng.shuffle(names)
    firsts: set[str] = set()
    picked = []
    for first, last in names:  # unique first names too, so "Elena" names one person
        if first not in firsts:
            firsts.add(first)
            picked.append((first, last))
    groups = [(HOME_COMPANY, 6)] + [(company, rng.choice((3, 3, 4, 4))) for company in COMPANIES]
    contacts, index = [], 0
    for company, size in groups:
        domain = slug(company).replace("-", "") + ".test"
        for _ in range(size):
            first, last = picked[index]
            index += 1
            contacts.append({
                "id": index, "name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}@{domain}",
                "company": company, "title": rng.choice(JOB_TITLES),
                "phone": f"+1 555 {rng.randrange(100, 1000)} {rng.randrange(1000, 10000)}",
            })
    return sorted(contacts, key=lambda c: c["name"])


def _meeting(rng: random.Random, topic: str, sent: datetime, sender_first: str) -> tuple[str, str, dict]:
    day = (sent + timedelta(days=rng.randrange(2, 9))).replace(hour=0, minute=0)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    hour, minute = rng.randrange(9, 17), rng.choice((0, 15, 30, 45))
    time = f"{hour:02d}:{minute:02d}"
    old = f"{rng.choice([h for h in range(9, 17) if h != hour]):02d}:{rng.choice((0, 30)):02d}"
    subject = rng.choice(("{T} meeting", "Meeting about the {t}", "Rescheduled: {t} meeting")).format(
        T=topic.capitalize(), t=topic)
    when = f"{WEEKDAYS[day.weekday()]}, {day:%B} {day.day}"
    body = (f"Hi Sam,\n\nWe had pencilled in {old} for the {topic} meeting, but that clashes with the "
            f"all-hands. The meeting now starts at {time} on {when} in the {rng.choice(ROOMS)} room.\n\n"
            f"Please bring your notes.\n\nThanks,\n{sender_first}")
    return subject, body, {"topic": topic, "time": time, "date": f"{day:%Y-%m-%d}"}


def initial_state(seed: int) -> dict[str, Any]:
    """A fresh mailbox for one episode; pure function of `seed`."""
    rng = seeded(seed, "mail")
    contacts = _contacts(rng)
    external = [c for c in contacts if c["company"] != HOME_COMPANY]
    messages: list[dict[str, Any]] = []
    moment = NOW - timedelta(minutes=rng.randrange(5, 50))

    def add(folder: str, sender: dict, subject: str, body: str, *, to: list[str] | None = None,
            attachments: tuple[str, ...] = (), meta: dict | None = None) -> None:
        nonlocal moment
        if any(m["subject"] == subject for m in messages):
            return  # subjects are unique, so a subject names one message
        messages.append({
            "id": len(messages) + 1, "folder": folder, "from": {"name": sender["name"], "email": sender["email"]},
            "to": to or [ME["email"]], "cc": [], "subject": subject, "body": body,
            "date": moment.strftime("%Y-%m-%dT%H:%M"), "read": True, "starred": rng.random() < 0.12,
            "attachments": list(attachments), "reply_to": None, "forward_of": None, "meta": meta or {},
        })
        moment -= timedelta(minutes=rng.randrange(90, 1300))

    projects = rng.sample(PROJECTS, 3)
    kinds = (["meeting"] * 10 + ["project"] * 11 + ["invoice"] * 8 + ["document"] * 12 +
             ["casual"] * 10 + ["notice"] * 14 + ["sent"] * 12 + ["travel"] * 4)
    rng.shuffle(kinds)
    topics, docs, casual = list(MEETING_TOPICS), list(DOCUMENTS), list(CASUAL)
    for pool in (topics, docs, casual):
        rng.shuffle(pool)
    aspects = {p: rng.sample(PROJECT_ASPECTS, len(PROJECT_ASPECTS)) for p in projects}
    for index, kind in enumerate(kinds):
        sender = rng.choice(contacts)
        first = sender["name"].split()[0]
        folder = "inbox" if index < 66 or rng.random() < 0.4 else "archive"
        if kind == "meeting":
            subject, body, meta = _meeting(rng, topics.pop(), moment, first)
            add(folder, sender, subject, body, meta=meta)
        elif kind == "project":
            project = projects[sum("project" in m["meta"] for m in messages) % 3]
            aspect = aspects[project].pop()
            add(folder, sender, f"Project {project}: {aspect}",
                f"Hi Sam,\n\nSharing the {aspect} for Project {project}. "
                f"Let me know if anything is unclear before Friday.\n\nBest,\n{first}", meta={"project": project})
        elif kind == "invoice":
            number = rng.randrange(1000, 10000)
            sender = rng.choice(external)
            add("label:Finance" if folder == "archive" else folder, sender,
                f"Invoice INV-{number} from {sender['company']}",
                f"Hello,\n\nPlease find attached invoice INV-{number} for February services, "
                f"due within 30 days.\n\nKind regards,\n{sender['name']}", attachments=(f"invoice-{number}.pdf",))
        elif kind == "document" and docs:
            doc = docs.pop()
            name = f"{slug(doc)}.{rng.choice(DOC_EXTENSIONS)}"
            add(folder, sender, f"{doc.capitalize()} for review",
                f"Hi Sam,\n\nAttached is the latest {doc}. Comments welcome by the end of the week."
                f"\n\nCheers,\n{first}", attachments=(name,))
        elif kind == "casual" and casual:
            subject, text = casual.pop()
            weekday = rng.choice(WEEKDAYS[:5])
            add(folder, sender, subject.format(weekday=weekday),
                f"Hi Sam,\n\n{text.format(weekday=weekday)}\n\n{first}")
        elif kind == "travel":
            city = CITIES[index % len(CITIES)]
            add("label:Travel", {"name": "Travel Desk", "email": "travel@northwind.test"},
                f"Trip to {city} confirmed", f"Your trip to {city} is booked. The itinerary is attached.",
                attachments=(f"itinerary-{slug(city)}.pdf",))
        elif kind == "sent":
            add("sent", ME, f"Notes for {sender['name'].split()[0]}",
                f"Hi {first},\n\nAs promised, a short summary of where we are. More next week.\n\nSam",
                to=[sender["email"]])
        else:
            name, email, subject, body = NOTIFIERS[index % len(NOTIFIERS)]
            n = rng.randrange(2, 40)
            add(folder if index % 3 else "trash", {"name": name, "email": email},
                subject.format(n=n), body.format(n=n))
    for message in messages[:30]:
        message["read"] = rng.random() < 0.55
    drafts = rng.sample(external, 2)
    for contact in drafts:
        add("drafts", ME, f"Proposal for {contact['company']}",
            f"Hi {contact['name'].split()[0]},\n\nFollowing our call, here is", to=[contact["email"]])
    return {"me": dict(ME), "contacts": contacts, "labels": list(LABELS), "files": list(FILES),
            "messages": messages, "next_id": len(messages) + 1, "clock": 0}
