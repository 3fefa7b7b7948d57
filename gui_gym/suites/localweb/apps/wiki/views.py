"""The wiki's reading pages: the frame (topbar with autocomplete search, collapsible
section tree), the main page, articles with infobox and section edit links, section
listings, search results with snippets, recent changes and the watchlist."""

from __future__ import annotations

from pathlib import Path
import re
from typing import Any
from urllib.parse import quote

from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.apps.wiki.data import HELP_SECTION, SECTIONS, pretty_date
from gui_gym.suites.localweb.framework import SHARED_STATIC, app_url, assets, esc, page

PREFIX = "/wiki"
ALL_SECTIONS = (*SECTIONS, HELP_SECTION)
STATIC = Path(__file__).parent / "static"
_HEAD = assets(STATIC / "wiki.css", SHARED_STATIC / "widgets.js")


def url(path: str, **query: Any) -> str:
    """An absolute URL inside the wiki; empty query values are left out."""
    return app_url(PREFIX, path, **query)


def page_url(slug: str, **query: Any) -> str:
    return url(f"/page/{quote(slug)}", **query)


def resolver(state: dict[str, Any]) -> markup.Resolver:
    by_title = {p["title"].lower(): s for s, p in state["pages"].items()}
    return lambda title: page_url(by_title[title.lower()]) if title.lower() in by_title else None


def current(page_: dict[str, Any]) -> dict[str, Any]:
    return page_["revisions"][-1]


def shell(state: dict[str, Any], title: str, body: str, *, section: str | None = None) -> str:
    """The frame: topbar, the section tree (the open branch is `section`), flash, content."""
    topbar = (
        f"<header class='topbar'><a class='brand' href='{PREFIX}/'>{esc(state['site'])}</a>"
        f"<form class='wiki-search' method='get' action='{PREFIX}/search' role='search'><div class='autocomplete'>"
        f"<input name='q' data-suggest='{PREFIX}/api/suggest?q=' placeholder='Search {esc(state['site'])}' "
        "aria-label='Search the wiki' autocomplete='off'></div><button type='submit' class='secondary'>Search</button></form>"
        f"<span class='spacer'></span><a href='{PREFIX}/recent'>Recent changes</a><a href='{PREFIX}/watchlist'>Watchlist</a>"
        f"<a href='{PREFIX}/new'>Create page</a><span class='me'>{esc(state['me'])}</span></header>")
    flash = state.pop("flash", None)
    notice = f"<div class='notice' role='status'>{esc(flash)}</div>" if flash else ""
    content = (f"<div class='layout'><nav class='sidebar tree' aria-label='Sections'>{_tree(state, section)}</nav>"
               f"<div class='content'>{notice}{body}</div></div>")
    return page(f"{title} - {state['site']}", content, app="wiki", app_assets=_HEAD, nav=topbar)


def _tree(state: dict[str, Any], open_section: str | None) -> str:
    parts = [f"<a class='home' href='{PREFIX}/'>Main page</a>"]
    for section in ALL_SECTIONS:
        pages = sorted((p["title"], s) for s, p in state["pages"].items() if p["section"] == section)
        items = "".join(f"<li><a href='{esc(page_url(s))}' data-page='{esc(s)}'>{esc(t)}</a></li>" for t, s in pages)
        parts.append(f"<details data-section='{section}'{' open' if section == open_section else ''}>"
                     f"<summary>{section}</summary><ul>{items}</ul></details>")
    return "".join(parts)


def main_page(state: dict[str, Any]) -> str:
    pages = state["pages"]
    featured = pages[state["featured"]]
    lead = markup.plain(markup.sections(current(featured)["text"])[0])
    counts = "".join(
        f"<li><a href='{url('/section/' + s)}'>{s}</a> "
        f"<span class='muted'>({sum(p['section'] == s for p in pages.values())} articles)</span></li>"
        for s in ALL_SECTIONS)
    recent = "".join(
        f"<li><a href='{esc(page_url(s))}'>{esc(p['title'])}</a> "
        f"<span class='muted'>by {esc(r['user'])}, {pretty_date(r['ts'])}</span></li>"
        for r, s, p in recent_changes(state)[:5])
    articles = sum(p["section"] != HELP_SECTION for p in pages.values())
    return shell(state, "Main page", f"""
<h1>Welcome to {esc(state['site'])}</h1>
<p class='lede'>The free encyclopedia of the Meridian region, with
<strong class='article-count'>{articles}</strong> articles that anyone signed in can edit.</p>
<div class='columns'><section class='card featured'><h2>Featured article</h2>
<h3><a href='{esc(page_url(state['featured']))}'>{esc(featured['title'])}</a></h3><p>{esc(lead)}</p></section>
<section class='card'><h2>Sections</h2><ul class='plain'>{counts}</ul></section></div>
<section class='card'><h2>Latest edits</h2><ul class='plain recent-mini'>{recent}</ul>
<a href='{PREFIX}/recent'>All recent changes →</a></section>""")


