"""The console's settings sections: General, Security, Notifications, Billing, API keys and
the Audit log. Switches on Security save at once (the shared switch widget posts to the API);
the other sections are native forms the server validates."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gui_gym.suites.localweb.apps.admin.data import (AUDIT_ACTIONS, EXPIRIES, FREQUENCIES, LANGUAGES,
                                                     NOTIFICATION_EVENTS, PASSWORD_LENGTHS, SCOPES, SEAT_PRICE,
                                                     SECURITY_SWITCHES, SESSION_TIMEOUTS, TIMEZONES, TODAY, day, money,
                                                     pretty_date)
from gui_gym.suites.localweb.apps.admin.views import PREFIX, dialog, field, options, select, shell, status_badge
from gui_gym.suites.localweb.framework import esc

AUDIT_WINDOW_DAYS = 90


def general_page(state: dict[str, Any], values: dict[str, str] | None = None,
                 errors: dict[str, str] | None = None) -> str:
    org = {**state["org"], **(values or {})}
    errors = errors or {}
    form = (
        f"<form class='card narrow' method='post' action='{PREFIX}/general'><h2>Organization profile</h2>"
        + field("Organization name", f"<input id='name' name='name' value='{esc(org['name'])}'>", "name", errors)
        + field("Support email", f"<input id='support_email' name='support_email' value='{esc(org['support_email'])}'>",
                "support_email", errors, "Shown to members on the sign-in page.")
        + field("Default language", select("language", LANGUAGES, org['language']),
                "language", errors)
        + field("Time zone", select("timezone", TIMEZONES, org['timezone']),
                "timezone", errors)
        + "<button type='submit'>Save changes</button></form>")
    return shell(state, "general", "General", f"<h1>General</h1>{form}")


def security_page(state: dict[str, Any]) -> str:
    sec = state["security"]
    rows = "".join(
        f"<div class='setting-row'><div><strong id='sw-{key}'>{esc(label)}</strong><div class='muted'>{esc(text)}</div></div>"
        f"<label class='switch'><button type='button' role='switch' aria-checked='{str(sec[key]).lower()}' "
        f"aria-labelledby='sw-{key}' data-switch='{key}' data-api='{PREFIX}/api/security/{key}'></button></label></div>"
        for key, (label, text) in SECURITY_SWITCHES.items())
    policy = (
        f"<form class='card' method='post' action='{PREFIX}/security/sessions'><h2>Sessions and passwords</h2>"
        + field("Session timeout", select("session_timeout", SESSION_TIMEOUTS, sec['session_timeout']), "session_timeout", {})
        + field("Minimum password length", select("password_length", PASSWORD_LENGTHS, sec['password_length']),
                "password_length", {})
        + "<button type='submit'>Save policy</button></form>")
    return shell(state, "security", "Security", f"""<h1>Security</h1>
<div class='columns'><section class='card settings-list' aria-label='Access controls'><h2>Access controls</h2>
<p class='muted'>Changes apply immediately to every member.</p>{rows}</section>{policy}</div>""")


def notifications_page(state: dict[str, Any]) -> str:
    prefs = state["notifications"]
    rows = "".join(
        f"<div class='setting-row'><div><strong id='ev-{key}'>{esc(label)}</strong><div class='muted'>{esc(text)}</div></div>"
        f"<label class='switch'><button type='button' role='switch' aria-checked='{str(prefs['events'][key]).lower()}' "
        f"aria-labelledby='ev-{key}' data-event='{key}'></button>"
        f"<input type='hidden' name='ev_{key}' value='{'on' if prefs['events'][key] else 'off'}'></label></div>"
        for key, (label, text) in NOTIFICATION_EVENTS.items())
    return shell(state, "notifications", "Notifications", f"""<h1>Notifications</h1>
<form class='card notifications' method='post' action='{PREFIX}/notifications'>
<p class='muted'>Email alerts sent to admins. Changes are kept when you press Save.</p>
<div class='settings-list two-col'>{rows}</div>
<div class='form-foot'>{field("Delivery frequency", select("frequency", FREQUENCIES, prefs['frequency']), "frequency", {})}
<button type='submit'>Save preferences</button></div></form>""")


def billing_page(state: dict[str, Any], errors: dict[str, str] | None = None,
                 values: dict[str, str] | None = None) -> str:
    bill = state["billing"]
    used = sum(u["status"] != "Deactivated" for u in state["users"])
    email = (values or {}).get("billing_email", bill["billing_email"])
    invoices = "".join(
        f"<tr data-invoice='{esc(inv['number'])}'><td>{esc(inv['number'])}</td><td>{esc(inv['period'])}</td>"
        f"<td class='num'>{money(inv['amount'])}</td><td>{status_badge(inv['status'])}</td></tr>"
        for inv in bill["invoices"])
    overview = (
        f"<div class='columns'><div class='card'><h2>{esc(bill['plan'])} plan</h2>"
        f"<p><strong>{used}</strong> of {bill['seats']} seats in use</p>"
        f"<p class='muted'>{money(SEAT_PRICE)} per seat per month, billed monthly.</p>"
        "<p>Card on file: <strong>Visa •••• 4242</strong>, expires 08/2027</p></div>"
        f"<form class='card' method='post' action='{PREFIX}/billing/contact'><h2>Billing contact</h2>"
        + field("Invoice email", f"<input id='billing_email' name='billing_email' value='{esc(email)}'>",
                "billing_email", errors or {})
        + "<button type='submit'>Save contact</button></form></div>")
    return shell(state, "billing", "Billing", f"""<h1>Billing</h1>
