"""The Users section: the searchable, filterable, sortable, paginated members table, the
invite dialog, and one member's page with its edit form and confirm dialogs."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qsl, urlencode

from gui_gym.suites.localweb.apps.admin.data import PAGE_SIZE, ROLES, STATUSES, TEAMS, pretty_date
from gui_gym.suites.localweb.apps.admin.views import PREFIX, dialog, field, options, select, shell, status_badge, url
from gui_gym.suites.localweb.framework import esc

COLUMNS = (("name", "Name"), ("email", "Email"), ("role", "Role"), ("team", "Team"),
           ("status", "Status"), ("last_login", "Last sign-in"))
LIST_KEYS = ("q", "team", "status", "sort", "dir", "page")


def list_query(query: dict[str, str]) -> dict[str, str]:
    """The list-view parameters of a query string (search, filters, sort, page)."""
    return {k: query[k] for k in LIST_KEYS if query.get(k)}


def filtered_users(state: dict[str, Any], params: dict[str, str]) -> list[dict[str, Any]]:
    """The members the list shows for `params`, sorted (never-signed-in first when ascending
    by last sign-in, as the oldest)."""
    needle = params.get("q", "").strip().lower()
    rows = [u for u in state["users"]
            if (not needle or needle in u["name"].lower() or needle in u["email"])
            and params.get("team", "") in ("", u["team"]) and params.get("status", "") in ("", u["status"])]
    sort = params.get("sort", "name") if params.get("sort") in dict(COLUMNS) else "name"
    rows.sort(key=lambda u: (u[sort] or "", u["name"]))
    if params.get("dir") == "desc":
        rows.reverse()
    return rows


def list_view(state: dict[str, Any],
              params: dict[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int, int]:
    """(every member the list holds for `params`, the rows of the page shown, that page's
    number, the number of pages): what a member-list URL puts on the screen."""
    rows = filtered_users(state, params)
    pages = max(1, math.ceil(len(rows) / PAGE_SIZE))
    current = min(max(1, int(params["page"])) if params.get("page", "").isdigit() else 1, pages)
    return rows, rows[(current - 1) * PAGE_SIZE: current * PAGE_SIZE], current, pages


def users_page(state: dict[str, Any], query: dict[str, str], invite: dict[str, str] | None = None,
               errors: dict[str, str] | None = None) -> str:
    params = list_query(query)
    rows, shown, current, pages = list_view(state, params)
    back = urlencode({k: v for k, v in params.items()})
    body_rows = "".join(_row(user, back) for user in shown) or \
        "<tr><td colspan='6' class='muted'>No members match these filters.</td></tr>"
    first = (current - 1) * PAGE_SIZE + 1 if shown else 0
    summary = f"Showing {first}–{first + len(shown) - 1 if shown else 0} of {len(rows)} members"
    return shell(state, "users", "Users", f"""
