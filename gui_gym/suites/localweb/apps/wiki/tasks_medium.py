"""Wiki task templates, medium: a two-hop lookup, a section edit, a talk-page reply (6-12 steps)."""

from __future__ import annotations

import re

from gui_gym.suites.localweb.answers import answer_matches, normalize_answer
from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.apps.wiki.base import (WikiTemplate, add_revision, articles, edit_section, open_page,
                                                    page_params, page_tab, summary_is, text_of, visited, wiki)
from gui_gym.suites.localweb.apps.wiki.data import EDITORS

EVENTS = ("Lantern Regatta", "Festival of Kites", "Copper Bell Fair", "Midwinter Torch Walk", "Saltwater Horse Race",
          "Feast of the Ferrymen")
REPLIES = ("Thanks, I will look for a better source.", "Good point, I have noted it for the next revision.",
           "I agree with this suggestion.", "Could you add a reference for that?")


class EventRiverTributary(WikiTemplate):
    """Search for a phrase, follow the article's infobox link, read a table: a two-hop lookup."""

    template_id = "wiki.event-river-tributary"
    difficulty = "medium"
    answer_required = True

    def sample_params(self, world, rng):
        pages = wiki(world)["pages"]
        choices = []
        for s in articles(world):
            if pages[s]["section"] != "Cities":
                continue
            river = markup.links(dict(pages[s]["infobox"])["River"])[0]
            river_slug = river.replace(" ", "_")
            rows = markup.table_rows(text_of(world, river_slug))[1:]
            lengths = sorted(int(r[2]) for r in rows)
            if lengths[-1] != lengths[-2]:
                choices.append((s, river_slug, max(rows, key=lambda r: int(r[2]))[0]))
        slug, river_slug, answer = rng.choice(choices)
        return {**page_params(world, slug), "river": river_slug, "event": rng.choice(EVENTS),
                "month": rng.choice(("May", "July", "August", "October")), "answer": answer}

    def prepare(self, world):
        page = wiki(world)["pages"][self.params["slug"]]
        parts = markup.sections(page["revisions"][-1]["text"])
        parts[1] += (f" Every {self.params['month']} the city hosts the {self.params['event']}, which draws visitors "
                     "from across the province.")
        page["revisions"][-1]["text"] = "\n\n".join(parts)

    @property
    def instruction(self):
        return (f"One city article mentions the {self.params['event']}. Which is the longest tributary of the river "
                "that flows through that city, according to the river article's table? Answer with the tributary's name.")

    def evaluate(self, world, answer):
        rows = markup.table_rows(text_of({"wiki": self.original()}, self.params["river"]))[1:]
        return float(answer_matches(answer, self.params["answer"], candidates=[row[0] for row in rows]))

    def milestones(self):
        return [("Searched for the event", self._searched),
                (f"Opened “{self.params['title']}”", visited(f"/page/{self.params['slug']}")),
                ("Opened the river's article", visited(f"/page/{self.params['river']}"))]

    def _searched(self, world):
        """A search whose every word is a word of the event's name, one of them at least four
        letters long ("Regatta", "Lantern Regatta"): a search for a letter or a short word
        ("e", "of") lists every article and finds no event."""
        words = set(re.findall(r"\w+", self.params["event"].lower()))
        for e in wiki(world)["log"]:
            terms = set(re.findall(r"\w+", e["query"].get("q", "").lower())) if e["path"] == "/search" else set()
            if terms and terms <= words and max(map(len, terms)) >= 4:
                return True
        return False

    def oracle(self, ui):
        yield from ui.type_into(".wiki-search input[name=q]", self.params["event"])
        yield ui.press("enter")
        yield from ui.click(f"li.result[data-page='{self.params['slug']}'] a.result-title")
        yield from ui.click(f".infobox a[href$='/page/{self.params['river']}']")
        yield from ui.scroll_into_view("table.wikitable")
        yield ui.answer(self.params["answer"])

    def expert_plan(self):
        return [f"Search the wiki for “{self.params['event']}”", "Open the city article in the results",
                "Follow the River link in its infobox", "Find the longest entry in the Tributaries table and answer its name"]


