"""`AdminApp`: the settings / admin console's routes and the state changes behind them.

Every change goes through a native form or the switch API, is validated here (a bad field
re-renders its form with the message, status 422), and leaves an audit-log entry by the
signed-in owner, so both the evaluators and the Audit log page see what the agent did.
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import parse_qs

from gui_gym.suites.localweb.apps.admin import data, views_settings, views_users
from gui_gym.suites.localweb.apps.admin.views import STATIC, owner, url
from gui_gym.suites.localweb.framework import (Request, Response, Routes, WebApp, html_response, json_response,
                                               not_found, redirect)

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)


def audit(state: dict[str, Any], action: str, target: str, detail: str = "") -> None:
    """Record an action of the signed-in owner, stamped on the console's fixed today."""
    state["clock"] += 1
    minutes = 9 * 60 + state["clock"]
    state["audit"].insert(0, {"id": len(state["audit"]) + 1, "ts": f"{state['today']} {minutes // 60:02d}:{minutes % 60:02d}",
                              "actor": owner(state)["name"], "action": action, "target": target, "detail": detail})


def email_error(value: str) -> str:
    return "" if EMAIL_RE.match(value) else "Enter a valid email address, like name@example.com."


routes = Routes()


class AdminApp(WebApp):
    name = "admin"
    title = "Admin console"
    static_dir = STATIC  # the folder its pages inline their assets from
    routes = routes

    def initial_state(self, seed: int) -> dict[str, Any]:
        return data.initial_state(seed)

    # ---- General --------------------------------------------------------------------------

    @routes("GET", "/")
    @routes("GET", "/general")
    def general(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.general_page(state))

    @routes("POST", "/general")
    def save_general(self, request: Request, state: dict[str, Any]) -> Response:
        values = {k: request.arg(k).strip() for k in ("name", "support_email", "language", "timezone")}
        errors = {}
        if not 2 <= len(values["name"]) <= 60:
            errors["name"] = "The organization name must be 2 to 60 characters."
        if email_error(values["support_email"]):
            errors["support_email"] = email_error(values["support_email"])
        if values["language"] not in data.LANGUAGES:
            errors["language"] = "Choose a language from the list."
        if values["timezone"] not in data.TIMEZONES:
            errors["timezone"] = "Choose a time zone from the list."
        if errors:
            return html_response(views_settings.general_page(state, values, errors), 422)
        changed = [k for k, v in values.items() if state["org"][k] != v]
        state["org"].update(values)
        if changed:
            audit(state, "settings.updated", "Organization profile", "Changed " + ", ".join(c.replace("_", " ") for c in changed))
        state["flash"] = "Organization profile saved."
        return redirect(url("/general"))

    # ---- Users ----------------------------------------------------------------------------

    @routes("GET", "/users")
    def users(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_users.users_page(state, request.query))

    @routes("POST", "/users/invite")
    def invite(self, request: Request, state: dict[str, Any]) -> Response:
        values = {k: request.arg(k).strip() for k in ("email", "role", "team")}
        values["email"] = values["email"].lower()
        errors = {}
        if email_error(values["email"]):
            errors["email"] = email_error(values["email"])
        elif any(u["email"] == values["email"] for u in state["users"]):
            errors["email"] = "Someone with this email is already a member or invited."
        if values["role"] not in data.ROLES:
            errors["role"] = "Choose a role."
        if values["team"] not in data.TEAMS:
            errors["team"] = "Choose a team."
        if errors:
            return html_response(views_users.users_page(state, {}, values, errors), 422)
        user = {"id": max(u["id"] for u in state["users"]) + 1, "name": values["email"].split("@")[0],
                "email": values["email"], "role": values["role"], "team": values["team"], "status": "Invited",
                "last_login": None, "joined": state["today"], "password_reset": False}
        state["users"].append(user)
        audit(state, "user.invited", values["email"], f"As {values['role']} in {values['team']}")
        state["flash"] = f"Invitation sent to {values['email']}."
        return redirect(url("/users"))

    @routes("GET", "/users/{uid:int}")
    def user(self, request: Request, state: dict[str, Any], uid: int) -> Response:
        user = _find(state, uid)
        if user is None:
            return not_found("member")
        return html_response(views_users.user_page(state, user, views_users.back_query(request.arg("from"))))

    @routes("POST", "/users/{uid:int}")
    def save_user(self, request: Request, state: dict[str, Any], uid: int) -> Response:
        user = _find(state, uid)
        if user is None:
            return not_found("member")
        back = views_users.back_query(request.arg("from"))
        values = {"name": request.arg("name").strip(), "team": request.arg("team"),
                  "role": user["role"] if user["role"] == "Owner" else request.arg("role")}
        errors = {}
        if not values["name"]:
            errors["name"] = "Enter the member's name."
        if user["role"] != "Owner" and values["role"] not in data.ROLES:
            errors["role"] = "Choose a role."
        if values["team"] not in data.TEAMS:
            errors["team"] = "Choose a team."
        if errors:
            return html_response(views_users.user_page(state, user, back, values, errors), 422)
        if values["role"] != user["role"]:
            audit(state, "user.role_changed", user["name"], f"Role set to {values['role']}")
        if (values["name"], values["team"]) != (user["name"], user["team"]):
            audit(state, "user.updated", user["name"], f"Team {values['team']}")
        user.update(values)
        state["flash"] = f"Saved changes to {user['name']}."
        return redirect(url(f"/users/{uid}", **{"from": back}))

    @routes("POST", "/users/{uid:int}/status")
    def set_status(self, request: Request, state: dict[str, Any], uid: int) -> Response:
        user = _find(state, uid)
        status = request.arg("status")
        if user is None or user["role"] == "Owner" or status not in ("Active", "Deactivated"):
            return not_found("member")
        if user["status"] != status:
            user["status"] = status
            audit(state, "user.deactivated" if status == "Deactivated" else "user.reactivated", user["name"])
        state["flash"] = f"{user['name']} was {'deactivated' if status == 'Deactivated' else 'reactivated'}."
        return redirect(url(f"/users/{uid}", **{"from": views_users.back_query(request.arg("from"))}))

    @routes("POST", "/users/{uid:int}/reset-password")
    def reset_password(self, request: Request, state: dict[str, Any], uid: int) -> Response:
        user = _find(state, uid)
        if user is None or user["role"] == "Owner":
            return not_found("member")
        user["password_reset"] = True
        audit(state, "user.password_reset", user["name"])
        state["flash"] = f"A password reset link was sent to {user['email']}."
        return redirect(url(f"/users/{uid}", **{"from": views_users.back_query(request.arg("from"))}))

    @routes("POST", "/users/{uid:int}/delete")
    def delete_user(self, request: Request, state: dict[str, Any], uid: int) -> Response:
        user = _find(state, uid)
        if user is None or user["role"] == "Owner":
            return not_found("member")
        back = views_users.back_query(request.arg("from"))
        if request.arg("confirm").strip().lower() != user["email"]:
            errors = {"confirm": f"Type {user['email']} exactly to confirm."}
            return html_response(views_users.user_page(state, user, back, errors=errors), 422)
        state["users"].remove(user)
        audit(state, "user.deleted", user["name"])
        state["flash"] = f"{user['name']} was deleted."
        return redirect(url("/users") + (f"?{back}" if back else ""))

    # ---- Security, notifications, billing ------------------------------------------------

    @routes("GET", "/security")
    def security(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.security_page(state))

    def security_switch(self, request: Request, state: dict[str, Any], key: str) -> Response:
        value = request.form.get("value")
        if key not in data.SECURITY_SWITCHES or not isinstance(value, bool):
            return json_response({"error": "expected {\"value\": true|false} for a known setting"}, 400)
        if state["security"][key] != value:
            state["security"][key] = value
            label = data.SECURITY_SWITCHES[key][0]
            audit(state, "security.updated", "Security policy", f"{label}: {'on' if value else 'off'}")
        return json_response({"ok": True, "value": value})

    @routes("POST", "/security/sessions")
    def save_sessions(self, request: Request, state: dict[str, Any]) -> Response:
        timeout, length = request.arg("session_timeout"), request.arg("password_length")
        if timeout in data.SESSION_TIMEOUTS and length in data.PASSWORD_LENGTHS:
            state["security"].update(session_timeout=timeout, password_length=length)
            audit(state, "security.updated", "Security policy", f"Sessions {timeout}, passwords {length}+")
            state["flash"] = "Session and password policy saved."
        return redirect(url("/security"))

    @routes("GET", "/notifications")
    def notifications(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.notifications_page(state))

    @routes("POST", "/notifications")
    def save_notifications(self, request: Request, state: dict[str, Any]) -> Response:
        prefs = state["notifications"]
        events = {key: request.arg(f"ev_{key}", "on" if prefs["events"][key] else "off") == "on"
                  for key in data.NOTIFICATION_EVENTS}
        frequency = request.arg("frequency")
        if frequency in data.FREQUENCIES:
            prefs["frequency"] = frequency
        prefs["events"] = events
        audit(state, "notifications.updated", "Notification preferences", f"Delivery {prefs['frequency']}")
        state["flash"] = "Notification preferences saved."
        return redirect(url("/notifications"))

    @routes("GET", "/billing")
    def billing(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.billing_page(state))

    @routes("POST", "/billing/contact")
    def save_billing(self, request: Request, state: dict[str, Any]) -> Response:
        email = request.arg("billing_email").strip()
        if email_error(email):
            return html_response(views_settings.billing_page(state, {"billing_email": email_error(email)},
                                                              {"billing_email": email}), 422)
        state["billing"]["billing_email"] = email
        audit(state, "billing.updated", "Billing contact", email)
        state["flash"] = "Billing contact saved."
        return redirect(url("/billing"))

    # ---- API keys and audit ----------------------------------------------------------------

    @routes("GET", "/api-keys")
    def api_keys(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.api_keys_page(state))

    @routes("POST", "/api-keys")
    def create_key(self, request: Request, state: dict[str, Any]) -> Response:
        name = request.arg("name").strip()
        scopes = [s for s in data.SCOPES if s in _multi(request, "scopes")]
        expiry = request.arg("expiry")
        errors = {}
        if not name:
            errors["name"] = "Give the key a name."
        elif any(k["name"].lower() == name.lower() and k["status"] == "Active" for k in state["api_keys"]):
            errors["name"] = "An active key already has this name."
        if not scopes:
            errors["scopes"] = "Choose at least one scope."
        if expiry not in data.EXPIRIES:
            errors["expiry"] = "Choose when the key expires."
        if errors:
            values = {"name": name, "scopes": scopes, "expiry": expiry}
            return html_response(views_settings.api_keys_page(state, values, errors), 422)
        key_id = max(k["id"] for k in state["api_keys"]) + 1
        days = data.EXPIRY_DAYS[expiry]
        secret = f"sk_{state['clock'] * 7919 + key_id * 104729:08x}"
        state["api_keys"].append({"id": key_id, "name": name, "scopes": scopes, "created": state["today"],
                                  "expires": data.day(-days) if days else None, "last_used": None,
                                  "status": "Active", "created_by": owner(state)["name"], "prefix": secret[:11]})
        audit(state, "apikey.created", name, ", ".join(scopes))
        state["flash"] = f"Key “{name}” created. Copy it now, it will not be shown again: {secret}"
        return redirect(url("/api-keys"))

    @routes("POST", "/api-keys/{key_id:int}/revoke")
    def revoke_key(self, request: Request, state: dict[str, Any], key_id: int) -> Response:
        key = next((k for k in state["api_keys"] if k["id"] == key_id and k["status"] == "Active"), None)
        if key is None:
            return not_found("API key")
        key["status"] = "Revoked"
        audit(state, "apikey.revoked", key["name"])
        state["flash"] = f"Key “{key['name']}” revoked."
        return redirect(url("/api-keys"))

    @routes("GET", "/audit")
    def audit_log(self, request: Request, state: dict[str, Any]) -> Response:
        return html_response(views_settings.audit_page(state, request.query))


def _find(state: dict[str, Any], uid: int) -> dict[str, Any] | None:
    return next((u for u in state["users"] if u["id"] == uid), None)


def _multi(request: Request, name: str) -> list[str]:
    """Every value of a repeated form field (checkboxes), which `Request.form` keeps once."""
    return parse_qs(request.raw_body.decode(errors="replace")).get(name, [])


def _switch_route(key: str) -> Callable[..., Response]:
    return lambda app, request, state: app.security_switch(request, state, key)


for _key in data.SECURITY_SWITCHES:  # one route per known switch: any other is a 404
    routes.add("POST", f"/api/security/{_key}", _switch_route(_key))