def recent_changes(state: dict[str, Any], section: str = "") -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
    """(revision, slug, page), newest first."""
    rows = [(r, s, p) for s, p in state["pages"].items() for r in p["revisions"] if section in ("", p["section"])]
    return sorted(rows, key=lambda row: row[0]["id"], reverse=True)


def page_tabs(state: dict[str, Any], slug: str, active: str) -> str:
    p = state["pages"][slug]
    watched = slug in state["watchlist"]
    tabs = [("article", "Article", page_url(slug)), ("talk", f"Talk ({len(p['talk'])})", url(f"/talk/{quote(slug)}"))]
    right = [("edit", "Edit", url(f"/edit/{quote(slug)}")), ("history", "View history", url(f"/history/{quote(slug)}"))]

    def link(key: str, label: str, href: str) -> str:
        current_ = " aria-current='page'" if key == active else ""
        return f"<a href='{esc(href)}' data-tab='{key}'{current_}>{esc(label)}</a>"
    star = "★ Unwatch" if watched else "☆ Watch"
    return (f"<div class='page-tabs'>{''.join(link(*t) for t in tabs)}<span class='spacer'>"
            f"</span>{''.join(link(*t) for t in right)}"
            f"<form method='post' action='{url('/watch/' + quote(slug))}'><button type='submit' class='watch secondary' "
            f"aria-pressed='{str(watched).lower()}'>{star}</button></form></div>")


def article_page(state: dict[str, Any], slug: str, oldid: int | None = None) -> str:
    p = state["pages"][slug]
    revision = next((r for r in p["revisions"] if r["id"] == oldid), None) if oldid else None
    shown = revision or current(p)
    resolve = resolver(state)
    infobox = ""
    if p["infobox"]:
        rows = "".join(f"<tr><th scope='row'>{esc(k)}</th><td>{markup.inline(v, resolve)}</td></tr>" for k, v in p["infobox"])
        infobox = f"<aside class='infobox' aria-label='Infobox'><table><caption>{esc(p['title'])}</caption>{rows}</table></aside>"
    banner = ""
    if revision is not None and revision is not current(p):
        banner = ("<div class='old-revision'>This is an old revision of this page, as edited by "
                  f"<strong>{esc(revision['user'])}</strong> "
                  f"at {esc(revision['ts'])} (revision {revision['id']}). It may differ from the "
                  f"<a href='{esc(page_url(slug))}'>current version</a>."
                  f"<button type='button' class='restore' data-dialog-open='#restore-dialog'>Restore this version</button></div>"
                  + _restore_dialog(slug, revision))
    edit_url = None if banner else (lambda index: url(f"/edit/{quote(slug)}", section=index))
    last = current(p)
    return shell(state, p["title"], f"""{page_tabs(state, slug, 'article')}{banner}
<h1>{esc(p['title'])}</h1>
<p class='byline muted'>Section: <a class='section-link' href='{url('/section/' + p['section'])}'>{p['section']}</a> · Last edited
{pretty_date(last['ts'])} by {esc(last['user'])}</p>
<article class='article'>{infobox}{markup.render(shown['text'], resolve, edit_url)}</article>""", section=p["section"])


def _restore_dialog(slug: str, revision: dict[str, Any]) -> str:
    summary = f"Restored revision {revision['id']} by {revision['user']}"
    return (f"<dialog id='restore-dialog' aria-labelledby='restore-title'>"
            f"<form method='post' action='{url('/revert/' + quote(slug))}'>"
            f"<h2 id='restore-title'>Restore revision {revision['id']}?</h2>"
            "<p>The page text goes back to this version. Later changes stay in the history.</p>"
            f"<input type='hidden' name='rev' value='{revision['id']}'>"
            f"<div class='field'><label for='restore-summary'>Edit summary</label>"
            f"<input id='restore-summary' name='summary' value='{esc(summary)}'></div>"
            "<div class='actions'><button type='button' class='secondary' data-dialog-close>Cancel</button>"
            "<button type='submit'>Restore</button></div></form></dialog>")


def section_page(state: dict[str, Any], section: str) -> str:
    pages = sorted((p["title"], s, p) for s, p in state["pages"].items() if p["section"] == section)
    items = "".join(
        f"<li><a href='{esc(page_url(s))}'>{esc(t)}</a><div class='muted'>{esc(_first_sentence(p))}</div></li>"
        for t, s, p in pages)
    return shell(state, section, f"""<h1>{section}</h1>
<p class='muted'>{len(pages)} pages in this section.</p><ul class='section-list'>{items}</ul>
<a class='button create-here' href='{url('/new', section=section)}'>Create a page in this section</a>""", section=section)


