"""Wiki task templates, hard: compare articles and write a new one, undo vandalism through
the history, and carry out a correction requested on a talk page."""

from __future__ import annotations

from typing import Any

from gui_gym.suites.localweb.answers import answer_matches, normalize_answer, numbers_in
from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.apps.wiki.base import (WikiTemplate, add_revision, edit_section, open_page, page_params,
                                                    page_tab, summary_is, text_of, visited, wiki)
from gui_gym.suites.localweb.apps.wiki.data import EDITORS, VANDALS, number
from gui_gym.suites.localweb.templates import World

COMPARISONS = {"Cities": ("Population", "population", "Largest cities of Meridian"),
               "Mountains": ("Elevation", "elevation", "Highest peaks of Meridian"),
               "Rivers": ("Length", "length", "Longest rivers of Meridian"),
               "Islands": ("Area", "area", "Largest islands of Meridian")}


def _threads(world: World, slug: str) -> list[dict[str, Any]]:
    return wiki(world)["pages"][slug]["talk"]


class CompareAndCreate(WikiTemplate):
    """Read three infoboxes, write a page linking them, and answer which is the greatest."""

    template_id = "wiki.compare-and-create"
    difficulty = "hard"
    answer_required = True

    def sample_params(self, world, rng):
        section = rng.choice(sorted(COMPARISONS))
        fact, noun, title = COMPARISONS[section]
        pages = wiki(world)["pages"]
        while True:
            slugs = rng.sample(sorted(s for s, p in pages.items() if p["section"] == section), 3)
            values = [pages[s]["facts"][fact] for s in slugs]
            if len(set(values)) == 3:
                break
        best = slugs[values.index(max(values))]
        return {"section": section, "noun": noun, "pages": slugs, "titles": [pages[s]["title"] for s in slugs],
                "answer": pages[best]["title"], "new_title": title, "new_slug": title.replace(" ", "_")}

    @property
    def instruction(self):
        p = self.params
        a, b, c = p["titles"]
        return (f"Compare the {p['noun']} of “{a}”, “{b}” and “{c}” (see their infoboxes). Create a page titled "
                f"“{p['new_title']}” in the {p['section']} section that links to all three articles, then answer "
                f"with the title of the one with the greatest {p['noun']}.")

    def _page(self, world):
        return wiki(world)["pages"].get(self.params["new_slug"])

    def _links_all(self, world):
        page = self._page(world)
        if page is None or page["section"] != self.params["section"]:
            return False
        linked = {target.lower() for target in markup.links(page["revisions"][-1]["text"])}
        return all(t.lower() in linked for t in self.params["titles"])

    def evaluate(self, world, answer):
        return float(self._links_all(world)
                     and answer_matches(answer, self.params["answer"], candidates=self.params["titles"]))

    def milestones(self):
        p = self.params
        return [*((f"Read “{t}”", visited(f"/page/{s}")) for s, t in zip(p["pages"], p["titles"], strict=True)),
                (f"Created “{p['new_title']}”", lambda w: self._page(w) is not None),
                ("The new page links all three articles", self._links_all)]

    def oracle(self, ui):
        p = self.params
        yield from open_page(ui, p["section"], p["pages"][0])
        for slug in p["pages"][1:]:
            yield from ui.click(f".tree a[data-page='{slug}']")
        yield from ui.click(".byline a.section-link")
        yield from ui.click("a.create-here")
        a, b, c = p["titles"]
        yield from ui.type_into("#title", p["new_title"])
        yield from ui.type_into("#wpTextbox", f"A comparison of [[{a}]], [[{b}]] and [[{c}]] by {p['noun']}. "
                                              f"The greatest is [[{p['answer']}]].")
        yield from ui.type_into("#summary", "New comparison page")
        yield from ui.click("form.editor button[type=submit]")
        yield ui.answer(p["answer"])

    def expert_plan(self):
        p = self.params
        return [*(f"Open “{t}” and note the {p['noun']} in its infobox" for t in p["titles"]),
                f"Open the {p['section']} section page and press Create a page in this section",
                f"Title it “{p['new_title']}” and write a sentence linking [[{']], [['.join(p['titles'])}]]",
                "Save the page", "Answer with the title of the greatest"]


