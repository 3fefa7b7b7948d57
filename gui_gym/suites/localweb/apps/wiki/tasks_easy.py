"""Wiki task templates, easy: read an infobox, watch a page, resolve a discussion (2-5 steps)."""

from __future__ import annotations

from typing import Any

from gui_gym.suites.localweb.answers import answer_matches
from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.apps.wiki.base import (WikiTemplate, articles, open_page, page_params, page_tab, visited,
                                                    wiki)


def _infobox_answer(page: dict[str, Any], field: str, value: str) -> str:
    """What an infobox row answers: the article's fact when it keeps one (a number), else the
    row's text."""
    return str(page["facts"][field]) if field in page["facts"] else markup.plain(value)


class InfoboxFact(WikiTemplate):
    template_id = "wiki.infobox-fact"
    difficulty = "easy"
    start_page_questions = True
    answer_required = True

    def sample_params(self, world, rng):
        slug = rng.choice(articles(world))
        page = wiki(world)["pages"][slug]
        field, value = rng.choice([(k, v) for k, v in page["infobox"] if "[[" not in v])
        return {**page_params(world, slug), "field": field, "answer": _infobox_answer(page, field, value)}

    @property
    def instruction(self):
        return (f"According to the infobox of the article “{self.params['title']}”, what is its "
                f"{self.params['field'].lower()}?")

    def evaluate(self, world, answer):
        section, field = self.params["section"], self.params["field"]
        # what a blind answer would list: this field of every article of the section
        others = [_infobox_answer(p, k, v) for p in self.original()["pages"].values() if p["section"] == section
                  for k, v in p["infobox"] if k == field]
        return float(answer_matches(answer, self.params["answer"], candidates=others, question=self.instruction))

    def milestones(self):
        return [(f"Opened “{self.params['title']}”", visited(f"/page/{self.params['slug']}"))]

    def oracle(self, ui):
        yield from open_page(ui, self.params["section"], self.params["slug"])
        yield ui.answer(self.params["answer"])

    def expert_plan(self):
        return [f"Open “{self.params['title']}” from the section tree (or search for it)",
                f"Read the {self.params['field']} row of the infobox", "Answer with its value"]


class WatchPage(WikiTemplate):
    template_id = "wiki.watch-page"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world, rng):
        return page_params(world, rng.choice([s for s in articles(world) if s not in wiki(world)["watchlist"]]))

    def prepare(self, world):
        self.before = set(wiki(world)["watchlist"])

    @property
    def instruction(self):
        return f"Add the article “{self.params['title']}” to your watchlist."

    def evaluate(self, world, answer):
        return float(set(wiki(world)["watchlist"]) == self.before | {self.params["slug"]})

    def milestones(self):
        return [(f"Opened “{self.params['title']}”", visited(f"/page/{self.params['slug']}")),
                ("Watching it", lambda w: self.params["slug"] in wiki(w)["watchlist"])]

    def oracle(self, ui):
        yield from open_page(ui, self.params["section"], self.params["slug"])
        yield from ui.click("button.watch")

    def expert_plan(self):
        return [f"Open “{self.params['title']}” from the {self.params['section']} section of the tree",
                "Press the ☆ Watch button above the article"]


class ResolveThread(WikiTemplate):
    template_id = "wiki.resolve-thread"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world, rng):
        slug, thread = rng.choice([(s, t) for s in articles(world) for t in wiki(world)["pages"][s]["talk"]
                                   if not t["resolved"]])
        return {**page_params(world, slug), "thread": thread["id"], "subject": thread["subject"]}

    def prepare(self, world):
        self.before = {(s, t["id"]): t["resolved"] for s, p in wiki(world)["pages"].items() for t in p["talk"]}

    @property
    def instruction(self):
        return f"On the talk page of “{self.params['title']}”, mark the discussion “{self.params['subject']}” as resolved."

    def _resolved(self, world):
        return any(t["id"] == self.params["thread"] and t["resolved"] for t in wiki(world)["pages"][self.params["slug"]]["talk"])

    def evaluate(self, world, answer):
        now = {(s, t["id"]): t["resolved"] for s, p in wiki(world)["pages"].items() for t in p["talk"]}
        key = (self.params["slug"], self.params["thread"])
        return float(self._resolved(world) and all(now.get(k) == v for k, v in self.before.items() if k != key))

    def milestones(self):
        return [(f"Opened the talk page of “{self.params['title']}”", visited(f"/talk/{self.params['slug']}")),
                ("Marked the discussion resolved", self._resolved)]

    def oracle(self, ui):
        yield from open_page(ui, self.params["section"], self.params["slug"])
        yield from page_tab(ui, "talk")
        yield from ui.click(f"section.thread[data-thread='{self.params['thread']}'] button.resolve")

    def expert_plan(self):
        return [f"Open “{self.params['title']}”", "Switch to its Talk tab",
                f"Press Mark as resolved under “{self.params['subject']}”"]
