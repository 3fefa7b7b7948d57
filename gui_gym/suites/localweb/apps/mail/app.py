"""`MailApp`: the routes of the mail client. Pages are GETs (opening a message marks it read,
as mail clients do). Changes are native form posts that go through `store` and answer with
a redirect (post/redirect/get), or with the same form and its errors (422) when refused, so
a change always ends in a page load the browser, and an agent, can see finish. The one JSON
route feeds the recipients' autocomplete."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from gui_gym.suites.localweb.apps.mail import data, store, views
from gui_gym.suites.localweb.framework import Request, Response, Routes, WebApp, html_response, json_response, not_found
from gui_gym.suites.localweb.framework import notice as notice_banner
from gui_gym.suites.localweb.framework import redirect

NOTICES = {"sent": "Message sent.", "draft": "Draft saved.", "moved": "Conversation moved.",
           "label": "Label created.", "select": "Select at least one message first.", "done": "Done."}
BULK_ACTIONS = ("archive", "trash", "read", "unread")


def _subject(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


def _with_notice(url: str, code: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}notice={code}"


def _page_number(request: Request) -> int:
    return int(request.arg("page", "1")) if request.arg("page", "1").isdigit() else 1


def _notice(request: Request) -> str:
    return NOTICES.get(request.arg("notice"), "")


def _back(request: Request) -> str:
    """Where a form asked to return: a page of this app, else the Inbox."""
    back = request.arg("back")
    return back if back.startswith("/mail/") and "//" not in back else "/mail/"


routes = Routes()


class MailApp(WebApp):
    name = "mail"
    title = "Mail"
    static_dir = views.STATIC  # the folder its pages inline their assets from
    routes = routes

    def initial_state(self, seed: int) -> dict[str, Any]:
        return data.initial_state(seed)

    @routes("*", "/api/contacts")
    def _contacts_api(self, request: Request, state: dict[str, Any]) -> Response:
        return json_response(store.suggestions(state, request.arg("q")))

    # ---- pages ---------------------------------------------------------------------------

    @routes("GET", "/")
    @routes("GET", "/{kind}/{name}")
    def _folder(self, request: Request, state: dict[str, Any], kind: str = "folder", name: str = "inbox") -> Response:
        if kind not in ("folder", "label"):
            return not_found()
        folder = name if kind == "folder" else f"label:{name}"
        if (kind == "folder" and name not in store.FOLDERS) or (kind == "label" and name not in state["labels"]):
            return not_found("folder")
        return html_response(views.list_page(
            state, store.folder_title(folder), store.in_folder(state, folder), _page_number(request),
            base=views.folder_url(folder), params={}, active=folder, notice=_notice(request)))

    @routes("GET", "/search")
    def _search(self, request: Request, state: dict[str, Any]) -> Response:
        query = request.arg("q").strip()
        return html_response(views.list_page(
            state, f"Search: {query}" if query else "Search", store.search(state, query), _page_number(request),
            base="/mail/search", params={"q": query}, query=query, notice=_notice(request)))

    @routes("GET", "/message/{message_id}")
    def _message(self, request: Request, state: dict[str, Any], message_id: str) -> Response:
        message = store.find(state, message_id)
        if message is None:
            return not_found("message")
        if message["folder"] == "drafts":
            return redirect(views.message_url(message))
        message["read"] = True
        return html_response(views.message_page(state, message, _notice(request)))

    @routes("GET", "/contacts")
    def _contacts(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views.contacts_page(state, request.arg("company"), _page_number(request)))

    @routes("GET", "/compose")
    def _compose(self, request: Request, state: dict[str, Any]) -> Response:
        draft: dict[str, Any] = {"to": [], "cc": [], "subject": "", "body": "", "attachments": []}
        reference = request.arg("reply") or request.arg("forward")
        if reference:
            original = store.find(state, reference)
            if original is None:
                return not_found("message")
            if request.arg("reply"):
                mine = original["from"]["email"] == state["me"]["email"]
                draft.update(to=list(original["to"]) if mine else [original["from"]["email"]],
                             subject=_subject("Re:", original["subject"]), reply_to=original["id"])
            else:
                draft.update(subject=_subject("Fwd:", original["subject"]), attachments=list(original["attachments"]),
                             forward_of=original["id"])
        elif request.arg("draft"):
            saved = store.find(state, request.arg("draft"))
            if saved is None or saved["folder"] != "drafts":
                return not_found("draft")
            draft.update({k: list(saved[k]) if isinstance(saved[k], list) else saved[k]
                          for k in ("to", "cc", "subject", "body", "attachments", "reply_to", "forward_of")})
            draft["draft_id"] = saved["id"]
        elif request.arg("to"):
            draft["to"] = [request.arg("to")]
        return html_response(self._compose_view(state, draft))

    @staticmethod
    def _compose_view(state: dict[str, Any], draft: dict[str, Any], errors: dict[str, str] | None = None) -> str:
        quoted = store.find(state, draft.get("reply_to") or draft.get("forward_of") or "")
        heading = ("Reply" if draft.get("reply_to") else "Forward" if draft.get("forward_of")
                   else "Draft" if draft.get("draft_id") else "New message")
        return views.compose_page(state, draft, heading, quoted, errors)

    # ---- form posts ----------------------------------------------------------------------

    @routes("POST", "/message/{message_id}/{action}")
    def _change_message(self, request: Request, state: dict[str, Any], message_id: str, action: str) -> Response:
        message = store.find(state, message_id)
        if message is None:
            return not_found("message")
        folder = views.folder_url(message["folder"])
        if action == "star":
            message["starred"] = request.arg("value") == "1"
            return redirect(_back(request) if request.arg("back") else views.message_url(message))
        if action == "read":
            message["read"] = request.arg("value") == "1"
            return redirect(folder)
        if action == "move":
            try:
                store.move(state, [message], request.arg("folder"))
            except store.MailError as exc:
                return html_response(views.message_page(state, message, str(exc)), 422)
            return redirect(_with_notice(folder, "moved"))
        return not_found()

    @routes("POST", "/labels")
    def _create_label(self, request: Request, state: dict[str, Any]) -> Response:
        move_id = request.arg("move_id")
        moved = store.find(state, move_id) if move_id else None
        try:
            name = store.create_label(state, request.arg("name"))
        except store.MailError as exc:
            return html_response(views.label_page(state, request.arg("name"), moved and moved["id"], _back(request), str(exc)), 422)
        if moved is not None:
            store.move(state, [moved], f"label:{name}")
        return redirect(_with_notice(views.folder_url(f"label:{name}"), "moved" if moved else "label"))

    @routes("POST", "/send")
    def _send_message(self, request: Request, state: dict[str, Any]) -> Response:
        return self._send(request, state, as_draft=False)

    @routes("POST", "/drafts")
    def _save_draft(self, request: Request, state: dict[str, Any]) -> Response:
        return self._send(request, state, as_draft=True)

    @routes("POST", "/bulk")
    def _bulk(self, request: Request, state: dict[str, Any]) -> Response:
        back = _back(request)
        ids = parse_qs(request.raw_body.decode(errors="replace")).get("ids", [])
        if not ids:
            return redirect(_with_notice(back, "select"))
        action = request.arg("action")
        try:
            messages = store.messages_by_ids(state, ids)
            if action in ("read", "unread"):
                for message in messages:
                    message["read"] = action == "read"
            elif action in ("archive", "trash") or action.startswith("move:"):
                store.move(state, messages, action[len("move:"):] if action.startswith("move:") else action)
            else:
                raise store.MailError("action", f"unknown action {action!r}; expected one of {BULK_ACTIONS} or move:<folder>")
        except store.MailError as exc:
            return html_response(views.list_page(state, "Inbox", store.in_folder(state, "inbox"), 1, base="/mail/folder/inbox",
                                                 params={}, active="inbox", notice=str(exc)), 422)
        return redirect(_with_notice(back, "done"))

    def _send(self, request: Request, state: dict[str, Any], as_draft: bool) -> Response:
        try:
            payload = json.loads(request.arg("payload") or "{}")
        except json.JSONDecodeError:
            payload = None
        if not isinstance(payload, dict):
            return html_response(notice_banner("The form was sent without its content; reload the page."), 400)
        try:
            message = store.compose(state, payload, as_draft=as_draft)
        except store.MailError as exc:
            draft = {"to": [str(a) for a in payload.get("to") or []], "cc": [str(a) for a in payload.get("cc") or []],
                     "subject": str(payload.get("subject") or ""), "body": str(payload.get("body") or ""),
                     "attachments": [str(a) for a in payload.get("attachments") or []],
                     **{k: payload[k] for k in ("reply_to", "forward_of", "draft_id") if payload.get(k)}}
            field = exc.field if exc.field in ("to", "cc", "subject", "attachments") else "form"
            return html_response(self._compose_view(state, draft, {field: str(exc)}), 422)
        if as_draft:
            return redirect(_with_notice(views.folder_url("drafts"), "draft"))
        original = store.find(state, message["reply_to"] or message["forward_of"] or "")
        return redirect(_with_notice(views.message_url(original) if original else views.folder_url("inbox"), "sent"))