def _first_sentence(p: dict[str, Any]) -> str:
    lead = markup.plain(markup.sections(current(p)["text"])[0])
    return lead.split(". ")[0].rstrip(".") + "."


def search_results(state: dict[str, Any], query: str) -> list[tuple[str, dict[str, Any], str]]:
    """(slug, page, plain text) of the pages holding every word of `query`; title hits first."""
    terms = [t for t in re.findall(r"\w+", query.lower())]
    if not terms:
        return []
    hits = []
    for s, p in state["pages"].items():
        text = markup.plain(current(p)["text"])
        haystack = f"{p['title']} {text}".lower()
        if all(t in haystack for t in terms):
            hits.append((not all(t in p["title"].lower() for t in terms), p["title"], s, p, text))
    return [(s, p, text) for _, _, s, p, text in sorted(hits, key=lambda h: (h[0], h[1]))]


def _snippet(text: str, terms: list[str]) -> str:
    lower = text.lower()
    at = min((lower.find(t) for t in terms if t in lower), default=0)
    start = max(0, at - 70)
    piece = ("…" if start else "") + text[start:start + 200] + ("…" if start + 200 < len(text) else "")
    escaped = esc(piece)
    for term in sorted(set(terms), key=len, reverse=True):
        escaped = re.sub(f"({re.escape(esc(term))})", r"<mark>\1</mark>", escaped, flags=re.IGNORECASE)
    return escaped


def search_page(state: dict[str, Any], query: str) -> str:
    terms = re.findall(r"\w+", query.lower())
    results = search_results(state, query)
    items = "".join(
        f"<li class='result' data-page='{esc(s)}'><a class='result-title' href='{esc(page_url(s))}'>{esc(p['title'])}</a>"
        f"<div class='snippet'>{_snippet(text, terms)}</div>"
        f"<div class='muted small'>{p['section']} · {len(text.split())} words · edited {pretty_date(current(p)['ts'])}</div></li>"
        for s, p, text in results)
    summary = (f"{len(results)} result{'s' if len(results) != 1 else ''} for “{esc(query)}”" if query.strip()
               else "Type words to search for.")
    return shell(state, "Search", f"""<h1>Search results</h1>
<form class='search-again' method='get' action='{PREFIX}/search'><input name='q' value='{esc(query)}' aria-label='Search terms'>
<button type='submit'>Search</button></form><p class='muted'>{summary}</p><ol class='results'>{items}</ol>""")


def recent_page(state: dict[str, Any], section: str) -> str:
    rows = []
    for r, s, p in recent_changes(state, section)[:60]:
        older = [x for x in p["revisions"] if x["id"] < r["id"]]
        delta = len(r["text"]) - (len(older[-1]["text"]) if older else 0)
        rows.append(
            f"<li data-rev='{r['id']}'><span class='mono'>{esc(r['ts'])}</span> "
            f"(<a href='{esc(url('/diff/' + quote(s), rev=r['id']))}'>diff</a> | "
            f"<a href='{esc(url('/history/' + quote(s)))}'>hist</a>) "
            f"<a href='{esc(page_url(s))}'><strong>{esc(p['title'])}</strong></a> · {esc(r['user'])} "
            f"<span class='muted'>({esc(r['summary'])})</span> "
            f"<span class='{'plus' if delta >= 0 else 'minus'}'>({delta:+d})</span></li>")
    options = "<option value=''>All sections</option>" + "".join(
        f"<option{' selected' if s == section else ''}>{s}</option>" for s in ALL_SECTIONS)
    return shell(state, "Recent changes", f"""<h1>Recent changes</h1>
<form class='filters' method='get' action='{PREFIX}/recent'>
<label>Section <select name='section' aria-label='Section filter'>{options}</select></label>
<button type='submit' class='secondary'>Show</button></form>
<ul class='scroll-list changes' aria-label='Recent changes'>{''.join(rows)}</ul>""")


def watchlist_page(state: dict[str, Any]) -> str:
    items = "".join(
        f"<li><a href='{esc(page_url(s))}'>{esc(state['pages'][s]['title'])}</a> <span class='muted'>last edited "
        f"{pretty_date(current(state['pages'][s])['ts'])} by {esc(current(state['pages'][s])['user'])}</span></li>"
        for s in state["watchlist"] if s in state["pages"]) or "<li class='muted'>You are not watching any pages.</li>"
    return shell(state, "Watchlist", f"<h1>Watchlist</h1><ul class='watchlist'>{items}</ul>")