<div class='page-head'><h1>Users</h1>
<button type='button' data-dialog-open='#invite-dialog'>Invite user</button></div>
<form class='filters' method='get' action='{PREFIX}/users' role='search'>
<input type='search' name='q' value='{esc(params.get("q", ""))}' placeholder='Search by name or email' aria-label='Search users'>
<label>Team <select name='team' aria-label='Team filter'>{options(TEAMS, params.get("team"), "All teams")}</select></label>
<label>Status <select name='status' aria-label='Status filter'>
{options(STATUSES, params.get("status"), "All statuses")}</select></label>
<input type='hidden' name='sort' value='{esc(params.get("sort", ""))}'>
<input type='hidden' name='dir' value='{esc(params.get("dir", ""))}'>
<button type='submit' class='secondary'>Apply</button>
<a href='{PREFIX}/users' class='clear'>Clear</a></form>
<p class='muted summary'>{summary}</p>
<table class='users'><thead><tr>{_headers(params)}</tr></thead><tbody>{body_rows}</tbody></table>
{_pagination(params, current, pages)}
{_invite_dialog(invite or {}, errors or {})}""")


def _row(user: dict[str, Any], back: str) -> str:
    href = url(f"/users/{user['id']}", **({"from": back} if back else {}))
    return (f"<tr data-user-id='{user['id']}'><td><a class='user-link' data-user-id='{user['id']}' href='{esc(href)}'>"
            f"{esc(user['name'])}</a></td><td>{esc(user['email'])}</td><td>{esc(user['role'])}</td>"
            f"<td>{esc(user['team'])}</td><td>{status_badge(user['status'])}</td>"
            f"<td>{pretty_date(user['last_login'])}</td></tr>")


def _headers(params: dict[str, str]) -> str:
    cells = []
    sort, direction = params.get("sort", "name"), params.get("dir", "asc")
    for key, label in COLUMNS:
        active = key == sort
        next_dir = "desc" if active and direction != "desc" else "asc"
        link = url("/users", **{**params, "sort": key, "dir": next_dir, "page": ""})
        arrow = (" ▲" if direction != "desc" else " ▼") if active else ""
        aria = f" aria-sort='{'descending' if direction == 'desc' else 'ascending'}'" if active else ""
        cells.append(f"<th{aria}><a class='sort' data-sort='{key}' href='{esc(link)}'>{label}{arrow}</a></th>")
    return "".join(cells)


def _pagination(params: dict[str, str], current: int, pages: int) -> str:
    def link(number: int, label: str, cls: str = "") -> str:
        return f"<a class='{cls}' data-page='{number}' href='{esc(url('/users', **{**params, 'page': number}))}'>{label}</a>"
    parts = [link(current - 1, "‹ Prev", "prev") if current > 1 else "<span class='muted'>‹ Prev</span>"]
    for number in range(1, pages + 1):
        parts.append(f"<span class='current' aria-current='page'>{number}</span>" if number == current
                     else link(number, str(number)))
    parts.append(link(current + 1, "Next ›", "next") if current < pages else "<span class='muted'>Next ›</span>")
    return f"<nav class='pagination' aria-label='Pages'>{''.join(parts)}</nav>"


def _invite_dialog(values: dict[str, str], errors: dict[str, str]) -> str:
    inner = (
        "<p class='muted'>They get an email with a link to join. Their seat is billed once they accept.</p>"
        + field("Email address", f"<input id='email' name='email' autocomplete='off' value='{esc(values.get('email', ''))}'>",
                "email", errors)
        + field("Role", select("role", ROLES, values.get('role', 'Viewer')), "role", errors)
        + field("Team", select("team", TEAMS, values.get('team'), 'Choose a team'),
                "team", errors))
    return dialog("invite-dialog", "Invite a member", inner, action=f"{PREFIX}/users/invite", submit="Send invite",
                  open_on_load=bool(errors))


def user_page(state: dict[str, Any], user: dict[str, Any], back: str, values: dict[str, str] | None = None,
              errors: dict[str, str] | None = None) -> str:
    values, errors = values or {}, errors or {}
    uid, is_owner = user["id"], user["role"] == "Owner"
    back_href = url("/users") + (f"?{back}" if back else "")
    hidden = f"<input type='hidden' name='from' value='{esc(back)}'>"
    role_control = (f"<select id='role' name='role'{' disabled' if is_owner else ''}>"
                    f"{options(('Owner',) if is_owner else ROLES, user['role'])}</select>")
    profile = (
        f"<form class='card profile' method='post' action='{PREFIX}/users/{uid}'><h2>Profile</h2>{hidden}"
        + field("Full name", f"<input id='name' name='name' value='{esc(values.get('name', user['name']))}'>", "name", errors)
        + field("Role", role_control, "role", errors, "Owners keep their role." if is_owner else "")
        + field("Team", select("team", TEAMS, values.get('team', user['team'])), "team", errors)
        + "<button type='submit'>Save changes</button></form>")
    deactivated = user["status"] == "Deactivated"
    actions, dialogs = "", ""
    if not is_owner:
        next_status = "Active" if deactivated else "Deactivated"
        verb = "Reactivate" if deactivated else "Deactivate"
        actions = (
            "<button type='button' class='secondary' data-dialog-open='#reset-dialog'>Reset password</button>"
            f"<button type='button' class='{'secondary' if deactivated else 'danger'}' data-dialog-open='#status-dialog'>"
            f"{verb} user</button>"
            "<button type='button' class='danger' data-dialog-open='#delete-dialog'>Delete user</button>")
        who = esc(user["name"])
        dialogs = (
            dialog("reset-dialog", f"Reset password for {user['name']}?",
                   f"{hidden}<p>{who} is signed out everywhere and gets an email with a link to choose a new password.</p>",
                   action=f"{PREFIX}/users/{uid}/reset-password", submit="Send reset link")
            + dialog("status-dialog", f"{verb} {user['name']}?",
                     f"{hidden}<input type='hidden' name='status' value='{next_status}'><p>"
                     + ("They regain access with their previous role." if deactivated else
                        "They lose access immediately. Their content stays and their seat is freed.") + "</p>",
                     action=f"{PREFIX}/users/{uid}/status", submit=verb, danger=not deactivated)
            + dialog("delete-dialog", f"Delete {user['name']}?",
                     f"{hidden}<p>This cannot be undone. Type <strong>{esc(user['email'])}</strong> to confirm.</p>"
                     + field("Email address", "<input id='confirm' name='confirm' autocomplete='off'>", "confirm", errors),
                     action=f"{PREFIX}/users/{uid}/delete", submit="Delete permanently", danger=True,
                     open_on_load="confirm" in errors))
    facts = (f"{esc(user['email'])} · {esc(user['team'])} · joined {pretty_date(user['joined'])} · "
             f"last sign-in {pretty_date(user['last_login'])}"
             + (" · password reset pending" if user["password_reset"] else ""))
    return shell(state, "users", user["name"], f"""
<a class='back' href='{esc(back_href)}'>← Back to users</a>
<div class='page-head'><h1>{esc(user['name'])}</h1>{status_badge(user['status'])}</div>
<p class='muted'>{facts}</p>
<div class='columns'>{profile}<div class='card account-actions'><h2>Account</h2>
<p class='muted'>Role: <strong class='current-role'>{esc(user['role'])}</strong></p><div class='button-row'>{actions or
    "<span class='muted'>The owner's account cannot be changed here.</span>"}</div></div></div>{dialogs}""")


def back_query(raw: str) -> str:
    """A ``from`` value reduced to list parameters, so it is safe to echo into links."""
    return urlencode([(k, v) for k, v in parse_qsl(raw) if k in LIST_KEYS])