<div role='tablist' aria-label='Billing views'>
<button type='button' role='tab' id='tab-overview' aria-controls='panel-overview' aria-selected='true'>Overview</button>
<button type='button' role='tab' id='tab-invoices' aria-controls='panel-invoices' aria-selected='false'>Invoices</button></div>
<section id='panel-overview' role='tabpanel' aria-labelledby='tab-overview'>{overview}</section>
<section id='panel-invoices' role='tabpanel' aria-labelledby='tab-invoices' hidden>
<table class='invoices'><thead><tr><th>Invoice</th><th>Period</th><th class='num'>Amount</th><th>Status</th></tr></thead>
<tbody>{invoices}</tbody></table></section>""")


def api_keys_page(state: dict[str, Any], values: dict[str, Any] | None = None,
                  errors: dict[str, str] | None = None) -> str:
    values, errors = values or {}, errors or {}
    rows, dialogs = [], []
    for key in sorted(state["api_keys"], key=lambda k: (k["status"] != "Active", -k["id"])):
        chips = "".join(f"<span class='chip'>{esc(s)}</span>" for s in key["scopes"])
        revoke = ""
        if key["status"] == "Active":
            revoke = (f"<button type='button' class='danger small' data-key-id='{key['id']}' "
                      f"data-dialog-open='#revoke-{key['id']}' aria-label='Revoke {esc(key['name'])}'>Revoke</button>")
            dialogs.append(dialog(f"revoke-{key['id']}", f"Revoke “{key['name']}”?",
                                  "<p>Apps using this key stop working at once. This cannot be undone.</p>",
                                  action=f"{PREFIX}/api-keys/{key['id']}/revoke", submit="Revoke key", danger=True))
        rows.append(
            f"<tr data-key-id='{key['id']}'><td><strong>{esc(key['name'])}</strong>"
            f"<div class='muted mono'>{esc(key['prefix'])}…</div></td>"
            f"<td>{chips}</td><td>{pretty_date(key['created'])}<div class='muted'>by {esc(key['created_by'])}</div></td>"
            f"<td>{pretty_date(key['expires']) if key['expires'] else 'Never'}</td><td>{pretty_date(key['last_used'])}</td>"
            f"<td>{status_badge(key['status'])}</td><td>{revoke}</td></tr>")
    chosen = set(values.get("scopes", []))
    scopes = "".join(
        f"<label class='check'><input type='checkbox' name='scopes' value='{s}' data-scope='{s}'"
        f"{' checked' if s in chosen else ''}> {s}</label>" for s in SCOPES)
    inner = (field("Key name", f"<input id='key-name' name='name' autocomplete='off' value='{esc(values.get('name', ''))}'>",
                   "name", errors)
             + f"<fieldset class='scopes'><legend>Scopes</legend>{scopes}"
             f"<div class='error' data-error-for='scopes'>{esc(errors.get('scopes', ''))}</div></fieldset>"
             + field("Expires after", select("expiry", EXPIRIES, values.get('expiry', '90 days')),
                     "expiry", errors))
    dialogs.append(dialog("create-key-dialog", "Create API key", inner, action=f"{PREFIX}/api-keys",
                          submit="Create key", open_on_load=bool(errors)))
    return shell(state, "api-keys", "API keys", f"""
<div class='page-head'><h1>API keys</h1><button type='button' data-dialog-open='#create-key-dialog'>Create API key</button></div>
<p class='muted'>Keys act on behalf of the organization. Give each one only the scopes it needs.</p>
<table class='keys'><thead><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Expires</th><th>Last used</th><th>Status</th>
<th><span class='sr-only'>Actions</span></th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>{''.join(dialogs)}""")


def audit_page(state: dict[str, Any], query: dict[str, str]) -> str:
    action, actor, since = query.get("action", ""), query.get("actor", ""), query.get("since", "")
    entries = [e for e in state["audit"]
               if action in ("", e["action"]) and actor in ("", e["actor"]) and (not since or e["ts"][:10] >= since)]
    actors = sorted({e["actor"] for e in state["audit"]})
    action_options = "<option value=''>All actions</option>" + "".join(
        f"<option value='{k}'{' selected' if k == action else ''}>{esc(v)}</option>" for k, v in AUDIT_ACTIONS.items())
    items = "".join(
        f"<li class='audit-entry' data-entry='{e['id']}'><span class='when mono'>{esc(_stamp(e['ts']))}</span>"
        f"<span class='who'>{esc(e['actor'])}</span><span class='what'>{esc(AUDIT_ACTIONS[e['action']])}</span>"
        f"<span class='target'>{esc(e['target'])}</span><span class='muted'>{esc(e['detail'])}</span></li>"
        for e in entries) or "<li class='muted empty'>No events match these filters.</li>"
    return shell(state, "audit", "Audit log", f"""<h1>Audit log</h1>
<form class='filters' method='get' action='{PREFIX}/audit' role='search'>
<label>Action <select name='action' aria-label='Action filter'>{action_options}</select></label>
<label>Member <select name='actor' aria-label='Member filter'>{options(actors, actor, "All members")}</select></label>
<label>Since <input class='datepicker' name='since' value='{esc(since)}' placeholder='Any date' readonly aria-label='Since date'
 data-min='{day(AUDIT_WINDOW_DAYS)}' data-max='{TODAY.isoformat()}' data-start='{TODAY.isoformat()}'></label>
<button type='submit' class='secondary'>Apply</button><a href='{PREFIX}/audit' class='clear'>Clear</a></form>
<p class='muted summary'>{len(entries)} events in the last {AUDIT_WINDOW_DAYS} days</p>
<ol class='scroll-list audit-list' aria-label='Audit events'>{items}</ol>""")


def _stamp(ts: str) -> str:
    date, _, clock = ts.partition(" ")
    return f"{dt.date.fromisoformat(date):%b %d} {clock}"
