"""Mail's pages: the folder and search lists, a message, compose, contacts. Server-rendered
HTML on the shared look (topbar, sidebar, scrolling list, pagination, menus, dialogs,
autocomplete). Every change is a native form post that the server answers with a redirect
(or the same form again, with its errors), so a page never changes behind the browser's
back; `static/mail.js` only manages chips, dialogs and the compose payload."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from gui_gym.suites.localweb.apps.mail import store
from gui_gym.suites.localweb.apps.mail.data import TODAY
from gui_gym.suites.localweb.framework import SHARED_STATIC, assets, esc, page
from gui_gym.suites.localweb.framework import notice as notice_banner
from gui_gym.suites.localweb.people import HOME_COMPANY

STATIC = Path(__file__).parent / "static"
HEAD = assets(STATIC / "mail.css", SHARED_STATIC / "widgets.js", STATIC / "mail.js")
CONTACTS_PAGE_SIZE = 10


def short_date(stamp: str) -> str:
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M")
    return f"{moment:%H:%M}" if stamp.startswith(TODAY) else f"{moment:%b} {moment.day}"


def long_date(stamp: str) -> str:
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M")
    return f"{moment:%a}, {moment:%b} {moment.day}, {moment:%Y} at {moment:%H:%M}"


def folder_url(folder: str) -> str:
    if folder.startswith("label:"):
        return "/mail/label/" + quote(folder[len("label:"):])
    return f"/mail/folder/{folder}"


def message_url(message: dict[str, Any]) -> str:
    if message["folder"] == "drafts":
        return f"/mail/compose?draft={message['id']}"
    return f"/mail/message/{message['id']}"


def pagination(base: str, params: dict[str, str], current: int, pages: int) -> str:
    if pages <= 1:
        return ""
    def link(number: int, text: str, label: str) -> str:
        return f"<a href='{esc(base)}?{esc(urlencode({**params, 'page': number}))}' aria-label='{label}'>{text}</a>"
    items = [link(current - 1, "&lsaquo; Prev", "Previous page")] if current > 1 else []
    for number in range(1, pages + 1):
        items.append(f"<span class='current' aria-current='page'>{number}</span>" if number == current
                     else link(number, str(number), f"Page {number}"))
    if current < pages:
        items.append(link(current + 1, "Next &rsaquo;", "Next page"))
    return f"<nav class='pagination' aria-label='Pages'>{''.join(items)}</nav>"


def hidden(name: str, value: Any) -> str:
    return f"<input type='hidden' name='{name}' value='{esc(value)}'>"




def layout(state: dict[str, Any], title: str, content: str, *, active: str = "", query: str = "",
           back: str = "/mail/", message_id: int | None = None, with_dialog: bool = True) -> str:
    topbar = (
        "<header class='topbar'><a class='brand' href='/mail/'>&#9993; Mail</a>"
        "<form class='mail-search' action='/mail/search' role='search'>"
        f"<input type='search' name='q' id='search' aria-label='Search mail' placeholder='Search mail' value='{esc(query)}'>"
        "<button class='secondary' aria-label='Search'>Search</button></form><span class='spacer'></span>"
        f"<a href='/mail/contacts' id='contacts-link'>Contacts</a><span>{esc(state['me']['name'])}</span></header>")
    counts = {"inbox": store.unread_count(state, "inbox"), "drafts": len(store.in_folder(state, "drafts"))}
    links = []
    for folder, name in store.FOLDERS.items():
        badge = f"<span class='count'>{counts[folder]}</span>" if counts.get(folder) else ""
        current = " current" if folder == active else ""
        links.append(f"<a class='folder{current}' href='{folder_url(folder)}' data-folder='{folder}'>{name}{badge}</a>")
    labels = "".join(
        f"<a class='folder label{' current' if active == 'label:' + name else ''}' href='{folder_url('label:' + name)}' "
        f"data-folder='label:{esc(name)}'>{esc(name)}</a>" for name in state["labels"])
    sidebar = (
        "<aside class='sidebar mail-sidebar'><a class='button compose-button' href='/mail/compose' id='compose'>&#9998; Compose</a>"
        f"<nav class='folders' aria-label='Folders'>{''.join(links)}</nav><h3>Labels</h3>"
        f"<nav class='folders' aria-label='Labels'>{labels}</nav>"
        "<button type='button' class='secondary small' id='new-label-button' data-dialog-open='#label-dialog'>+ New label</button></aside>")
    close = "<button type='button' class='secondary' data-dialog-close>Cancel</button>"
    dialog = (f"<dialog id='label-dialog' aria-label='New label'><h2>New label</h2>{label_form(back, message_id, '', '', close)}"
              "</dialog>") if with_dialog else ""
    body = f"<div class='layout'>{sidebar}<section class='content'>{content}</section></div>{dialog}"
    return page(f"{title} - Mail", body, app="mail", app_assets=HEAD, nav=topbar)


def label_form(back: str, message_id: int | None, name: str, error: str, cancel: str) -> str:
    """Create a label; from a message page the message is moved into it as well."""
    move = hidden("move_id", message_id) if message_id is not None else ""
    action = "Create and move" if message_id is not None else "Create label"
    return (f"<form method='post' action='/mail/labels' id='label-form'>{hidden('back', back)}{move}"
            f"<div class='field'><label for='label-name'>Label name</label><input id='label-name' name='name' value='{esc(name)}' "
            f"autocomplete='off'><div class='error' id='error-name' role='alert'>{esc(error)}</div></div><div class='actions'>"
            f"{cancel}<button type='submit' id='label-create'>{action}</button></div></form>")


def label_page(state: dict[str, Any], name: str, message_id: int | None, back: str, error: str) -> str:
    """The label form on its own page: where a refused name comes back with its error."""
    cancel = f"<a class='button secondary' href='{esc(back)}'>Cancel</a>"
    content = f"<h1>New label</h1><div class='card label-card'>{label_form(back, message_id, name, error, cancel)}</div>"
    return layout(state, "New label", content, back=back, with_dialog=False)


def move_menu(state: dict[str, Any], button_id: str, *, field: str, prefix: str = "", new_label: bool = False) -> str:
    """A Move to menu whose items submit the surrounding form with `field` = target."""
    targets = [*((f, store.FOLDERS[f]) for f in store.MOVE_TARGETS), *((f"label:{n}", n) for n in state["labels"])]
    items = "".join(f"<li><button type='submit' role='menuitem' name='{field}' value='{esc(prefix + folder)}' "
                    f"data-move='{esc(folder)}'>{esc(name)}</button></li>" for folder, name in targets)
    if new_label:
        items += ("<li><button type='button' role='menuitem' id='new-label-item' data-dialog-open='#label-dialog'>"
                  "New label&hellip;</button></li>")
    return (f"<div class='menu'><button type='button' class='secondary' id='{button_id}' aria-haspopup='menu' "
            f"aria-expanded='false'>Move to &#9662;</button><ul role='menu' hidden>{items}</ul></div>")


def message_rows(messages: list[dict[str, Any]], *, show_folder: bool = False) -> str:
    if not messages:
        return "<p class='empty muted'>No messages here.</p>"
    rows = []
    for m in messages:
        who = ("To: " + ", ".join(m["to"])) if m["folder"] in ("sent", "drafts") else m["from"]["name"]
        snippet = " ".join(m["body"].split())[:90]
        attach = f"<span class='att-badge'>{len(m['attachments'])} file{'s' if len(m['attachments']) > 1 else ''}</span>" if m["attachments"] else ""
        where = f"<span class='folder-tag'>{esc(store.folder_title(m['folder']))}</span>" if show_folder else ""
        star = "&#9733;" if m["starred"] else "&#9734;"
        rows.append(
            f"<div class='msg-row{'' if m['read'] else ' unread'}' data-id='{m['id']}'>"
            f"<input type='checkbox' class='msg-check' name='ids' value='{m['id']}' aria-label='Select: {esc(m['subject'])}'>"
            f"<button type='submit' class='star-toggle' formaction='/mail/message/{m['id']}/star' name='value' "
            f"value='{0 if m['starred'] else 1}' aria-pressed='{str(m['starred']).lower()}' "
            f"aria-label='Star: {esc(m['subject'])}'>{star}</button>"
            f"<a class='msg-link' href='{message_url(m)}'><span class='from'>{esc(who)}</span>{where}"
            f"<span class='subject'>{esc(m['subject'])}</span><span class='snippet'>&ndash; {esc(snippet)}</span>"
            f"{attach}<span class='date'>{short_date(m['date'])}</span></a></div>")
    return "".join(rows)


def list_page(state: dict[str, Any], title: str, messages: list[dict[str, Any]], page_number: int, *,
              base: str, params: dict[str, str], active: str = "", query: str = "", notice: str = "") -> str:
    shown, current, pages = store.page_of(messages, page_number)
    first = (current - 1) * store.PAGE_SIZE + 1
    span = f"{first}&ndash;{first + len(shown) - 1} of {len(messages)}" if shown else "0 messages"
    back = f"{base}?{urlencode({**params, 'page': current})}"
    actions = "".join(f"<button type='submit' class='secondary' name='action' value='{value}'>{label}</button>" for value, label in
                      (("archive", "Archive"), ("trash", "Delete"), ("read", "Mark read"), ("unread", "Mark unread")))
    content = (
        f"{notice_banner(notice)}<div class='list-head'><h1>{esc(title)}</h1><span class='muted'>{span}</span></div>"
        f"<form method='post' action='/mail/bulk' id='bulk-form'>{hidden('back', back)}"
        "<div class='toolbar' role='toolbar' aria-label='Selected messages'>"
        f"<label class='select-all'><input type='checkbox' id='select-all'> Select all</label>{actions}"
        f"{move_menu(state, 'bulk-move', field='action', prefix='move:')}</div>"
        f"<div class='scroll-list msg-list' id='message-list'>{message_rows(shown, show_folder=bool(query))}</div></form>"
        f"{pagination(base, params, current, pages)}")
    return layout(state, title, content, active=active, query=query, back=back)


def message_page(state: dict[str, Any], m: dict[str, Any], notice: str = "") -> str:
    star = "&#9733; Starred" if m["starred"] else "&#9734; Star"
    to = ", ".join(m["to"])
    cc = f"<div><span class='muted'>Cc:</span> {esc(', '.join(m['cc']))}</div>" if m["cc"] else ""
    paragraphs = "".join(f"<p>{esc(p).replace(chr(10), '<br>')}</p>" for p in m["body"].split("\n\n"))
    files = "".join(f"<li class='attachment' data-file='{esc(a)}'>{esc(a)}</li>" for a in m["attachments"])
    attachments = f"<section class='attachments'><h3>Attachments</h3><ul>{files}</ul></section>" if files else ""
    base = f"/mail/message/{m['id']}"
    toolbar = (
        f"<form method='post' action='{base}/move' class='toolbar msg-toolbar' role='toolbar' aria-label='Message actions' "
        f"data-id='{m['id']}'><a class='button secondary' href='{folder_url(m['folder'])}' id='back'>&larr; "
        f"{esc(store.folder_title(m['folder']))}</a><a class='button' id='reply' href='/mail/compose?reply={m['id']}'>Reply</a>"
        f"<a class='button secondary' id='forward' href='/mail/compose?forward={m['id']}'>Forward</a>"
        f"<button type='submit' class='secondary' id='star-button' formaction='{base}/star' name='value' "
        f"value='{0 if m['starred'] else 1}' aria-pressed='{str(m['starred']).lower()}'>{star}</button>"
        "<button type='submit' class='secondary' id='archive-button' name='folder' value='archive'>Archive</button>"
        "<button type='submit' class='danger' id='delete-button' name='folder' value='trash'>Delete</button>"
        f"<button type='submit' class='secondary' id='unread-button' formaction='{base}/read' name='value' value='0'>Mark unread</button>"
        f"{move_menu(state, 'move-button', field='folder', new_label=True)}</form>")
    content = (
        f"{notice_banner(notice)}{toolbar}<article class='card message' data-id='{m['id']}'><h1 class='msg-subject'>{esc(m['subject'])}</h1>"
        f"<div class='msg-meta'><div><strong>{esc(m['from']['name'])}</strong> &lt;{esc(m['from']['email'])}&gt;</div>"
        f"<div><span class='muted'>To:</span> {esc(to)}</div>{cc}<div class='muted'>{long_date(m['date'])} &middot; "
        f"in {esc(store.folder_title(m['folder']))}</div></div><div class='msg-body'>{paragraphs}</div>{attachments}</article>")
    return layout(state, m["subject"], content, active=m["folder"], back=message_url(m), message_id=m["id"])


def chips(values: list[str]) -> str:
    return "".join(f"<span class='chip' data-value='{esc(v)}'>{esc(v)}<button type='button' class='chip-remove' "
                   f"aria-label='Remove {esc(v)}'>&times;</button></span>" for v in values)


def compose_page(state: dict[str, Any], draft: dict[str, Any], heading: str, quoted: dict[str, Any] | None,
                 errors: dict[str, str] | None = None) -> str:
    """The compose form; `quoted` is the message replied to or forwarded, shown below it;
    `errors` (field -> message) come back from a refused send."""
    errors = errors or {}
    refs = " ".join(f"data-{k.replace('_', '-')}='{esc(draft[k])}'" for k in ("reply_to", "forward_of", "draft_id") if draft.get(k))

    def error(field: str) -> str:
        return f"<div class='error' id='error-{field}' role='alert'>{esc(errors.get(field, ''))}</div>"

    def recipients(field: str, label: str) -> str:
        return (f"<div class='field recipients' id='{field}-field'><label for='{field}-input'>{label}</label>"
                f"<div class='chips' id='{field}-chips'>{chips(draft[field])}</div>"
                f"<div class='autocomplete'><input id='{field}-input' data-suggest='/mail/api/contacts?q=' autocomplete='off' "
                f"placeholder='Type a name or address'></div>{error(field)}</div>")
    quote_block = ""
    if quoted is not None:
        intro = (f"Forwarded message from {esc(quoted['from']['name'])}, {long_date(quoted['date'])}:" if draft.get("forward_of")
                 else f"On {long_date(quoted['date'])}, {esc(quoted['from']['name'])} wrote:")
        quote_block = f"<blockquote class='quoted'><div class='muted'>{intro}</div>{esc(quoted['body'])}</blockquote>"
    files = "".join(f"<label class='file-option' data-file='{esc(f)}'><input type='checkbox' value='{esc(f)}'> {esc(f)}</label>"
                    for f in state["files"])
    content = (
        f"<h1>{esc(heading)}</h1><form id='compose-form' class='card compose' method='post' action='/mail/send' {refs}>"
        f"{hidden('payload', '')}{recipients('to', 'To')}{recipients('cc', 'Cc')}"
        f"<div class='field'><label for='subject'>Subject</label><input id='subject' value='{esc(draft['subject'])}' autocomplete='off'>"
        f"{error('subject')}</div>"
        f"<div class='field'><label for='body'>Message</label><textarea id='body'>{esc(draft['body'])}</textarea></div>{quote_block}"
        f"<div class='field'><label>Attachments</label><div class='chips' id='attachments-chips'>{chips(draft['attachments'])}</div>"
        f"<button type='button' class='secondary' id='attach-button' data-dialog-open='#files-dialog'>Attach files</button>"
        f"{error('attachments')}</div>{error('form')}"
        "<div class='compose-actions'><button type='submit' id='send'>Send</button>"
        "<button type='submit' class='secondary' id='save-draft' formaction='/mail/drafts'>Save draft</button>"
        "<a class='button secondary' href='/mail/' id='discard'>Discard</a></div></form>"
        "<dialog id='files-dialog' aria-label='My files'><h2>My files</h2>"
        "<input type='search' id='file-filter' aria-label='Filter files' placeholder='Filter files' autocomplete='off'>"
        f"<div class='scroll-list files-list'>{files}</div><div class='actions'>"
        "<button type='button' class='secondary' data-dialog-close>Cancel</button>"
        "<button type='button' id='files-done'>Attach selected</button></div></dialog>")
    return layout(state, heading, content, active="drafts" if draft.get("draft_id") else "")


def contacts_page(state: dict[str, Any], company: str, page_number: int) -> str:
    companies = sorted({c["company"] for c in state["contacts"]}, key=lambda c: (c != HOME_COMPANY, c))
    chosen = [c for c in state["contacts"] if not company or c["company"] == company]
    shown, current, pages = store.page_of(chosen, page_number, CONTACTS_PAGE_SIZE)
    pills = [f"<a class='pill{' current' if not company else ''}' href='/mail/contacts'>All</a>"]
    pills += [f"<a class='pill{' current' if name == company else ''}' href='/mail/contacts?{esc(urlencode({'company': name}))}'>"
              f"{esc(name)}</a>" for name in companies]
    rows = "".join(
        f"<tr data-contact='{c['id']}'><td class='name'>{esc(c['name'])}</td><td class='email'>{esc(c['email'])}</td>"
        f"<td>{esc(c['company'])}</td><td>{esc(c['title'])}</td><td>{esc(c['phone'])}</td>"
        f"<td><a href='/mail/compose?{esc(urlencode({'to': c['email']}))}' aria-label='Write to {esc(c['name'])}'>Write</a></td></tr>"
        for c in shown)
    content = (
        f"<div class='list-head'><h1>Contacts</h1><span class='muted'>{len(chosen)} people</span></div>"
        f"<nav class='pills' aria-label='Filter by company'>{''.join(pills)}</nav>"
        "<table class='contacts'><thead><tr><th>Name</th><th>Email</th><th>Company</th><th>Title</th><th>Phone</th><th></th></tr></thead>"
        f"<tbody>{rows}</tbody></table>{pagination('/mail/contacts', {'company': company} if company else {}, current, pages)}")
    return layout(state, "Contacts", content)
