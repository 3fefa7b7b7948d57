"""The admin console's world: an organisation, its members, keys, settings and history.

Everything is drawn from the episode seed with small vocabularies written here, so the same
seed is the same organisation. Dates are relative to a fixed `TODAY`, never the machine's
clock, so a task about "who has not signed in since March" means the same thing every run.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from gui_gym.suites.localweb.framework import seeded

TODAY = dt.date(2025, 6, 16)
"""The console's "today": seed-independent, so relative dates never drift."""

FIRST_NAMES = (
    "Amara", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
    "Kavya", "Leon", "Mira", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samir", "Tessa",
    "Umar", "Vera", "Wes", "Ximena", "Yusuf", "Zoe", "Anton", "Beatriz", "Caleb", "Daria",
    "Emil", "Fatima", "Gideon", "Hanna", "Ivan", "Julia", "Kenji", "Lucia", "Mateo", "Noor",
)
LAST_NAMES = (
    "Abbott", "Berg", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Hoffman", "Ito",
    "Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn",
    "Rossi", "Sato", "Tanaka", "Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zimmer", "Alvarez",
    "Brandt", "Costa", "Duarte", "Ekström", "Falk", "Gallo", "Haas", "Iqbal", "Jovanovic",
)
ORGS = (
    ("Northwind Labs", "northwind.io"), ("Bluefin Analytics", "bluefin.dev"),
    ("Copperleaf Studio", "copperleaf.co"), ("Harbor & Pine", "harborpine.com"),
    ("Lumen Robotics", "lumenrobotics.ai"), ("Quarry Health", "quarryhealth.org"),
)
ROLES = ("Admin", "Billing", "Editor", "Viewer")
"""Assignable roles (the one Owner is not assignable)."""
TEAMS = ("Design", "Engineering", "Finance", "Marketing", "Operations", "Sales", "Support")
STATUSES = ("Active", "Invited", "Deactivated")
LANGUAGES = ("English (US)", "English (UK)", "Deutsch", "Español", "Français", "Nederlands", "Português")
TIMEZONES = ("UTC", "America/Chicago", "America/Los_Angeles", "America/New_York", "Asia/Singapore",
             "Asia/Tokyo", "Australia/Sydney", "Europe/Berlin", "Europe/London", "Europe/Madrid")
SESSION_TIMEOUTS = ("1 hour", "8 hours", "24 hours", "7 days", "30 days")
PASSWORD_LENGTHS = ("8", "10", "12", "14", "16")
SECURITY_SWITCHES = {
    "two_factor": ("Require two-factor authentication", "Every member must set up an authenticator app at next sign-in."),
    "sso": ("Single sign-on (SAML)", "Members sign in through your identity provider."),
    "password_login": ("Allow password sign-in", "Members may sign in with email and password."),
    "ip_allowlist": ("Restrict access to IP allowlist", "Only requests from approved networks reach the console."),
    "device_alerts": ("Alert on new devices", "Email a member when their account signs in from a new device."),
    "public_sharing": ("Allow public links", "Members may share documents with anyone who has the link."),
}
SCOPES = ("users:read", "users:write", "billing:read", "billing:write", "audit:read", "settings:write")
EXPIRIES = ("30 days", "90 days", "1 year", "No expiry")
EXPIRY_DAYS = {"30 days": 30, "90 days": 90, "1 year": 365, "No expiry": None}
KEY_NAMES = ("CI deploy", "Data warehouse sync", "Zapier bridge", "Billing export", "Uptime monitor",
             "Backup job", "HR onboarding", "Slack bot", "Analytics pipeline", "Support desk sync")
NOTIFICATION_EVENTS = {
    "user_joined": ("New member joins", "Someone accepts an invitation."),
    "user_deactivated": ("Member deactivated", "An admin deactivates or deletes an account."),
    "role_changed": ("Role changed", "A member's role is changed."),
    "failed_signin": ("Failed sign-in attempts", "Five failed sign-ins in a row on one account."),
    "security_changed": ("Security settings changed", "Two-factor, SSO or allowlist settings change."),
    "key_created": ("API key created", "A new API key is issued."),
    "key_revoked": ("API key revoked", "An API key is revoked."),
    "invoice_issued": ("Invoice issued", "A new monthly invoice is available."),
    "payment_failed": ("Payment failed", "A card payment is declined."),
    "weekly_report": ("Weekly usage report", "A summary of seats and activity every Monday."),
}
FREQUENCIES = ("Instantly", "Hourly digest", "Daily digest", "Weekly digest")
AUDIT_ACTIONS = {
    "user.invited": "User invited", "user.role_changed": "Role changed", "user.updated": "Profile updated",
    "user.deactivated": "User deactivated", "user.reactivated": "User reactivated",
    "user.password_reset": "Password reset", "user.deleted": "User deleted",
    "apikey.created": "API key created", "apikey.revoked": "API key revoked",
    "settings.updated": "Settings updated", "security.updated": "Security updated",
    "notifications.updated": "Notifications updated", "billing.updated": "Billing updated",
}
SEAT_PRICE = 14.0
PAGE_SIZE = 10


def day(offset: int) -> str:
    """ISO date `offset` days before `TODAY`."""
    return (TODAY - dt.timedelta(days=offset)).isoformat()


def pretty_date(iso: str | None) -> str:
    """``2025-03-04`` -> ``Mar 4, 2025`` (as the pages print it); None -> ``Never``."""
    if not iso:
        return "Never"
    d = dt.date.fromisoformat(iso[:10])
    return f"{d:%b} {d.day}, {d.year}"


