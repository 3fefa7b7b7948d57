"""How LocalWeb matches answers (`answers`), and every answer template against blind answers:
an answer that lists candidates at once (a shotgun) fails, the value the oracle answers
passes, and so do the ways a person phrases it. The oracle's answer through the browser is
replayed by test_localweb_templates.py."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Callable

import pytest

from gui_gym.suites.localweb.answers import (answer_matches, as_number, named, names_time, normalize_answer,
                                             numbers_in, times_in)
from gui_gym.suites.localweb.apps import load_apps
from gui_gym.suites.localweb.apps.admin.data import ROLES
from gui_gym.suites.localweb.apps.mail.data import NOW
from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.suite import LocalWebSuite, LocalWebTask

SEEDS = range(10)
ANSWER_TEMPLATES = sorted(t.template_id for t in load_apps()[1] if t.answer_required)


@pytest.fixture(scope="module")
def suite():
    return LocalWebSuite()


# ---- the rules ------------------------------------------------------------------------------

def test_a_number_is_named_alone_in_any_phrasing():
    assert answer_matches("7", 7) and answer_matches("There are 7 items.", 7) and answer_matches("7 (seven)", "7")
    assert answer_matches("$1,234.50", "$1,234.50") and answer_matches("1234.5 dollars", "$1,234.50")
    assert answer_matches("It is rated 4.5 out of 5 stars.", "4.5") and answer_matches("4.5/5", "4.5")
    assert not answer_matches("1 2 3 4 5 6 7", 7) and not answer_matches("7 or 8", 7) and not answer_matches("6-7", 7)
    assert not answer_matches("4.4 4.5 4.6", "4.5") and not answer_matches("8", 7) and not answer_matches("", 7)


def test_numbers_the_question_states_do_not_count_against_the_answer():
    question = "How much was the organization's invoice for March 2025? Answer with the amount."
    assert answer_matches("The March 2025 invoice was $1,234.50.", "$1,234.50", question=question)
    assert not answer_matches("The March 2025 invoice was $1,234.50.", "$1,234.50")
    assert not answer_matches("$1,000.00 $1,234.50 2025", "$1,234.50", question=question)


def test_a_time_is_the_one_time_of_day_the_answer_states():
    assert names_time("14:30", "14:30") and names_time("It ends at 2:30 pm.", "14:30")
    assert names_time("9:30 a.m.", "09:30")
    assert names_time("09:30", "9:30") and names_time("At 14:30, on March 9.", "14:30")
    assert not names_time("09:00 09:30 10:00 10:30 11:00 11:30", "09:30") and not names_time("14:00 to 14:30", "14:30")
    assert not names_time("14:30 pm", "14:30") and not names_time("2:30", "14:30")
    assert not names_time("half past two", "14:30")
    assert times_in("at 2:30 pm or 25:00") == [(14, 30), None]


def test_a_choice_names_the_expected_candidate_and_no_other():
    roles = (*ROLES, "Owner")
    assert answer_matches("Editor", "Editor", candidates=roles)
    assert answer_matches("Amara Okafor is an Editor.", "Editor", candidates=roles)
    assert not answer_matches("Admin Billing Editor Viewer", "Editor", candidates=roles)
    assert not answer_matches("Editor or Viewer", "Editor", candidates=roles)
    assert not answer_matches("Editorial", "Editor", candidates=roles)  # whole words only
    # a candidate inside a longer one is not counted twice, and normalisation is the same on both sides
    assert named("Billing admin, I think", ["Admin", "Billing admin"]) == {"billing admin"}
    gauges = ["Narrow (750 mm)", "Standard (1,435 mm)"]
    assert answer_matches("Narrow (1,000 mm)", "Narrow (1,000 mm)", candidates=gauges)


def test_a_text_answer_without_candidates_must_equal_the_expected_value():
    assert answer_matches("  Lantern Regatta. ", "Lantern Regatta")
    assert not answer_matches("the Lantern Regatta and the Copper Bell Fair", "Lantern Regatta")


def test_normalisation_and_the_readers():
    assert normalize_answer("  The  Answer: 1,234! ") == "the answer: 1234"
    assert numbers_in("$1,234.50 (4.5/5)") == [1234.5, 4.5]
    assert as_number("$12.50") == 12.5 and as_number("12 km") is None and as_number("Narrow (750 mm)") is None


# ---- every answer template against a shotgun ------------------------------------------------

def _every_quarter_hour(task: LocalWebTask, key: str) -> str:
    """Every time of the working day, the expected one included."""
    quarters = {f"{m // 60:02d}:{m % 60:02d}" for m in range(7 * 60, 21 * 60, 15)}
    return " ".join(sorted(quarters | {task.template.params[key]}))


def _field_values(task: LocalWebTask) -> list[str]:
    """shop.product-info: that field of every product, written as the shop writes it."""
    field = task.template.params["field"]
    products = task.world["shop"]["products"]
    return sorted({{"price": f"${p['price'] / 100:,.2f}", "stock": str(p["stock"]), "rating": str(p["rating"])}[field]
                   for p in products})


def _infobox_values(task: LocalWebTask) -> list[str]:
    """wiki.infobox-fact: the asked field in every article of the section."""
    p = task.template.params
    pages = task.world["wiki"]["pages"].values()
    return sorted({str(page["facts"][k]) if k in page["facts"] else markup.plain(v)
                   for page in pages if page["section"] == p["section"] for k, v in page["infobox"] if k == p["field"]})


def _tributaries(task: LocalWebTask) -> list[str]:
    text = task.world["wiki"]["pages"][task.template.params["river"]]["revisions"][-1]["text"]
    return [row[0] for row in markup.table_rows(text)[1:]]


SHOTGUNS: dict[str, Callable[[LocalWebTask], list[str]]] = {
    "admin.invoice-amount": lambda t: [" ".join(sorted({f"${i['amount']:,.2f}"
                                                        for i in t.world["admin"]["billing"]["invoices"]}))],
    "admin.user-role": lambda t: ["Admin Billing Editor Viewer", "Owner, Admin, Billing, Editor or Viewer"],
    "calendar.event-end": lambda t: [_every_quarter_hour(t, "end"), f"{t.template.params['end']} or 06:15"],
    "mail.meeting-time": lambda t: [_every_quarter_hour(t, "time"), f"06:15, {t.template.params['time']}"],
    "shop.filter-count": lambda t: [" ".join(str(n) for n in range(max(13, t.template.params["count"] + 1)))],
    "shop.product-info": lambda t: [" ".join(_field_values(t))],
    "wiki.compare-and-create": lambda t: [", ".join(t.template.params["titles"])],
    "wiki.event-river-tributary": lambda t: [", ".join(_tributaries(t))],
    "wiki.infobox-fact": lambda t: [", ".join(_infobox_values(t))],
}
"""Per answer template, blind answers that list every candidate a guesser would list, the
expected value among them; built from the world, not from the matcher."""

EXPECTED = {"admin.invoice-amount": "amount", "admin.user-role": "role", "calendar.event-end": "end",
            "mail.meeting-time": "time", "shop.filter-count": "count", "shop.product-info": "expected"}
"""The parameter that holds what the oracle answers (default: ``answer``)."""


def _phrasings(value: str) -> list[str]:
    """Ways a person writes the value down; a time also on the 12-hour clock."""
    twelve = []
    if times_in(value):
        hour, minute = map(int, value.split(":"))
        twelve = [f"It is at {hour % 12 or 12}:{minute:02d} {'pm' if hour >= 12 else 'am'}."]
    return [value, f"The answer is {value}.", value.lower(), f"It's {value}!", *twelve]


def _with_the_page_done(task: LocalWebTask) -> None:
    """wiki.compare-and-create also asks for a page linking the three articles: write it into
    the world, so only the answer decides."""
    p = task.template.params
    links = " ".join(f"[[{title}]]" for title in p["titles"])
    task.world["wiki"]["pages"][p["new_slug"]] = {"title": p["new_title"], "section": p["section"],
                                                  "revisions": [{"text": f"A comparison of {links}."}]}


def test_every_answer_template_has_a_shotgun():
    assert sorted(SHOTGUNS) == ANSWER_TEMPLATES


@pytest.mark.parametrize("task_id", ANSWER_TEMPLATES)
def test_a_shotgun_fails_and_the_oracles_answer_passes_in_any_phrasing(suite, task_id):
    for seed in SEEDS:
        task = suite.make_task(task_id, seed)
        if task_id == "wiki.compare-and-create":
            _with_the_page_done(task)
        expected = str(task.template.params[EXPECTED.get(task_id, "answer")])
        for blind in SHOTGUNS[task_id](task):
            assert expected in blind or normalize_answer(expected) in normalize_answer(blind), (seed, blind)
            assert task.template.evaluate(task.world, blind) == 0.0, (task_id, seed, blind)
        for phrasing in _phrasings(expected):
            assert task.template.evaluate(task.world, phrasing) == 1.0, (task_id, seed, phrasing)


def test_the_blind_answers_of_the_report_fail(suite):
    # issue 36: these solved shop.filter-count 300/300, admin.user-role 264/300 and
    # calendar.event-end 138/300 before answers had to name one value
    blind = {"shop.filter-count": "1 2 3 4 5 6 7", "admin.user-role": "Admin Billing Editor Viewer",
             "calendar.event-end": "09:30 10:00 10:30 11:00 11:30 12:00"}
    for task_id, answer in blind.items():
        for seed in range(30):
            task = suite.make_task(task_id, seed)
            assert task.template.evaluate(task.world, answer) == 0.0, (task_id, seed)


@pytest.mark.parametrize("task_id, answer", [("shop.filter-count", "There are {} items."),
                                             ("shop.filter-count", "{} products cost that or less"),
                                             ("admin.user-role", "{} (their role in the organization)"),
                                             ("calendar.event-end", "It ends at {}.")])
def test_sentences_that_name_the_value_pass(suite, task_id, answer):
    task = suite.make_task(task_id, 0)
    assert task.template.evaluate(task.world, answer.format(task.template.params[EXPECTED[task_id]])) == 1.0


# ---- answers written into the world (a sent summary, a talk-page report) ---------------------

def _send(task: LocalWebTask, to_name: str, subject: str, body: str) -> None:
    state = task.world["mail"]
    email = next(c["email"] for c in state["contacts"] if c["name"] == to_name)
    sent_at = (NOW + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    state["messages"].append({"id": state["next_id"], "folder": "sent", "from": state["me"], "to": [email], "cc": [],
                              "subject": subject, "body": body, "date": sent_at, "read": True, "starred": False,
                              "attachments": [], "reply_to": None, "forward_of": None, "meta": {}})
    state["next_id"] += 1


@pytest.mark.parametrize("seed", range(4))
def test_a_summary_names_one_date_not_the_whole_spring(suite, seed):
    task = suite.make_task("mail.summarize-details", seed)
    p, subject = task.template.params, task.template.subject
    day = date.fromisoformat(p["date"])
    every_day = ", ".join(f"{date(2026, 3, 1) + timedelta(days=n):%B} {(date(2026, 3, 1) + timedelta(days=n)).day}"
                          for n in range(61))
    _send(task, p["recipient"], subject, f"It is at {p['venue']}, on one of {every_day}.")
    assert task.template.evaluate(task.world, None) == 0.0
    _send(task, p["recipient"], subject, f"Hi, the {p['event']} is at {p['venue']} on {day:%B} {day.day}. See you!")
    assert task.template.evaluate(task.world, None) == 1.0


def test_a_vandalism_report_names_the_restored_revision_alone(suite):
    task = suite.make_task("wiki.revert-vandalism", 0)
    template, state = task.template, task.world["wiki"]
    good = template.good["id"]
    ids = [r["id"] for r in state["pages"][template.params["slug"]]["revisions"]]

    def report(text: str) -> bool:
        thread = {"id": 99, "subject": "Vandalism reverted", "resolved": False,
                  "comments": [{"user": state["me"], "text": text}]}
        state["pages"][template.params["slug"]]["talk"] = [thread]
        return template._reported(task.world)

    assert not report("Restored one of revisions " + ", ".join(map(str, ids)))
    assert not report(f"Restored revision {good}1.")  # the number, not a string that holds it
    assert report(f"Restored revision {good}, the last version before the vandalism.")
