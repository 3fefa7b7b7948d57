"""The wiki's writing pages: edit (whole page or one section), create, history, diffs and
talk pages. Forms are native and validated by the server, which re-renders them with the
message when something is wrong."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from gui_gym.suites.localweb.apps.wiki import markup
from gui_gym.suites.localweb.apps.wiki.data import pretty_date
from gui_gym.suites.localweb.apps.wiki.views import ALL_SECTIONS, current, page_tabs, page_url, shell, url
from gui_gym.suites.localweb.framework import esc


def _error(errors: dict[str, str], name: str) -> str:
    return f"<div class='error' data-error-for='{name}'>{esc(errors.get(name, ''))}</div>"


def edit_page(state: dict[str, Any], slug: str, section: int | None, text: str | None = None,
              summary: str = "", errors: dict[str, str] | None = None) -> str:
    p = state["pages"][slug]
    errors = errors or {}
    full = current(p)["text"]
    if text is None:
        text = markup.sections(full)[section] if section is not None else full
    what = f" (section “{markup.heading_of(markup.sections(full)[section]) or 'lead'}”)" if section is not None else ""
    hidden = f"<input type='hidden' name='section' value='{section}'>" if section is not None else ""
    return shell(state, f"Editing {p['title']}", f"""{page_tabs(state, slug, 'edit')}
<h1>Editing {esc(p['title'])}{esc(what)}</h1>
<form class='editor' method='post' action='{url('/edit/' + quote(slug))}'>{hidden}
<label for='wpTextbox' class='sr-only'>Page text</label>
<textarea id='wpTextbox' name='text' rows='16' spellcheck='false'>{esc(text)}</textarea>{_error(errors, 'text')}
<div class='field'><label for='summary'>Edit summary <span class='muted'>(briefly describe your changes)</span></label>
<input id='summary' name='summary' value='{esc(summary)}' maxlength='200'>{_error(errors, 'summary')}</div>
<div class='button-row'><button type='submit'>Save changes</button>
<a class='button secondary' href='{esc(page_url(slug))}'>Cancel</a>
<a href='{url('/page/Editing_help')}' class='help'>Editing help</a></div></form>""", section=p["section"])


def new_page(state: dict[str, Any], values: dict[str, str], errors: dict[str, str] | None = None) -> str:
    errors = errors or {}
    options = "<option value=''>Choose a section</option>" + "".join(
        f"<option{' selected' if s == values.get('section') else ''}>{s}</option>" for s in ALL_SECTIONS)
    return shell(state, "Create page", f"""<h1>Create a page</h1>
<form class='editor' method='post' action='{url('/new')}'>
<div class='field'><label for='title'>Title</label>
<input id='title' name='title' value='{esc(values.get('title', ''))}'>{_error(errors, 'title')}</div>
<div class='field'><label for='section'>Section</label>
<select id='section' name='section'>{options}</select>{_error(errors, 'section')}</div>
<div class='field'><label for='wpTextbox'>Text</label>
<textarea id='wpTextbox' name='text' rows='10' spellcheck='false'>{esc(values.get('text', ''))}</textarea>
{_error(errors, 'text')}</div>
<div class='field'><label for='summary'>Edit summary</label>
<input id='summary' name='summary' value='{esc(values.get('summary', ''))}'></div>
<div class='button-row'><button type='submit'>Save page</button>
<a href='{url('/page/Editing_help')}' class='help'>Editing help</a></div>
</form>""", section=values.get("section") or None)


def history_page(state: dict[str, Any], slug: str) -> str:
    p = state["pages"][slug]
    revisions = p["revisions"]
    rows = []
    for index in range(len(revisions) - 1, -1, -1):
        r = revisions[index]
        size = len(r["text"])
        delta = size - len(revisions[index - 1]["text"]) if index else size
        diff = (f"<a class='diff' href='{esc(url('/diff/' + quote(slug), rev=r['id']))}' data-rev='{r['id']}'>diff</a>"
                if index else "<span class='muted'>diff</span>")
        label = " <strong class='cur'>(current)</strong>" if index == len(revisions) - 1 else ""
        rows.append(
            f"<tr data-rev='{r['id']}'><td>{diff}</td><td><a class='view' data-rev='{r['id']}' "
            f"href='{esc(page_url(slug, oldid=r['id']))}'>{esc(r['ts'])}</a>{label}</td><td>{esc(r['user'])}</td>"
            f"<td class='num'>{size:,} bytes <span class='{'plus' if delta >= 0 else 'minus'}'>({delta:+d})</span></td>"
            f"<td class='summary-cell'>{esc(r['summary'])}</td></tr>")
    return shell(state, f"History of {p['title']}", f"""{page_tabs(state, slug, 'history')}
