"""Wiki task templates, easy and medium, and the oracle moves and checks they share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.wiki import data, markup
from gui_gym.suites.localweb.apps.wiki.data import EDITORS, HELP_SECTION, stamp
from gui_gym.suites.localweb.apps.wiki.views import recent_changes
from gui_gym.suites.localweb.framework import log_has
from gui_gym.suites.localweb.templates import TaskTemplate, World, answer_matches, normalize_answer

if TYPE_CHECKING:
    from gui_gym.suites.localweb.oracle_ui import OracleUI

Check = Callable[[World], bool]
EVENTS = ("Lantern Regatta", "Festival of Kites", "Copper Bell Fair", "Midwinter Torch Walk", "Saltwater Horse Race",
          "Feast of the Ferrymen")
REPLIES = ("Thanks, I will look for a better source.", "Good point, I have noted it for the next revision.",
           "I agree with this suggestion.", "Could you add a reference for that?")


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


# ---- easy ----------------------------------------------------------------------------------

class InfoboxFact(WikiTemplate):
    template_id = "wiki.infobox-fact"
    difficulty = "easy"
    start_page_questions = True
    answer_required = True

    def sample_params(self, world, rng):
        slug = rng.choice(articles(world))
        page = wiki(world)["pages"][slug]
        field, value = rng.choice([(k, v) for k, v in page["infobox"] if "[[" not in v])
        answer = str(page["facts"][field]) if field in page["facts"] else markup.plain(value)
        return {**page_params(world, slug), "field": field, "answer": answer}

    @property
    def instruction(self):
        return (f"According to the infobox of the article “{self.params['title']}”, what is its "
                f"{self.params['field'].lower()}?")

    def evaluate(self, world, answer):
        return float(answer_matches(answer, self.params["answer"]))

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


# ---- medium --------------------------------------------------------------------------------

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
        return float(answer_matches(answer, self.params["answer"]))

    def milestones(self):
        return [("Searched for the event", self._searched),
                (f"Opened “{self.params['title']}”", visited(f"/page/{self.params['slug']}")),
                ("Opened the river's article", visited(f"/page/{self.params['river']}"))]

    def _searched(self, world):
        event = normalize_answer(self.params["event"])
        return any(e["path"] == "/search" and normalize_answer(e["query"].get("q")) and
                   normalize_answer(e["query"].get("q")) in event for e in wiki(world)["log"])

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
