"""`WikiApp`: the docs / wiki site's routes and the edits behind them.

Every change (an edit, a new page, a restore, a talk comment, a watch) is a native form
post validated here; edits become revisions by the signed-in editor, stamped on the wiki's
fixed today, so history, diffs and recent changes show the agent's work like anyone's.
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import quote

from gui_gym.suites.localweb.apps.wiki import data, views, views_editing
from gui_gym.suites.localweb.apps.wiki.views import page_url, url
from gui_gym.suites.localweb.framework import (Request, Response, Routes, WebApp, html_response, json_response,
                                               not_found, redirect)

TITLE_RE = re.compile(r"^[^\[\]|#<>{}/?%]{3,80}$")


def add_revision(state: dict[str, Any], slug: str, text: str, summary: str) -> dict[str, Any]:
    """A new current revision of `slug` by the signed-in editor."""
    state["clock"] += 1
    minutes = 9 * 60 + state["clock"]
    revision = {"id": 1 + max(r["id"] for p in state["pages"].values() for r in p["revisions"]),
                "ts": f"{state['today']} {minutes // 60:02d}:{minutes % 60:02d}", "user": state["me"],
                "summary": summary.strip(), "text": text}
    state["pages"][slug]["revisions"].append(revision)
    return revision


def _on_page(handler: Callable[..., Response]) -> Callable[..., Response]:
    """`handler` for a route whose first capture is a page's slug: a page that does not
    exist is a 404."""
    def checked(app: "WikiApp", request: Request, state: dict[str, Any], slug: str, *rest: Any) -> Response:
        if slug not in state["pages"]:
            return not_found("page")
        return handler(app, request, state, slug, *rest)
    return checked


routes = Routes()


class WikiApp(WebApp):
    name = "wiki"
    title = "Meridian Wiki"
    static_dir = views.STATIC  # the folder its pages inline their assets from
    routes = routes

    def initial_state(self, seed: int) -> dict[str, Any]:
        return data.initial_state(seed)

    # ---- reading --------------------------------------------------------------------------

    @routes("GET", "/")
    def main(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.main_page(state))

    @routes("GET", "/page/{slug}")
    @_on_page
    def article(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        oldid = request.query.get("oldid", "")
        return html_response(views.article_page(state, slug, int(oldid) if oldid.isdigit() else None))

    @routes("GET", "/section/{name}")
    def section(self, request: Request, state: dict[str, Any], name: str) -> Response:
        if name not in views.ALL_SECTIONS:
            return not_found("section")
        return html_response(views.section_page(state, name))

    @routes("GET", "/search")
    def search(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.search_page(state, request.query.get("q", "")))

    @routes("GET", "/api/suggest")
    def suggest(self, request: Request, state: dict[str, Any]) -> Response:
        needle = request.query.get("q", "").strip().lower()
        titles = sorted(((not p["title"].lower().startswith(needle), p["title"]), s) for s, p in state["pages"].items()
                        if needle and needle in p["title"].lower())
        return json_response([{"label": title, "href": page_url(s)} for (_, title), s in titles[:8]])

    @routes("GET", "/recent")
    def recent(self, request: Request, state: dict[str, Any]) -> Response:
        section = request.query.get("section", "")
        return html_response(views.recent_page(state, section if section in views.ALL_SECTIONS else ""))

    @routes("GET", "/watchlist")
    def watchlist(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.watchlist_page(state))

    @routes("GET", "/history/{slug}")
    @_on_page
    def history(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        return html_response(views_editing.history_page(state, slug))

    @routes("GET", "/diff/{slug}")
    @_on_page
    def diff(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        rev = request.query.get("rev", "")
        body = views_editing.diff_page(state, slug, int(rev)) if rev.isdigit() else None
        return html_response(body) if body else not_found("revision")

    # ---- writing --------------------------------------------------------------------------

    def _section_index(self, raw: str, state: dict[str, Any], slug: str) -> int | None | bool:
        """The section number of an edit (None: whole page), or False when it does not exist."""
        if raw == "":
            return None
        count = len(views.markup.sections(views.current(state["pages"][slug])["text"]))
        return int(raw) if raw.isdigit() and int(raw) < count else False

    @routes("GET", "/edit/{slug}")
    @_on_page
    def edit_form(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        section = self._section_index(request.query.get("section", ""), state, slug)
        if section is False:
            return not_found("section")
        return html_response(views_editing.edit_page(state, slug, section))

    @routes("POST", "/edit/{slug}")
    @_on_page
    def save_edit(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        section = self._section_index(request.arg("section"), state, slug)
        if section is False:
            return not_found("section")
        text, summary = request.arg("text").replace("\r\n", "\n"), request.arg("summary")
        old = views.current(state["pages"][slug])["text"]
        new = views.markup.replace_section(old, section, text) if section is not None else text.strip("\n")
        errors = {}
        if not text.strip():
            errors["text"] = "The text cannot be empty. To remove a section, edit the whole page."
        elif new == old:
            errors["text"] = "You have not changed anything yet."
        if errors:
            return html_response(views_editing.edit_page(state, slug, section, text, summary, errors), 422)
        add_revision(state, slug, new, summary)
        state["flash"] = "Your edit was saved."
        return redirect(page_url(slug))

    @routes("GET", "/new")
    def new_form(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_editing.new_page(state, {k: request.query.get(k, "") for k in ("title", "section")}))

    @routes("POST", "/new")
    def create(self, request: Request, state: dict[str, Any]) -> Response:
        values = {k: request.arg(k).strip() for k in ("title", "section", "text", "summary")}
        values["text"] = values["text"].replace("\r\n", "\n")
        errors = {}
        if not TITLE_RE.match(values["title"]):
            errors["title"] = "Titles are 3 to 80 characters, without [ ] | # < > { } / ? %."
        elif data.slug(values["title"]) in state["pages"] or \
                any(p["title"].lower() == values["title"].lower() for p in state["pages"].values()):
            errors["title"] = "A page with this title already exists."
        if values["section"] not in views.ALL_SECTIONS:
            errors["section"] = "Choose the section the page belongs to."
        if len(values["text"]) < 20:
            errors["text"] = "Write at least a sentence (20 characters)."
        if errors:
            return html_response(views_editing.new_page(state, values, errors), 422)
        slug = data.slug(values["title"])
        state["pages"][slug] = {"title": values["title"], "section": values["section"], "infobox": [], "facts": {},
                                "revisions": [], "talk": []}
        add_revision(state, slug, values["text"], values["summary"] or "Created page")
        state["flash"] = "The page was created."
        return redirect(page_url(slug))

    @routes("POST", "/revert/{slug}")
    @_on_page
    def revert(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        revisions = state["pages"][slug]["revisions"]
        rev = request.arg("rev")
        target = next((r for r in revisions[:-1] if str(r["id"]) == rev), None)
        if target is None:
            return not_found("revision")
        add_revision(state, slug, target["text"], request.arg("summary").strip() or
                     f"Restored revision {target['id']} by {target['user']}")
        state["flash"] = f"Restored revision {target['id']}."
        return redirect(page_url(slug))

    @routes("POST", "/watch/{slug}")
    @_on_page
    def watch(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        title = state["pages"][slug]["title"]
        if slug in state["watchlist"]:
            state["watchlist"].remove(slug)
            state["flash"] = f"Removed “{title}” from your watchlist."
        else:
            state["watchlist"].append(slug)
            state["flash"] = f"Added “{title}” to your watchlist."
        return redirect(page_url(slug))

    # ---- talk -----------------------------------------------------------------------------

    @routes("GET", "/talk/{slug}")
    @_on_page
    def talk(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        return html_response(views_editing.talk_page(state, slug))

    @routes("POST", "/talk/{slug}")
    @_on_page
    def new_topic(self, request: Request, state: dict[str, Any], slug: str) -> Response:
        values = {"subject": request.arg("subject").strip(), "text": request.arg("text").strip()}
        errors = {k: f"Write a {'subject' if k == 'subject' else 'comment'}." for k, v in values.items() if not v}
        if errors:
            return html_response(views_editing.talk_page(state, slug, errors, values), 422)
        threads = state["pages"][slug]["talk"]
        threads.append({"id": 1 + max((t["id"] for t in threads), default=0), "subject": values["subject"],
                        "resolved": False, "comments": [self._comment(state, values["text"])]})
        state["flash"] = "Your topic was added."
        return redirect(url(f"/talk/{quote(slug)}"))

    @routes("POST", "/talk/{slug}/{thread_id}/{action}")
    @_on_page
    def talk_action(self, request: Request, state: dict[str, Any], slug: str, thread_id: str, action: str) -> Response:
        thread = next((t for t in state["pages"][slug]["talk"] if str(t["id"]) == thread_id), None)
        if thread is None or action not in ("reply", "resolve"):
            return not_found("discussion")
        if action == "resolve":
            thread["resolved"] = True
            state["flash"] = f"Marked “{thread['subject']}” as resolved."
            return redirect(url(f"/talk/{quote(slug)}"))
        text = request.arg("text").strip()
        if text:
            thread["comments"].append(self._comment(state, text))
        state["flash"] = "Your reply was posted." if text else "Write something before posting a reply."
        return redirect(url(f"/talk/{quote(slug)}"))

    @staticmethod
    def _comment(state: dict[str, Any], text: str) -> dict[str, Any]:
        state["clock"] += 1
        return {"user": state["me"], "ts": f"{state['today']} 12:00", "text": text}
