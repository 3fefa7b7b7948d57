"""Admin console task templates, hard: multi-section flows of 13 to 30 steps (filter and sort
the member list, act on several members, investigate the audit log, change settings)."""

from __future__ import annotations

from typing import Any

from gui_gym.suites.localweb.apps.admin.base import (AdminTemplate, admin, audited, confirm, create_key, free_key_name,
                                                     key_named, open_section, open_user, others_unchanged, snapshot,
                                                     user_by_id, visited)
from gui_gym.suites.localweb.apps.admin.data import PAGE_SIZE, ROLES, SCOPES, SECURITY_SWITCHES, TEAMS, day, pretty_date
from gui_gym.suites.localweb.templates import World

STALE_CUTOFF_DAYS = 60


def _status(world: World, uid: int) -> str | None:
    user = user_by_id(world, uid)
    return user["status"] if user else None


class StaleTeamCleanup(AdminTemplate):
    """Deactivate every active member of a team who has not signed in since a date (the team
    may span list pages), then issue an API key for the follow-up review."""

    template_id = "admin.stale-team-cleanup"
    difficulty = "hard"

    def sample_params(self, world, rng):
        users, count = admin(world)["users"], rng.choice((2, 3))

        def fits(team: str) -> bool:
            # enough active members to choose from, and every never/long-ago sign-in of the
            # team on the first page once sorted by last sign-in
            active = sum(u["team"] == team and u["status"] == "Active" and u["role"] != "Owner" for u in users)
            inactive = sum(u["team"] == team and u["status"] != "Active" for u in users)
            return active >= count + 3 and inactive + count <= PAGE_SIZE
        team = rng.choice([t for t in TEAMS if fits(t)])
        members = [u for u in users if u["team"] == team and u["status"] == "Active" and u["role"] != "Owner"]
        stale = rng.sample(members, count)
        owners = [u for u in users if u["team"] == team and u["role"] == "Owner"]  # signed in lately: not a candidate
        logins = {str(u["id"]): day(STALE_CUTOFF_DAYS + 5 + rng.randrange(120)) if u in stale else
                  day(rng.randrange(STALE_CUTOFF_DAYS - 1)) for u in members + owners}
        scopes = sorted(rng.sample(SCOPES, 2), key=SCOPES.index)
        return {"team": team, "since": day(STALE_CUTOFF_DAYS), "stale": sorted(u["id"] for u in stale),
                "logins": logins, "key": free_key_name(world, rng), "scopes": scopes}

    def prepare(self, world):
        for uid, login in self.params["logins"].items():
            user_by_id(world, int(uid))["last_login"] = login
        self.before = snapshot(world)

    @property
    def instruction(self):
        p = self.params
        return (f"Deactivate every active member of the {p['team']} team who has not signed in since "
                f"{pretty_date(p['since'])} (the team may span several pages of the member list). Then create an "
                f"API key named “{p['key']}” with exactly the scopes {' and '.join(p['scopes'])}.")

    def _deactivated(self, world, count: int) -> bool:
        return sum(_status(world, uid) == "Deactivated" for uid in self.params["stale"]) >= count

    def _key_right(self, world):
        key = key_named(world, self.params["key"])
        return bool(key and key["scopes"] == self.params["scopes"])

    def evaluate(self, world, answer):
        return float(self._deactivated(world, len(self.params["stale"])) and self._key_right(world)
                     and others_unchanged(world, self.before, set(self.params["stale"])))

    def milestones(self):
        p = self.params
        return [(f"Listed the {p['team']} team's members", visited("/users", team=p["team"])),
                ("Deactivated one of the inactive members", lambda w: self._deactivated(w, 1)),
                ("Deactivated every inactive member", lambda w: self._deactivated(w, len(p["stale"]))),
                (f"Created the API key “{p['key']}”", lambda w: key_named(w, p["key"]) is not None),
                ("The key has exactly the requested scopes", self._key_right)]

    def oracle(self, ui):
        p = self.params
        yield from open_section(ui, "users")
        yield from ui.type_ahead("select[name=team]", p["team"])
        yield from ui.click("form.filters button[type=submit]")
        yield from ui.click("a.sort[data-sort='last_login']")
        stale = sorted(p["stale"], key=lambda uid: p["logins"][str(uid)])
        for index, uid in enumerate(stale):
            yield from ui.click(f"a.user-link[data-user-id='{uid}']")
            yield from confirm(ui, "[data-dialog-open='#status-dialog']", "status-dialog")
            if index < len(stale) - 1:
                yield from ui.click("a.back")
        yield from open_section(ui, "api-keys")
        yield from create_key(ui, p["key"], p["scopes"])

    def expert_plan(self):
        p = self.params
        return [f"Open the Users tab and filter the list to the {p['team']} team",
                "Sort by Last sign-in so the oldest sign-ins come first",
                f"For each Active member whose last sign-in is before {pretty_date(p['since'])}: open them, "
                "press Deactivate user and confirm, then go back to the list",
                f"Open the API keys tab, press Create API key, name it “{p['key']}”",
                f"Tick only {' and '.join(p['scopes'])} and press Create key"]


