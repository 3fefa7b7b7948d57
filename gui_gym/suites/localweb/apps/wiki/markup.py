"""The wiki's small markup: ``== Heading ==`` sections, ``[[Page]]`` / ``[[Page|text]]`` links,
``* `` bullets and ``| a | b |`` table rows (first row the header). Rendering, section
splitting for section edits, plain text for search, and line diffs between revisions."""

from __future__ import annotations

import difflib
import re
from typing import Callable
from urllib.parse import quote

from gui_gym.suites.localweb.framework import esc

HEADING_RE = re.compile(r"^==\s*(.+?)\s*==\s*$")
LINK_RE = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")
Resolver = Callable[[str], "str | None"]
"""Page title -> its URL, or None when no such page exists (a red link to create it)."""


def sections(text: str) -> list[str]:
    """The text cut at each heading line: item 0 is the lead (possibly empty), item i the
    i-th section, heading line included. ``"\\n\\n".join`` of the items gives the text back."""
    chunks: list[list[str]] = [[]]
    for line in text.replace("\r\n", "\n").split("\n"):
        if HEADING_RE.match(line):
            chunks.append([])
        chunks[-1].append(line)
    return ["\n".join(chunk).strip("\n") for chunk in chunks]


def heading_of(chunk: str) -> str:
    match = HEADING_RE.match(chunk.split("\n", 1)[0])
    return match.group(1) if match else ""


def replace_section(text: str, index: int, new: str) -> str:
    parts = sections(text)
    parts[index] = new.replace("\r\n", "\n").strip("\n")
    return "\n\n".join(p for p in parts if p)


def links(text: str) -> list[str]:
    return [m.group(1).strip() for m in LINK_RE.finditer(text)]


def table_rows(text: str) -> list[list[str]]:
    """The cells of every table row in `text`, header rows included, in order."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.split("\n") if line.strip().startswith("|")]


def table_line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def plain(text: str) -> str:
    """Readable text without markup (search and snippets)."""
    text = LINK_RE.sub(lambda m: m.group(2) or m.group(1), text)
    text = re.sub(r"^==\s*(.+?)\s*==\s*$", r"\1.", text, flags=re.MULTILINE)
    return re.sub(r"\s+", " ", text.replace("|", " ").replace("* ", " ")).strip()


def inline(text: str, resolve: Resolver) -> str:
    out, last = [], 0
    for match in LINK_RE.finditer(text):
        out.append(esc(text[last:match.start()]))
        target, label = match.group(1).strip(), match.group(2) or match.group(1)
        href = resolve(target)
        missing = f"/wiki/new?title={quote(target)}"
        out.append(f"<a href='{esc(href)}'>{esc(label)}</a>" if href else
                   f"<a class='new' href='{esc(missing)}' title='{esc(target)} (page does not exist)'>{esc(label)}</a>")
        last = match.end()
    out.append(esc(text[last:]))
    return "".join(out)


def blocks(body: str, resolve: Resolver) -> str:
    html = []
    for block in re.split(r"\n\s*\n", body.strip()):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if all(line.startswith("|") for line in lines):
            rows = table_rows("\n".join(lines))
            head = "".join(f"<th>{inline(c, resolve)}</th>" for c in rows[0])
            body_rows = "".join("<tr>" + "".join(f"<td>{inline(c, resolve)}</td>" for c in row) + "</tr>" for row in rows[1:])
            html.append(f"<table class='wikitable'><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>")
        elif all(line.startswith("* ") for line in lines):
            html.append("<ul>" + "".join(f"<li>{inline(line[2:], resolve)}</li>" for line in lines) + "</ul>")
        else:
            html.append(f"<p>{inline(' '.join(lines), resolve)}</p>")
    return "".join(html)


def render(text: str, resolve: Resolver, edit_url: Callable[[int], str] | None = None) -> str:
    """The article body; with `edit_url`, each heading gets an [edit] link to its section."""
    html = []
    for index, chunk in enumerate(sections(text)):
        heading = heading_of(chunk)
        body = chunk.split("\n", 1)[1] if heading and "\n" in chunk else ("" if heading else chunk)
        if heading:
            edit = (f" <span class='editsection'>[<a href='{esc(edit_url(index))}' data-section='{index}' "
                    f"aria-label='Edit section: {esc(heading)}'>edit</a>]</span>") if edit_url else ""
            html.append(f"<h2 id='{esc(heading.replace(' ', '_'))}'>{esc(heading)}{edit}</h2>")
        html.append(blocks(body, resolve))
    return "".join(html)


def diff(old: str, new: str) -> str:
    """Table rows of a line diff: removed lines, added lines and a little context."""
    a, b = old.split("\n"), new.split("\n")
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            context = a[i1:i2]
            shown = context if len(context) <= 2 else [context[0], "…", context[-1]]
            rows.extend(f"<tr class='ctx'><td></td><td>{esc(line)}</td></tr>" for line in shown if line.strip())
            continue
        rows.extend(f"<tr class='del'><td>−</td><td>{esc(line)}</td></tr>" for line in a[i1:i2])
        rows.extend(f"<tr class='ins'><td>+</td><td>{esc(line)}</td></tr>" for line in b[j1:j2])
    return "".join(rows) or "<tr><td></td><td class='muted'>No difference in text.</td></tr>"
