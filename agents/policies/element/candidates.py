"""The element policy's action space: the candidate actions of a page, from its accessibility
tree (`gui_gym.a11y_text`) and the strings worth typing that the instruction holds.

Each step lists: click each interactive element, type into each text field each string drawn
from the instruction (quoted spans, numbers, times, e-mails, capitalised names), press Enter,
scroll, done. Candidates depend on the observation and the instruction only, never on a plan,
so a candidate's index means the same action under the plain prompt that BEPA stores as under
the plan-conditioned one it acted with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from gui_gym.a11y_text import Element
from gui_gym.actions import Action

CLICK_ROLES = frozenset({"link", "button", "checkbox", "radio", "tab", "menuitem", "menuitemcheckbox",
                         "menuitemradio", "option", "switch", "treeitem", "combobox"})
FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox"})
"""Roles typed into; a combobox (a native select) is both clicked and typed into, which picks
the option the text starts, as a keyboard user does."""
STOPWORDS = frozenset("a an the and or of to in on for at by with from into your you it its is are be this that "
                      "as then than all any each one".split())
_QUOTED = (re.compile(r'"([^"]{1,120})"'), re.compile(r"\u201c([^\u201d]{1,120})\u201d"),
           re.compile(r"(?<![\w])'([^']{1,120})'(?![\w])"))
_PLAIN = (re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"), re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
          re.compile(r"\b\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?\b"),
          re.compile(r"(?:\b\d+\s)?\b[A-Z][\w'&-]*(?:\s(?:(?:of|&)\s)?[A-Z][\w'&-]*\b)*"), re.compile(r"\$?\d+(?:[.,]\d+)*"))
"""Strings worth typing: quoted spans first, then e-mails, dates, times, capitalised runs and
numbers that are not part of an earlier find."""


@dataclass(frozen=True)
class Candidate:
    """One action the policy can take: ``click`` / ``type`` (with `text`) on an element, or
    ``enter``, ``scroll_down``, ``scroll_up``, ``done``."""

    kind: str
    element: Element | None = None
    text: str | None = None

    def to_action(self) -> Action:
        if self.kind == "click":
            return Action.click_element(self.element.index)
        if self.kind == "type":
            return Action("type", element=self.element.index, text=self.text)
        if self.kind == "enter":
            return Action.key("enter")
        if self.kind in ("scroll_down", "scroll_up"):
            return Action.scroll(self.kind.split("_")[1])
        return Action.done()

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What makes two candidates the same action across pages: kind, role, name, text."""
        el = self.element
        return self.kind, el.role if el else "", el.name if el else "", self.text or ""

    def describe(self) -> str:
        if self.element is None:
            return self.kind.replace("_", " ")
        target = f'[{self.element.index}] {self.element.role} "{self.element.name}"'
        return f'type "{self.text}" into {target}' if self.kind == "type" else f"click {target}"


def instruction_strings(instruction: str, limit: int = 12) -> list[str]:
    """Strings worth typing, drawn from the instruction (see `_QUOTED`, `_PLAIN`), in order
    of appearance, without duplicates. A capitalised run that opens a sentence also gives
    the run without its first word ("Send Keiko Fischer" -> "Keiko Fischer")."""
    found: list[tuple[int, int, str]] = []
    for pattern in _QUOTED:
        found += [(m.start(1), m.end(1), m.group(1)) for m in pattern.finditer(instruction)]
    for pattern in _PLAIN:
        for m in pattern.finditer(instruction):
            if any(start <= m.start() and m.end() <= end for start, end, _ in found):
                continue
            found.append((m.start(), m.end(), m.group(0)))
            opens = m.start() == 0 or instruction[:m.start()].rstrip().endswith((".", "!", "?"))
            if opens and " " in m.group(0):
                rest = m.group(0).split(" ", 1)[1]
                found.append((m.start() + len(m.group(0)) - len(rest), m.end(), rest))
    out: list[str] = []
    for _, _, text in sorted(found, key=lambda item: (item[0], -item[1])):
        text = text.strip(" .,;:")
        if text and text not in out:
            out.append(text)
    return out[:limit]


def candidates_of(elements: Sequence[Element], strings: Sequence[str]) -> list[Candidate]:
    """Every candidate action of a page."""
    out = []
    for el in elements:
        if "disabled" in el.flags:
            continue
        if el.role in CLICK_ROLES:
            out.append(Candidate("click", el))
        if el.role in FIELD_ROLES:
            out.extend(Candidate("type", el, text) for text in strings)
    out += [Candidate("enter"), Candidate("scroll_down"), Candidate("scroll_up"), Candidate("done")]
    return out


def ranks_of(candidates: Sequence[Candidate]) -> list[int]:
    """Each candidate's place, in page order and capped at 3, among the page's candidates
    alike to it: the same kind and role, and a name with the same punctuation (the cards of
    a result list, "Name, $12.50, rated 4.1"): "the first product" is a position, not a name."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for c in candidates:
        alike = (c.kind, c.element.role if c.element else "-", re.sub(r"[\w\s]", "", c.element.name if c.element else ""))
        out.append(min(seen.get(alike, 0), 3))
        seen[alike] = seen.get(alike, 0) + 1
    return out


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]
