"""The wiki templates' base (`WikiTemplate`), the oracle moves they share and what their
checks read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import normalize_answer
from gui_gym.suites.localweb.apps.wiki import data
from gui_gym.suites.localweb.apps.wiki.data import EDITORS, HELP_SECTION, stamp
from gui_gym.suites.localweb.apps.wiki.views import recent_changes
from gui_gym.suites.localweb.framework import log_has
from gui_gym.suites.localweb.templates import TaskTemplate, World

if TYPE_CHECKING:
    from gui_gym.suites.localweb.oracle_ui import OracleUI

Check = Callable[[World], bool]


# ---- what the oracles do ---------------------------------------------------------------------

def open_page(ui: "OracleUI", section: str, slug: str) -> Iterator[Action]:
    """Through the section tree: expand the page's section unless it is open, click the page."""
    if not ui.exists(f".tree details[data-section='{section}'][open]"):
        yield from ui.click(f".tree details[data-section='{section}'] > summary")
    yield from ui.click(f".tree a[data-page='{slug}']")


def page_tab(ui: "OracleUI", tab: str) -> Iterator[Action]:
    yield from ui.click(f".page-tabs a[data-tab='{tab}']")


def edit_section(ui: "OracleUI", index: int, text: str, summary: str) -> Iterator[Action]:
    """From an article: open a section's editor, replace its text, summarise, save."""
    yield from ui.click(f".editsection a[data-section='{index}']")
    yield from ui.type_into("#wpTextbox", text, clear=True)
    yield from ui.type_into("#summary", summary)
    yield from ui.click("form.editor button[type=submit]")


# ---- what the checks read ---------------------------------------------------------------------

def wiki(world: World) -> dict[str, Any]:
    return world["wiki"]


def text_of(world: World, slug: str) -> str:
    return wiki(world)["pages"][slug]["revisions"][-1]["text"]


def last_revision(world: World, slug: str) -> dict[str, Any]:
    return wiki(world)["pages"][slug]["revisions"][-1]


def visited(path: str, **query: str) -> Check:
    """A milestone: the agent loaded `path` (with these query values) at some point."""
    return lambda w: log_has(wiki(w)["log"], path, **query)


def summary_is(world: World, slug: str, wanted: str) -> bool:
    """The page's latest revision is the signed-in editor's, with this summary."""
    revision = last_revision(world, slug)
    return revision["user"] == wiki(world)["me"] and normalize_answer(revision["summary"]) == normalize_answer(wanted)


def articles(world: World) -> list[str]:
    return sorted(s for s, p in wiki(world)["pages"].items() if p["section"] != HELP_SECTION)


def page_params(world: World, slug: str) -> dict[str, str]:
    """What every page-bound template keeps: the page's slug, title and section."""
    page = wiki(world)["pages"][slug]
    return {"slug": slug, "title": page["title"], "section": page["section"]}


def add_revision(world: World, slug: str, text: str, user: str, summary: str, minute: int) -> dict[str, Any]:
    """A revision made before the episode (yesterday evening), e.g. a typo or vandalism."""
    state = wiki(world)
    revision = {"id": 1 + max(r["id"] for p in state["pages"].values() for r in p["revisions"]),
                "ts": stamp(1, 22 * 60 + minute), "user": user, "summary": summary, "text": text}
    state["pages"][slug]["revisions"].append(revision)
    return revision


def main_questions(world: World) -> list[dict[str, Any]]:
    """Facts on the main page, the start page of every wiki template."""
    state = wiki(world)
    titles = [state["pages"][s]["title"] for s in articles(world)]
    featured = state["pages"][state["featured"]]["title"]
    latest = recent_changes(state)[0][0]["user"]
    return [
        {"question": "Which article is featured on the main page?", "answer": featured,
         "distractors": [t for t in titles if t != featured][:3]},
        {"question": "How many articles does the wiki have?", "answer": str(len(titles)),
         "distractors": [str(len(titles) + d) for d in (-4, 2, 8)]},
        {"question": "Who made the most recent edit listed on the main page?", "answer": latest,
         "distractors": [e for e in EDITORS if e != latest][:3]},
    ]


class WikiTemplate(TaskTemplate):
    """What every wiki template shares: the app, its seeded state, its start-page facts."""

    app = "wiki"
    initial_state = staticmethod(data.initial_state)

    def app_questions(self, world: World) -> list[dict[str, Any]]:
        return main_questions(world)