class AuditInvestigation(AdminTemplate):
    """Find in the audit log who revoked a key, then lock that admin out."""

    template_id = "admin.audit-investigation"
    difficulty = "hard"

    def sample_params(self, world, rng):
        state = admin(world)
        culprit = rng.choice([u for u in state["users"] if u["role"] == "Admin" and u["status"] == "Active"])
        key = rng.choice([k for k in state["api_keys"] if k["status"] == "Active"])
        stamp = f"{day(rng.randrange(2, 12))} {rng.randrange(19, 23)}:{rng.randrange(60):02d}"
        return {"user_id": culprit["id"], "name": culprit["name"], "key_id": key["id"], "key": key["name"], "ts": stamp}

    def prepare(self, world):
        state = admin(world)
        next(k for k in state["api_keys"] if k["id"] == self.params["key_id"])["status"] = "Revoked"
        state["audit"].append({"id": len(state["audit"]) + 1, "ts": self.params["ts"], "actor": self.params["name"],
                               "action": "apikey.revoked", "target": self.params["key"], "detail": ""})
        state["audit"].sort(key=lambda e: e["ts"], reverse=True)
        self.before = snapshot(world)

    @property
    def instruction(self):
        return (f"The API key “{self.params['key']}” was revoked without approval. Use the audit log to find "
                "which member revoked it, then reset that member's password and deactivate their account.")

    def _user(self, world):
        return user_by_id(world, self.params["user_id"]) or {}

    def evaluate(self, world, answer):
        user = self._user(world)
        return float(user.get("password_reset") is True and user.get("status") == "Deactivated"
                     and others_unchanged(world, self.before, {self.params["user_id"]}))

    def milestones(self):
        uid = self.params["user_id"]
        return [("Looked up key revocations in the audit log", visited("/audit", action="apikey.revoked")),
                (f"Opened {self.params['name']}'s page", visited(f"/users/{uid}")),
                (f"Reset {self.params['name']}'s password", lambda w: self._user(w).get("password_reset") is True),
                (f"Deactivated {self.params['name']}", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        yield from open_section(ui, "audit")
        yield from ui.type_ahead("select[name=action]", "API key revoked")
        yield from ui.click("form.filters button[type=submit]")
        yield from open_section(ui, "users")
        yield from open_user(ui, {"id": self.params["user_id"], "name": self.params["name"]})
        yield from confirm(ui, "[data-dialog-open='#reset-dialog']", "reset-dialog")
        yield from confirm(ui, "[data-dialog-open='#status-dialog']", "status-dialog")

    def expert_plan(self):
        return ["Open the Audit log tab", "Filter the action to “API key revoked” and apply",
                f"Read who revoked “{self.params['key']}”", "Open the Users tab and search for that member",
                "Open their page, press Reset password and confirm", "Press Deactivate user and confirm"]


class AccessReshuffle(AdminTemplate):
    """Promote one member, demote another, deactivate a third and tighten a security switch."""

    template_id = "admin.access-reshuffle"
    difficulty = "hard"

    def sample_params(self, world, rng):
        state = admin(world)
        active = [u for u in state["users"] if u["status"] == "Active" and u["role"] != "Owner"]
        promote = rng.choice([u for u in active if u["role"] != "Admin"])
        demote = rng.choice([u for u in active if u["role"] == "Admin" and u is not promote])
        leaver = rng.choice([u for u in active if u not in (promote, demote)])
        setting = rng.choice(("two_factor", "ip_allowlist", "device_alerts"))
        return {"promote": _brief(promote), "demote": _brief(demote), "leaver": _brief(leaver),
                "new_role": rng.choice([r for r in ROLES if r not in ("Admin",)]), "setting": setting}

    def prepare(self, world):
        admin(world)["security"][self.params["setting"]] = False
        self.before = snapshot(world)

    @property
    def instruction(self):
        p = self.params
        label = SECURITY_SWITCHES[p["setting"]][0]
        return (f"Make {p['promote']['name']} an Admin, change {p['demote']['name']}'s role to {p['new_role']}, "
                f"deactivate {p['leaver']['name']}, and turn on “{label}” in the Security settings.")

    def _role(self, world, who: str, role: str) -> bool:
        user = user_by_id(world, self.params[who]["id"])
        return bool(user and user["role"] == role)

    def evaluate(self, world, answer):
        p = self.params
        touched = {p["promote"]["id"], p["demote"]["id"], p["leaver"]["id"]}
        leaver = user_by_id(world, p["leaver"]["id"]) or {}
        return float(self._role(world, "promote", "Admin") and self._role(world, "demote", p["new_role"])
                     and leaver.get("status") == "Deactivated" and admin(world)["security"][p["setting"]]
                     and others_unchanged(world, self.before, touched))

    def milestones(self):
        p = self.params
        return [(f"{p['promote']['name']} is an Admin", lambda w: self._role(w, "promote", "Admin")),
                (f"{p['demote']['name']} is a {p['new_role']}", lambda w: self._role(w, "demote", p["new_role"])),
                (f"Deactivated {p['leaver']['name']}", audited("user.deactivated", p["leaver"]["name"])),
                ("Tightened the security setting", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        p = self.params
        for who, role in (("promote", "Admin"), ("demote", p["new_role"])):
            yield from open_section(ui, "users")
            yield from open_user(ui, p[who])
            yield from ui.type_ahead("#role", role)
            yield from ui.click("form.profile button[type=submit]")
        yield from open_section(ui, "users")
        yield from open_user(ui, p["leaver"])
        yield from confirm(ui, "[data-dialog-open='#status-dialog']", "status-dialog")
        yield from open_section(ui, "security")
        yield from ui.click(f"button[data-switch='{p['setting']}']")

    def expert_plan(self):
        p = self.params
        return [f"Open the Users tab, search for {p['promote']['name']}, open them, set the role to Admin and save",
                f"Back in Users, open {p['demote']['name']}, set the role to {p['new_role']} and save",
                f"Open {p['leaver']['name']}, press Deactivate user and confirm",
                f"Open the Security tab and switch on “{SECURITY_SWITCHES[p['setting']][0]}”"]


def _brief(user: dict[str, Any]) -> dict[str, Any]:
    return {"id": user["id"], "name": user["name"]}
