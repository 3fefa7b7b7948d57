"""LocalWeb wiki: what is particular to it (the generic checks of every template are in
test_localweb_templates.py): well-posed prepared worlds, the markup, the wiki's validation,
and its widgets in the browser."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.actions import Action
from gui_gym.suites.localweb.apps import wiki
from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.framework import Request
from gui_gym.suites.localweb.suite import LocalWebSuite



@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/LocalWeb-v0", apps=["wiki"], observe_screenshot=False)
    yield env
    env.close()


def test_prepared_worlds_are_well_posed():
    suite = LocalWebSuite(["wiki"])
    for seed in range(25):
        typo = suite.make_task("wiki.fix-typo", seed)
        p = typo.template.params
        text = typo.world["wiki"]["pages"][p["slug"]]["revisions"][-1]["text"]
        assert text.count(p["typo"]) == 1 and p["word"] not in text
        event = suite.make_task("wiki.event-river-tributary", seed)
        hits = [p for p in event.world["wiki"]["pages"].values()
                if event.template.params["event"] in p["revisions"][-1]["text"]]
        assert len(hits) == 1
        request = suite.make_task("wiki.talk-request", seed)
        page = request.world["wiki"]["pages"][request.template.params["slug"]]
        assert page["revisions"][-1]["text"] != request.template.expected
        assert page["talk"][-1]["subject"] == "Table correction"


# ---- markup -----------------------------------------------------------------------------------

TEXT = "Lead with [[River Esk|the river]].\n\n== History ==\nOld <b>.\n\n| A | B |\n| 1 | 2 |\n\n== See also ==\n* [[Nowhere]]"


def test_sections_round_trip_and_replace():
    parts = markup.sections(TEXT)
    assert "\n\n".join(parts) == TEXT and [markup.heading_of(p) for p in parts] == ["", "History", "See also"]
    changed = markup.replace_section(TEXT, 1, "== History ==\nNew.\r\n")
    assert markup.sections(changed)[1] == "== History ==\nNew." and markup.sections(changed)[2] == parts[2]
    assert markup.table_rows(TEXT) == [["A", "B"], ["1", "2"]]


def test_render_escapes_and_resolves_links():
    html = markup.render(TEXT, lambda title: "/wiki/page/River_Esk" if title == "River Esk" else None,
                         lambda index: f"/edit?section={index}")
    assert "<a href='/wiki/page/River_Esk'>the river</a>" in html
    assert "class='new' href='/wiki/new?title=Nowhere'" in html  # a red link offers to create the page
    assert "Old &lt;b&gt;." in html and "<table class='wikitable'>" in html and "data-section='2'" in html
    assert markup.plain(TEXT).startswith("Lead with the river. History. Old <b>.")


def test_diff_marks_removed_and_added_lines():
    rows = markup.diff("a\nb\nc", "a\nB\nc")
    assert "class='del'><td>−</td><td>b</td>" in rows and "class='ins'><td>+</td><td>B</td>" in rows


# ---- the wiki itself (no browser) ------------------------------------------------------------

def call(state, method: str, path: str, query: dict | None = None, form: dict | None = None):
    return wiki.APP.handle(Request(method, path, query or {}, form or {}), state)


def test_edit_validation_and_revisions():
    state = wiki.APP.initial_state(0)
    slug = next(s for s, p in state["pages"].items() if p["section"] == "Cities")
    before = len(state["pages"][slug]["revisions"])
    section = markup.sections(state["pages"][slug]["revisions"][-1]["text"])[1]
    same = call(state, "POST", f"/edit/{slug}", form={"section": "1", "text": section, "summary": "x"})
    assert same.status == 422 and b"You have not changed anything yet." in same.body
    empty = call(state, "POST", f"/edit/{slug}", form={"text": "  ", "summary": ""})
    assert empty.status == 422 and len(state["pages"][slug]["revisions"]) == before
    assert call(state, "GET", f"/edit/{slug}", query={"section": "99"}).status == 404
    ok = call(state, "POST", f"/edit/{slug}", form={"section": "1", "text": section + " More.", "summary": "Expand"})
    latest = state["pages"][slug]["revisions"][-1]
    assert ok.status == 303 and latest["user"] == state["me"] and latest["text"].count(" More.") == 1
    assert latest["id"] > state["pages"][slug]["revisions"][-2]["id"]
    restore = call(state, "POST", f"/revert/{slug}", form={"rev": str(state["pages"][slug]["revisions"][-2]["id"])})
    assert restore.status == 303 and " More." not in state["pages"][slug]["revisions"][-1]["text"]


def test_new_page_validation():
    state = wiki.APP.initial_state(0)
    existing = next(iter(state["pages"].values()))["title"]
    bad = call(state, "POST", "/new", form={"title": existing.upper(), "section": "", "text": "short"})
    body = bad.body.decode()
    assert bad.status == 422 and "already exists" in body and "Choose the section" in body and "at least a sentence" in body
    slash = call(state, "POST", "/new", form={"title": "Rivers/Lakes", "section": "Rivers", "text": "x" * 30})
    assert slash.status == 422 and b"Titles are 3 to 80 characters" in slash.body
    ok = call(state, "POST", "/new", form={"title": "Bridges of Meridian", "section": "Railways",
                                           "text": "A list of bridges, see [[Nowhere]]."})
    assert ok.status == 303 and state["pages"]["Bridges_of_Meridian"]["section"] == "Railways"


def test_search_suggest_and_escaping():
    state = wiki.APP.initial_state(1)
    title = next(iter(state["pages"].values()))["title"]
    suggestions = json.loads(call(state, "GET", "/api/suggest", query={"q": title[:4].lower()}).body)
    assert {"label": title, "href": f"/wiki/page/{title.replace(' ', '_')}"} in suggestions
    results = call(state, "GET", "/search", query={"q": "<script>"}).body
    main = results.split(b"<main>")[1].split(b"</main>")[0]  # the page's own scripts follow it
    assert b"<script>" not in main and b"0 results" in results
    rivers = call(state, "GET", "/search", query={"q": "tributary"}).body.decode()
    assert "6 results for" in rivers and "<mark>Tributary</mark>" in rivers
    assert call(state, "GET", "/page/No_Such_Page").status == 404


def test_talk_topics_need_subject_and_text():
    state = wiki.APP.initial_state(2)
    slug = next(s for s, p in state["pages"].items() if p["section"] == "Islands")
    bad = call(state, "POST", f"/talk/{slug}", form={"subject": "", "text": ""})
    assert bad.status == 422 and b"Write a subject." in bad.body
    assert call(state, "POST", f"/talk/{slug}", form={"subject": "Ferry times", "text": "Summer only?"}).status == 303
    thread = state["pages"][slug]["talk"][-1]
    assert thread["subject"] == "Ferry times" and thread["comments"][0]["user"] == state["me"]
    assert call(state, "POST", f"/talk/{slug}/{thread['id']}/resolve").status == 303 and thread["resolved"]
    assert call(state, "POST", f"/talk/{slug}/{thread['id']}/explode").status == 404


# ---- widgets in the browser ---------------------------------------------------------------

def test_autocomplete_and_tree_in_the_browser(env):
    env.reset(seed=0, options={"task_id": "wiki.watch-page", "instance_seed": 0})
    backend = env.unwrapped.backend
    x, y, w, h = backend.locate(".wiki-search input[name=q]")
    env.step(Action.click(x + w / 2, y + h / 2))
    env.step(Action.type("Mount"))
    options = backend.evaluate("() => Array.from(document.querySelectorAll('[role=option]')).map(o => o.innerText)")
    assert options and all("mount" in o.lower() for o in options)
    x, y, w, h = backend.locate(".tree details[data-section='Rivers'] > summary")
    env.step(Action.click(x + w / 2, y + h / 2))
    assert backend.evaluate("() => document.querySelector(\".tree details[data-section='Rivers']\").open") is True