class FixTypo(WikiTemplate):
    template_id = "wiki.fix-typo"
    difficulty = "medium"
    start_page_questions = True

    def sample_params(self, world, rng):
        while True:
            slug = rng.choice(articles(world))
            text = text_of(world, slug)
            parts = markup.sections(text)
            index = rng.choice((1, 2))
            words = [w for w in set(parts[index].split("\n", 1)[1].replace(".", " ").replace(",", " ").split())
                     if w.isalpha() and w.islower() and len(w) >= 7 and text.count(w) == 1]
            if words:
                break
        word = rng.choice(sorted(words))
        at = rng.choice([i for i in range(1, len(word) - 2) if word[i] != word[i + 1]])
        typo = word[:at] + word[at + 1] + word[at] + word[at + 2:]
        return {**page_params(world, slug), "index": index, "heading": markup.heading_of(parts[index]),
                "word": word, "typo": typo, "editor": rng.choice(EDITORS)}

    def prepare(self, world):
        self.good = text_of(world, self.params["slug"])
        add_revision(world, self.params["slug"], self.good.replace(self.params["word"], self.params["typo"], 1),
                     self.params["editor"], "Reworded", 10)

    @property
    def instruction(self):
        p = self.params
        return (f"The “{p['heading']}” section of the article “{p['title']}” misspells “{p['word']}” as “{p['typo']}”. "
                "Fix the typo by editing that section, with the edit summary “Fix typo”.")

    def _fixed(self, world):
        return text_of(world, self.params["slug"]) == self.good

    def evaluate(self, world, answer):
        return float(self._fixed(world) and summary_is(world, self.params["slug"], "Fix typo"))

    def milestones(self):
        return [("Opened the section editor", visited(f"/edit/{self.params['slug']}", section=str(self.params["index"]))),
                ("Fixed the typo", self._fixed),
                ("Saved with the summary “Fix typo”", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        p = self.params
        yield from open_page(ui, p["section"], p["slug"])
        yield from edit_section(ui, p["index"], markup.sections(self.good)[p["index"]], "Fix typo")

    def expert_plan(self):
        p = self.params
        return [f"Open “{p['title']}”", f"Click [edit] next to the “{p['heading']}” heading",
                f"Change “{p['typo']}” to “{p['word']}” in the text", "Type “Fix typo” as the edit summary",
                "Press Save changes"]


class ReplyOnTalk(WikiTemplate):
    template_id = "wiki.reply-talk"
    difficulty = "medium"

    def sample_params(self, world, rng):
        slug, thread = rng.choice([(s, t) for s in articles(world) for t in wiki(world)["pages"][s]["talk"]])
        return {**page_params(world, slug), "thread": thread["id"], "subject": thread["subject"],
                "author": thread["comments"][0]["user"], "message": rng.choice(REPLIES)}

    def prepare(self, world):
        self.counts = {(s, t["id"]): len(t["comments"]) for s, p in wiki(world)["pages"].items() for t in p["talk"]}

    @property
    def instruction(self):
        p = self.params
        return (f"On the talk page of “{p['title']}”, reply to {p['author']}'s discussion “{p['subject']}” "
                f"with: {p['message']}")

    def _thread(self, world):
        return next(t for t in wiki(world)["pages"][self.params["slug"]]["talk"] if t["id"] == self.params["thread"])

    def _replied(self, world):
        last = self._thread(world)["comments"][-1]
        return last["user"] == wiki(world)["me"] and normalize_answer(last["text"]) == normalize_answer(self.params["message"])

    def evaluate(self, world, answer):
        now = {(s, t["id"]): len(t["comments"]) for s, p in wiki(world)["pages"].items() for t in p["talk"]}
        key = (self.params["slug"], self.params["thread"])
        return float(self._replied(world) and now[key] == self.counts[key] + 1
                     and all(now.get(k) == v for k, v in self.counts.items() if k != key))

    def milestones(self):
        return [(f"Opened “{self.params['title']}”", visited(f"/page/{self.params['slug']}")),
                ("Opened its talk page", visited(f"/talk/{self.params['slug']}")),
                ("Posted the reply in the right discussion", self._replied)]

    def oracle(self, ui):
        p = self.params
        thread = f"section.thread[data-thread='{p['thread']}']"
        yield from open_page(ui, p["section"], p["slug"])
        yield from page_tab(ui, "talk")
        yield from ui.click(f"{thread} details.reply > summary")
        yield from ui.type_into(f"{thread} textarea[name=text]", p["message"])
        yield from ui.click(f"{thread} details.reply button[type=submit]")

    def expert_plan(self):
        p = self.params
        return [f"Open “{p['title']}” and its Talk tab", f"Under “{p['subject']}”, press Reply",
                f"Type: {p['message']}", "Press Post reply"]