class RevertVandalism(WikiTemplate):
    """Inspect the history and diffs, restore the last good revision, report on the talk page."""

    template_id = "wiki.revert-vandalism"
    difficulty = "hard"

    def sample_params(self, world, rng):
        slug = rng.choice([s for s in sorted(wiki(world)["pages"]) if wiki(world)["pages"][s]["infobox"]])
        return {**page_params(world, slug), "vandal": rng.choice(VANDALS),
                "insult": rng.choice(("is the most boring place in the world, nobody should go there",
                                      "was invented by a bored teacher and does not exist",
                                      "smells terrible and everyone knows it"))}

    def prepare(self, world):
        p = self.params
        good = wiki(world)["pages"][p["slug"]]["revisions"][-1]
        self.good = good
        parts = markup.sections(good["text"])
        parts[0] = f"{p['title']} {p['insult']}!!!"
        first = add_revision(world, p["slug"], "\n\n".join(parts), p["vandal"], "", 5)
        parts = markup.sections(first["text"])
        add_revision(world, p["slug"], "\n\n".join(parts[:1] + parts[2:]), p["vandal"], "fixed", 12)
        self.vandal_rev = first["id"]

    @property
    def instruction(self):
        return (f"An anonymous user vandalized “{self.params['title']}” in its latest edits. Restore the last good version "
                "from the page history, with an edit summary that mentions vandalism. Then start a discussion on the "
                "talk page titled “Vandalism reverted” saying which revision number you restored.")

    def _read_a_vandal_diff(self, world):
        """The diff of one of the vandal's revisions was opened (the diff of any other
        revision shows nothing of the vandalism)."""
        revisions = self.original()["pages"][self.params["slug"]]["revisions"]
        return any(visited(f"/diff/{self.params['slug']}", rev=r["id"])(world) for r in revisions
                   if r["user"] == self.params["vandal"])

    def _restored(self, world):
        return text_of(world, self.params["slug"]) == self.good["text"]

    def _summary(self, world):
        last = wiki(world)["pages"][self.params["slug"]]["revisions"][-1]
        return self._restored(world) and last["user"] == wiki(world)["me"] and "vandal" in last["summary"].lower()

    def _names_the_revision(self, text: str) -> bool:
        """Whether `text` names the restored revision's number and no other revision of the
        page (a list of every revision number names none)."""
        revisions = {r["id"] for r in self.original()["pages"][self.params["slug"]]["revisions"]}
        return {n for n in numbers_in(text) if n in revisions} == {self.good["id"]}

    def _reported(self, world):
        me = wiki(world)["me"]
        return any(normalize_answer(t["subject"]) == "vandalism reverted" and t["comments"][0]["user"] == me
                   and self._names_the_revision(t["comments"][0]["text"]) for t in _threads(world, self.params["slug"]))

    def evaluate(self, world, answer):
        return float(self._summary(world) and self._reported(world))

    def milestones(self):
        slug = self.params["slug"]
        return [("Opened the page history", visited(f"/history/{slug}")),
                ("Looked at what the vandal changed", self._read_a_vandal_diff),
                ("Restored the last good version", self._restored),
                ("The restore's summary mentions vandalism", self._summary),
                ("Reported it on the talk page", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        p, good = self.params, self.good["id"]
        yield from open_page(ui, p["section"], p["slug"])
        yield from page_tab(ui, "history")
        yield from ui.click(f"a.diff[data-rev='{self.vandal_rev}']")
        yield from page_tab(ui, "history")
        yield from ui.click(f"a.view[data-rev='{good}']")
        yield from ui.click("button.restore")
        yield from ui.type_into("#restore-summary", f"Revert vandalism, restore revision {good}", clear=True)
        yield from ui.click("#restore-dialog button[type=submit]")
        yield from page_tab(ui, "talk")
        yield from ui.type_into("#subject", "Vandalism reverted")
        yield from ui.type_into("#topic-text", f"Restored revision {good}, the last version before the vandalism.")
        yield from ui.click("form.new-topic button[type=submit]")

    def expert_plan(self):
        return [f"Open “{self.params['title']}” and its View history tab",
                "Open the diff of the first anonymous edit to see what it broke",
                "Back in the history, open the last revision before the anonymous edits",
                "Press Restore this version, write a summary mentioning vandalism, and confirm",
                "Open the Talk tab and add a topic “Vandalism reverted” naming the restored revision number"]


class TalkRequest(WikiTemplate):
    """Carry out a table correction someone asked for on the talk page, then close the loop."""

    template_id = "wiki.talk-request"
    difficulty = "hard"

    def sample_params(self, world, rng):
        slug = rng.choice([s for s in sorted(wiki(world)["pages"]) if wiki(world)["pages"][s]["infobox"]])
        text = text_of(world, slug)
        index = next(i for i, part in enumerate(markup.sections(text)) if markup.table_rows(part))
        header, *rows = markup.table_rows(markup.sections(text)[index])
        column = next(c for c in range(1, len(header)) if rows[0][c].replace(",", "").isdigit())
        row = rng.choice([r for r in rows if int(r[column].replace(",", "")) >= 10])
        value = int(row[column].replace(",", ""))
        is_year = header[column] in ("First climbed", "Opened")
        new = value + rng.choice((-1, 1)) * (rng.randrange(1, 9) if is_year else max(1, value // rng.randrange(5, 20)))
        return {**page_params(world, slug), "index": index, "row": row[0], "column": header[column],
                "old": row[column], "new": number(new) if header[column] == "Population" else str(new),
                "requester": rng.choice(EDITORS)}

    def prepare(self, world):
        p = self.params
        threads = _threads(world, p["slug"])
        self.thread = 1 + max((t["id"] for t in threads), default=0)
        threads.append({"id": self.thread, "subject": "Table correction", "resolved": False, "comments": [
            {"user": p["requester"], "ts": f"{wiki(world)['today']} 08:15",
             "text": f"The {p['column'].lower()} given for {p['row']} in the table should be {p['new']}, not {p['old']}, "
                     "according to the latest provincial yearbook. Could someone fix it?"}]})
        text = text_of(world, p["slug"])
        parts = markup.sections(text)
        lines = parts[p["index"]].split("\n")
        for i, line in enumerate(lines):
            cells = markup.table_rows(line)
            if cells and cells[0][0] == p["row"]:
                cells[0][markup.table_rows(parts[p["index"]])[0].index(p["column"])] = p["new"]
                lines[i] = markup.table_line(cells[0])
        parts[p["index"]] = "\n".join(lines)
        self.expected = "\n\n".join(parts)

    @property
    def instruction(self):
        return (f"Someone asked on the talk page of “{self.params['title']}” for a correction to the article's table. "
                "Make the requested change with the edit summary “Per talk page”, then reply in that discussion with "
                "“Done” and mark it as resolved.")

    def _thread(self, world):
        return next(t for t in _threads(world, self.params["slug"]) if t["id"] == self.thread)

    def _corrected(self, world):
        return text_of(world, self.params["slug"]) == self.expected

    def _replied(self, world):
        me = wiki(world)["me"]
        return any(c["user"] == me and normalize_answer(c["text"]).startswith("done") for c in self._thread(world)["comments"])

    def evaluate(self, world, answer):
        return float(self._corrected(world) and summary_is(world, self.params["slug"], "Per talk page")
                     and self._replied(world) and self._thread(world)["resolved"])

    def milestones(self):
        return [("Read the request on the talk page", visited(f"/talk/{self.params['slug']}")),
                ("Corrected the table", self._corrected),
                ("Saved with the summary “Per talk page”",
                 lambda w: self._corrected(w) and summary_is(w, self.params["slug"], "Per talk page")),
                ("Replied “Done”", self._replied),
                ("Marked the request resolved", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        p = self.params
        thread = f"section.thread[data-thread='{self.thread}']"
        yield from open_page(ui, p["section"], p["slug"])
        yield from page_tab(ui, "talk")
        yield from page_tab(ui, "article")
        yield from edit_section(ui, p["index"], markup.sections(self.expected)[p["index"]], "Per talk page")
        yield from page_tab(ui, "talk")
        yield from ui.click(f"{thread} details.reply > summary")
        yield from ui.type_into(f"{thread} textarea[name=text]", "Done")
        yield from ui.click(f"{thread} details.reply button[type=submit]")
        yield from ui.click(f"{thread} button.resolve")

    def expert_plan(self):
        p = self.params
        return [f"Open “{p['title']}” and read the “Table correction” discussion on its Talk tab",
                "Back on the article, click [edit] next to the table's section heading",
                f"Change {p['row']}'s {p['column'].lower()} from {p['old']} to {p['new']}",
                "Type “Per talk page” as the summary and save", "Return to the Talk tab, reply “Done” and mark it resolved"]