<h1>{esc(p['title'])}: revision history</h1>
<p class='muted'>Newest first. “diff” shows what an edit changed; the date opens that version, from where it can be restored.</p>
<table class='history'><thead><tr><th></th><th>Date</th><th>User</th><th class='num'>Size</th><th>Summary</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>""", section=p["section"])


def diff_page(state: dict[str, Any], slug: str, rev: int) -> str | None:
    p = state["pages"][slug]
    ids = [r["id"] for r in p["revisions"]]
    if rev not in ids:
        return None
    index = ids.index(rev)
    new = p["revisions"][index]
    old = p["revisions"][index - 1] if index else {"id": None, "text": "", "user": "", "ts": "", "summary": ""}
    older = (f"<a class='older' href='{esc(url('/diff/' + quote(slug), rev=old['id']))}'>← Older edit</a>"
             if index > 1 else "<span></span>")
    newer = (f"<a class='newer' href='{esc(url('/diff/' + quote(slug), rev=ids[index + 1]))}'>Newer edit →</a>"
             if index + 1 < len(ids) else "<span></span>")

    def side(r: dict[str, Any]) -> str:
        if r["id"] is None:
            return "<div class='diff-side muted'>(page created)</div>"
        return (f"<div class='diff-side'>"
                f"<a href='{esc(page_url(slug, oldid=r['id']))}'>Revision {r['id']}</a> as of {esc(r['ts'])}"
                f"<div>{esc(r['user'])} <span class='muted'>({esc(r['summary'])})</span></div></div>")
    return shell(state, f"Difference in {p['title']}", f"""{page_tabs(state, slug, 'history')}
<h1>{esc(p['title'])}: difference between revisions</h1>
<div class='diff-head'>{side(old)}{side(new)}</div><div class='diff-nav'>{older}{newer}</div>
<table class='diff'><tbody>{markup.diff(old['text'], new['text'])}</tbody></table>""", section=p["section"])


def talk_page(state: dict[str, Any], slug: str, errors: dict[str, str] | None = None,
              values: dict[str, str] | None = None) -> str:
    p = state["pages"][slug]
    errors, values = errors or {}, values or {}
    threads = []
    for t in p["talk"]:
        comments = "".join(
            f"<li class='comment'><p>{esc(c['text'])}</p>"
            f"<div class='muted small'>— {esc(c['user'])}, {pretty_date(c['ts'])}</div></li>"
            for c in t["comments"])
        base = url(f"/talk/{quote(slug)}/{t['id']}")
        resolved = "<span class='badge resolved'>Resolved</span>" if t["resolved"] else ""
        resolve = "" if t["resolved"] else (
            f"<form method='post' action='{base}/resolve' class='inline'><button type='submit' class='secondary small resolve' "
            f"aria-label='Mark “{esc(t['subject'])}” as resolved'>Mark as resolved</button></form>")
        threads.append(
            f"<section class='thread card' data-thread='{t['id']}' aria-label='{esc(t['subject'])}'>"
            f"<h2>{esc(t['subject'])} {resolved}</h2><ul class='comments'>{comments}</ul><div class='thread-actions'>"
            f"<details class='reply'><summary aria-label='Reply to “{esc(t['subject'])}”'>Reply</summary>"
            f"<form method='post' action='{base}/reply'><textarea name='text' rows='3' aria-label='Your reply'></textarea>"
            f"<button type='submit' class='small'>Post reply</button></form></details>{resolve}</div></section>")
    body = "".join(threads) or "<p class='muted'>No discussions yet.</p>"
    return shell(state, f"Talk:{p['title']}", f"""{page_tabs(state, slug, 'talk')}
<h1>Talk: {esc(p['title'])}</h1>{body}
<form class='card new-topic' method='post' action='{url('/talk/' + quote(slug))}'><h2>Start a new discussion</h2>
<div class='field'><label for='subject'>Subject</label>
<input id='subject' name='subject' value='{esc(values.get('subject', ''))}'>{_error(errors, 'subject')}</div>
<div class='field'><label for='topic-text'>Comment</label>
<textarea id='topic-text' name='text' rows='3'>{esc(values.get('text', ''))}</textarea>{_error(errors, 'text')}</div>
<button type='submit'>Add topic</button></form>""", section=p["section"])
