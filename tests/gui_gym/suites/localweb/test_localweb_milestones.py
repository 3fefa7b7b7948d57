"""Milestones mean the step was really done: for every template whose milestone a broader
action could satisfy (a search for one letter, ticking every brand, any diff), the broader
action leaves it unmet and the real step meets it.

The requests are written into the app's log as the server writes them (`AppServer`), so
each check reads exactly what it reads in an episode; test_localweb_templates.py replays
the oracles, whose real steps meet every milestone in order."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from gui_gym.suites.localweb.apps.admin.data import PAGE_SIZE
from gui_gym.suites.localweb.apps.admin.views_users import filtered_users
from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.shop.views_browse import query_products, slug, suggestions
from gui_gym.suites.localweb.framework import Request
from gui_gym.suites.localweb.suite import LocalWebSuite, LocalWebTask

SEEDS = range(8)


@pytest.fixture(scope="module")
def suite():
    return LocalWebSuite()


def milestone(task: LocalWebTask, text_start: str) -> Callable[[], bool]:
    """The world check of the task's milestone whose text starts with `text_start`."""
    check = next(check for text, check in task.template.milestones() if text.startswith(text_start))
    return lambda: bool(check(task.world))


def load(task: LocalWebTask, path: str, **query: Any) -> None:
    """Log a GET of the task's app, as the server does for every request it serves."""
    task.world[task.template.app]["log"].append({"method": "GET", "path": path,
                                                 "query": {k: str(v) for k, v in query.items()}})


def test_admin_finding_a_member_needs_their_row_on_screen_not_a_letter_of_their_name(suite):
    checked = 0
    for seed in SEEDS:
        task = suite.make_task("admin.user-role", seed)
        found = milestone(task, "Found")
        name, uid = task.template.params["name"], task.template.params["user_id"]
        state = task.world["admin"]
        for letter in sorted({c for c in name.lower() if c.isalpha()}):
            if uid not in [u["id"] for u in filtered_users(state, {"q": letter})[:PAGE_SIZE]]:  # not on the first page
                load(task, "/users", q=letter)
                checked += 1
        assert not found(), (seed, name)
        load(task, "/users", q=name.split()[-1])  # the real step: search the name
        assert found(), (seed, name)
    assert checked >= len(SEEDS)


def test_admin_paging_to_the_member_finds_them(suite):
    task = suite.make_task("admin.user-role", 0)
    found, uid = milestone(task, "Found"), task.template.params["user_id"]
    members = [u["id"] for u in filtered_users(task.world["admin"], {})]
    page = members.index(uid) // PAGE_SIZE + 1
    load(task, "/users", page=page + 1)
    assert not found()
    load(task, "/users", page=page)
    assert found()


def test_wiki_searching_a_letter_or_a_short_word_is_no_search_for_the_event(suite):
    for seed in SEEDS:
        task = suite.make_task("wiki.event-river-tributary", seed)
        searched, event = milestone(task, "Searched"), task.template.params["event"]
        for broad in ("e", "a", "of", "the", event[:3], "city"):
            load(task, "/search", q=broad)
        assert not searched(), (seed, event)
        load(task, "/search", q=max(event.split(), key=len))  # one word of the event's name
        assert searched(), (seed, event)


def test_wiki_the_diff_of_another_revision_shows_nothing_of_the_vandal(suite):
    for seed in SEEDS:
        task = suite.make_task("wiki.revert-vandalism", seed)
        looked = milestone(task, "Looked at what the vandal changed")
        p = task.template.params
        revisions = task.world["wiki"]["pages"][p["slug"]]["revisions"]
        for revision in revisions:
            if revision["user"] != p["vandal"]:
                load(task, f"/diff/{p['slug']}", rev=revision["id"])
        assert not looked(), seed
        load(task, f"/diff/{p['slug']}", rev=task.template.vandal_rev)
        assert looked(), seed


def test_mail_a_search_that_spreads_the_project_over_pages_did_not_find_it(suite):
    checked = 0
    for seed in SEEDS:
        task = suite.make_task("mail.file-project", seed)
        searched, p = milestone(task, "searched"), task.template.params
        state = task.world["mail"]
        projects = sorted({m["meta"]["project"] for m in state["messages"] if "project" in m["meta"]})
        for broad in ("e", "a", "the", "project", " ".join(projects)):  # the last names every project at once
            results = store.search(state, broad)
            if not set(p["ids"]) <= {m["id"] for m in results[:store.PAGE_SIZE]}:
                load(task, "/search", q=broad)
                checked += 1
        assert not searched(), seed
        load(task, "/search", q=f"Project {p['project']}")
        assert searched(), seed
    assert checked >= len(SEEDS)


def _all_brands(task: LocalWebTask, cat: str) -> dict[str, str]:
    brands = query_products(task.world["shop"], Request("GET", "/", {"cat": cat}, {}))["brands"]
    return {f"brand-{slug(b)}": "1" for b in brands}


@pytest.mark.parametrize("task_id", ["shop.cheapest-in-category", "shop.filter-count"])
def test_shop_ticking_every_brand_filters_by_none(suite, task_id):
    for seed in SEEDS:
        task = suite.make_task(task_id, seed)
        p = task.template.params
        cat, alone = p["category"], {f"brand-{slug(p['brand'])}": "1"}
        by_brand, by_more = (("filtered by the brand", "filtered by the maximum") if task_id == "shop.filter-count"
                             else ("filtered the category", "sorted by price"))
        filtered = milestone(task, by_brand)
        extra = {"sort": "price-asc"} if task_id == "shop.cheapest-in-category" else {"max": p["max"]}
        load(task, "/", cat=cat, **_all_brands(task, cat), **extra)
        assert len(_all_brands(task, cat)) > 1 and not filtered(), seed
        later = milestone(task, by_more)
        assert not later(), seed
        load(task, "/", cat=cat, **alone, **extra)
        assert filtered() and later(), seed


def test_shop_typing_a_letter_in_the_search_box_is_no_search_for_the_product(suite):
    checked = 0
    for seed in SEEDS:
        task = suite.make_task("shop.variant-quantity", seed)
        searched, name = milestone(task, "searched"), task.template.params["name"]
        for letter in "aeiou":
            if name not in [s["label"] for s in suggestions(task.world["shop"], letter)]:
                load(task, "/api/suggest", q=letter)
                checked += 1
        assert not searched(), seed
        load(task, "/api/suggest", q=name[:len(name) // 2 + 1])  # typing the name, half-way
        assert searched(), seed
    assert checked >= len(SEEDS)
