"""The admin console's page frame and the small pieces every page shares.

Every page has the same shell: a topbar with the organisation, a row of section tabs, a
one-shot flash notice (set by the handler that changed something, shown once, like a session
flash), then the section's content.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from gui_gym.suites.localweb.framework import SHARED_STATIC, app_url, assets, esc, notice, page

PREFIX = "/admin"
SECTIONS = (
    ("general", "General"), ("users", "Users"), ("security", "Security"),
    ("notifications", "Notifications"), ("billing", "Billing"), ("api-keys", "API keys"),
    ("audit", "Audit log"),
)
STATIC = Path(__file__).parent / "static"
_HEAD = assets(STATIC / "admin.css", SHARED_STATIC / "widgets.js", STATIC / "admin.js")


def url(path: str, **query: Any) -> str:
    """An absolute URL inside the console; empty query values are left out."""
    return app_url(PREFIX, path, **query)


def owner(state: dict[str, Any]) -> dict[str, Any]:
    return next(u for u in state["users"] if u["role"] == "Owner")


def shell(state: dict[str, Any], active: str, title: str, body: str) -> str:
    org = state["org"]["name"]
    topbar = (f"<header class='topbar'><a class='brand' href='{PREFIX}/'>{esc(org)} Admin</a>"
              "<span class='spacer'></span>"
              f"<span class='whoami'>Signed in as <strong>{esc(owner(state)['name'])}</strong></span></header>")
    tabs = "".join(
        f"<a href='{PREFIX}/{key}' data-section='{key}'" + (" aria-current='page'" if key == active else "")
        + f">{label}</a>" for key, label in SECTIONS)
    flash = state.pop("flash", None)
    content = f"<nav class='admin-tabs' aria-label='Admin sections'>{tabs}</nav>{notice(flash)}{body}"
    return page(f"{title} · {org} Admin", content, app="admin", app_assets=_HEAD, nav=topbar)


def options(values: Iterable[str], selected: str | None, placeholder: str | None = None) -> str:
    """``<option>`` tags; `placeholder` is a first option with an empty value."""
    head = f"<option value=''>{esc(placeholder)}</option>" if placeholder is not None else ""
    return head + "".join(
        f"<option value='{esc(v)}'{' selected' if v == selected else ''}>{esc(v)}</option>" for v in values)


def select(name: str, values: Iterable[str], selected: str | None, placeholder: str | None = None) -> str:
    """A native select whose id and name are both `name`."""
    return f"<select id='{name}' name='{name}'>{options(values, selected, placeholder)}</select>"


def field(label: str, control: str, name: str, errors: dict[str, str], hint: str = "") -> str:
    """A labelled form row with its validation message (empty when valid)."""
    error = errors.get(name, "")
    hint_html = f"<div class='muted hint'>{esc(hint)}</div>" if hint else ""
    return (f"<div class='field'><label for='{name}'>{esc(label)}</label>{control}{hint_html}"
            f"<div class='error' id='{name}-error' data-error-for='{name}'>{esc(error)}</div></div>")


def dialog(dialog_id: str, title: str, inner: str, *, action: str, submit: str, danger: bool = False,
           open_on_load: bool = False) -> str:
    """A modal with a native form: Cancel closes it, the submit button posts the form."""
    return (f"<dialog id='{dialog_id}' aria-labelledby='{dialog_id}-title'"
            + (" data-show-on-load" if open_on_load else "") + ">"
            f"<form method='post' action='{action}'><h2 id='{dialog_id}-title'>{esc(title)}</h2>{inner}"
            "<div class='actions'><button type='button' class='secondary' data-dialog-close>Cancel</button>"
            f"<button type='submit' class='{'danger' if danger else 'primary'}'>{esc(submit)}</button></div>"
            "</form></dialog>")


def status_badge(status: str) -> str:
    return f"<span class='badge status-{status.lower()}'>{esc(status)}</span>"