def money(amount: float) -> str:
    return f"${amount:,.2f}"


def initial_state(seed: int) -> dict[str, Any]:
    rng = seeded(seed, "admin")
    org_name, domain = rng.choice(ORGS)
    users = _users(rng, domain)
    admins = [u for u in users if u["role"] in ("Owner", "Admin") and u["status"] == "Active"]
    keys = _api_keys(rng, admins)
    return {
        "today": TODAY.isoformat(),
        "org": {"name": org_name, "domain": domain, "support_email": f"help@{domain}",
                "language": rng.choice(LANGUAGES[:3]), "timezone": rng.choice(TIMEZONES)},
        "security": {**{key: rng.random() < 0.4 for key in SECURITY_SWITCHES},
                     "session_timeout": rng.choice(SESSION_TIMEOUTS),
                     "password_length": rng.choice(PASSWORD_LENGTHS[:3])},
        "users": users,
        "api_keys": keys,
        "notifications": {"events": {key: rng.random() < 0.5 for key in NOTIFICATION_EVENTS},
                          "frequency": rng.choice(FREQUENCIES)},
        "billing": _billing(rng, org_name, domain, users),
        "audit": _audit(rng, users, keys),
        "clock": 0,
    }


def _users(rng: random.Random, domain: str) -> list[dict[str, Any]]:
    names = rng.sample([(first, last) for first in FIRST_NAMES for last in LAST_NAMES], 72)
    users = []
    for index, (first, last) in enumerate(names, start=1):
        roll = rng.random()
        status = "Active" if roll < 0.82 else "Invited" if roll < 0.88 else "Deactivated"
        role = "Owner" if index == 1 else rng.choices(ROLES, weights=(2, 1, 8, 6))[0]
        if index == 1:
            status = "Active"
        last_login = {"Active": day(rng.randrange(0, 150)), "Invited": None,
                      "Deactivated": day(rng.randrange(90, 400))}[status]
        users.append({
            "id": index, "name": f"{first} {last}", "email": f"{first}.{last}@{domain}".lower(),
            "role": role, "team": rng.choice(TEAMS), "status": status, "last_login": last_login,
            "joined": day(rng.randrange(160, 1400)), "password_reset": False,
        })
    return users


def _api_keys(rng: random.Random, admins: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = []
    for index, name in enumerate(rng.sample(KEY_NAMES, 6), start=1):
        created = rng.randrange(20, 400)
        expiry = rng.choice(EXPIRIES)
        days = EXPIRY_DAYS[expiry]
        keys.append({
            "id": index, "name": name, "scopes": sorted(rng.sample(SCOPES, rng.randint(1, 3)), key=SCOPES.index),
            "created": day(created), "expires": day(created - days) if days else None,
            "last_used": day(rng.randrange(0, min(created, 30))), "status": "Active",
            "created_by": rng.choice(admins)["name"], "prefix": f"sk_{rng.getrandbits(32):08x}",
        })
    keys[-1]["status"] = "Revoked"
    return keys


def _billing(rng: random.Random, org: str, domain: str, users: list[dict[str, Any]]) -> dict[str, Any]:
    seats = sum(u["status"] != "Deactivated" for u in users)
    invoices = []
    for months_back in range(1, 13):
        month = (TODAY.month - months_back - 1) % 12 + 1
        year = TODAY.year + (TODAY.month - months_back - 1) // 12
        billed = seats - rng.randrange(0, 12)
        amount = billed * SEAT_PRICE + rng.choice((0, 0, 49.0, 99.0)) + rng.randrange(0, 100) / 100
        invoices.append({"number": f"INV-{year}{month:02d}-{rng.randrange(1000, 9999)}",
                         "period": f"{dt.date(year, month, 1):%B} {year}", "amount": round(amount, 2),
                         "status": "Due" if months_back == 1 else rng.choice(("Paid",) * 9 + ("Refunded",))})
    return {"plan": "Business", "seats": seats + rng.randrange(3, 15), "billing_email": f"finance@{domain}",
            "company": org, "invoices": invoices}


def _audit(rng: random.Random, users: list[dict[str, Any]], keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    actors = [u["name"] for u in users if u["role"] in ("Owner", "Admin")]
    others = [u for u in users if u["role"] not in ("Owner",)]
    entries = []
    for _ in range(90):
        action = rng.choice(("user.invited", "user.role_changed", "user.updated", "user.deactivated",
                             "user.password_reset", "apikey.created", "settings.updated",
                             "security.updated", "notifications.updated", "billing.updated"))
        target = {"apikey.created": rng.choice(keys)["name"], "settings.updated": "Organization profile",
                  "security.updated": "Security policy", "notifications.updated": "Notification preferences",
                  "billing.updated": "Billing contact"}.get(action) or rng.choice(others)["name"]
        detail = f"Role set to {rng.choice(ROLES)}" if action == "user.role_changed" else ""
        stamp = f"{day(rng.randrange(1, 60))} {rng.randrange(7, 20):02d}:{rng.randrange(60):02d}"
        entries.append({"ts": stamp, "actor": rng.choice(actors), "action": action, "target": target, "detail": detail})
    revoked = keys[-1]
    entries.append({"ts": f"{day(rng.randrange(2, 15))} 16:{rng.randrange(60):02d}", "actor": rng.choice(actors),
                    "action": "apikey.revoked", "target": revoked["name"], "detail": ""})
    entries.sort(key=lambda e: e["ts"], reverse=True)
    for index, entry in enumerate(entries, start=1):
        entry["id"] = len(entries) - index + 1
    return entries
