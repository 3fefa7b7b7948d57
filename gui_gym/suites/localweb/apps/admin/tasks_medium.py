"""Admin console task templates, medium: a form or a dialog of several fields (6-12 steps)."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.admin.base import (AdminTemplate, admin, audited, create_key, free_key_name,
                                                     key_named, open_section, others_unchanged, snapshot, visited)
from gui_gym.suites.localweb.apps.admin.data import (EXPIRIES, EXPIRY_DAYS, FIRST_NAMES, FREQUENCIES, LAST_NAMES,
                                                     NOTIFICATION_EVENTS, ORGS, ROLES, SCOPES, TEAMS, TIMEZONES, day)
from gui_gym.suites.localweb.templates import OnScreen


class InviteUser(AdminTemplate):
    template_id = "admin.invite-user"
    difficulty = "medium"

    def sample_params(self, world, rng):
        state = admin(world)
        taken = {u["email"] for u in state["users"]}
        emails = [f"{first}.{last}@{state['org']['domain']}".lower()
                  for first in FIRST_NAMES[:12] for last in LAST_NAMES[-12:]]
        return {"email": rng.choice([e for e in emails if e not in taken]), "role": rng.choice(ROLES),
                "team": rng.choice(TEAMS)}

    def prepare(self, world):
        self.before = snapshot(world)

    @property
    def instruction(self):
        p = self.params
        return f"Invite {p['email']} to the organization as a member of the {p['team']} team with the {p['role']} role."

    def _invited(self, world):
        return next((u for u in admin(world)["users"] if u["email"] == self.params["email"]), None)

    def _right(self, world):
        user = self._invited(world)
        return bool(user and user["role"] == self.params["role"] and user["team"] == self.params["team"]
                    and user["status"] == "Invited")

    def evaluate(self, world, answer):
        user = self._invited(world)
        return float(self._right(world) and others_unchanged(world, self.before, {user["id"]}))

    def _form_holds(self, *fields):
        """The invite dialog is open and its `fields` hold this task's values (the role and
        team selects may hold them from the start: each check includes the fields before it)."""
        wanted = {"email": self.params["email"], "role": self.params["role"], "team": self.params["team"]}
        return OnScreen(lambda ui: ui.exists("#invite-dialog[open]") and all(
            ui.value(f"#invite-dialog #{name}") == wanted[name] for name in fields))

    def milestones(self):
        p = self.params
        return [("Opened the Users section", visited("/users")),
                ("Opened the invite dialog", self._form_holds()),
                (f"Entered {p['email']} as the address", self._form_holds("email")),
                (f"Chose the {p['role']} role", self._form_holds("email", "role")),
                (f"Chose the {p['team']} team", self._form_holds("email", "role", "team")),
                (f"Invited {p['email']}", lambda w: self._invited(w) is not None),
                (f"The invitation is for {p['role']} in {p['team']}", self._right)]

    def oracle(self, ui):
        yield from open_section(ui, "users")
        yield from ui.click("[data-dialog-open='#invite-dialog']")
        yield from ui.type_into("#invite-dialog #email", self.params["email"])
        yield from ui.type_ahead("#invite-dialog #role", self.params["role"])
        yield from ui.type_ahead("#invite-dialog #team", self.params["team"])
        yield from ui.click("#invite-dialog button[type=submit]")

    def expert_plan(self):
        p = self.params
        return ["Open the Users tab", "Press Invite user", f"Enter {p['email']} as the email address",
                f"Choose the {p['role']} role", f"Choose the {p['team']} team", "Press Send invite"]


class OrgProfile(AdminTemplate):
    template_id = "admin.org-profile"
    difficulty = "medium"
    start_page_questions = True

    def sample_params(self, world, rng):
        org = admin(world)["org"]
        base = rng.choice([name for name, _ in ORGS if name != org["name"]])
        name = f"{base} {rng.choice(('Group', 'Inc.', 'Collective', 'Partners'))}"
        return {"name": name, "support_email": f"{rng.choice(('support', 'helpdesk', 'care'))}@{org['domain']}",
                "timezone": rng.choice([t for t in TIMEZONES if t != org["timezone"]])}

    @property
    def instruction(self):
        p = self.params
        return (f"Rename the organization to “{p['name']}”, set its support email to {p['support_email']} "
                f"and its time zone to {p['timezone']}.")

    def _named(self, world):
        org = admin(world)["org"]
        return org["name"] == self.params["name"] and org["support_email"] == self.params["support_email"]

    def evaluate(self, world, answer):
        return float(self._named(world) and admin(world)["org"]["timezone"] == self.params["timezone"])

    def milestones(self):
        return [("Saved the organization profile", audited("settings.updated")),
                ("Name and support email updated", self._named),
                (f"Time zone set to {self.params['timezone']}", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        yield from ui.type_into("#name", self.params["name"], clear=True)
        yield from ui.type_into("#support_email", self.params["support_email"], clear=True)
        yield from ui.type_ahead("#timezone", self.params["timezone"])
        yield from ui.click("form button[type=submit]")

    def expert_plan(self):
        p = self.params
        return [f"Replace the organization name with “{p['name']}”", f"Replace the support email with {p['support_email']}",
                f"Choose {p['timezone']} as the time zone", "Press Save changes"]


class NotificationPolicy(AdminTemplate):
    template_id = "admin.notification-policy"
    difficulty = "medium"

    def sample_params(self, world, rng):
        prefs = admin(world)["notifications"]
        *on, off = rng.sample(sorted(NOTIFICATION_EVENTS), 3)
        return {"on": on, "off": off, "frequency": rng.choice([f for f in FREQUENCIES if f != prefs["frequency"]])}

    def prepare(self, world):
        events = admin(world)["notifications"]["events"]
        for key in self.params["on"]:
            events[key] = False
        events[self.params["off"]] = True
        self.before = dict(events)

    @property
    def instruction(self):
        labels = [NOTIFICATION_EVENTS[k][0] for k in self.params["on"]]
        return (f"Change the notification settings: turn on “{labels[0]}” and “{labels[1]}”, turn off "
                f"“{NOTIFICATION_EVENTS[self.params['off']][0]}”, and set the delivery frequency to "
                f"{self.params['frequency']}. Leave the other events as they are.")

    def _events_right(self, world):
        want = {**self.before, **{k: True for k in self.params["on"]}, self.params["off"]: False}
        return admin(world)["notifications"]["events"] == want

    def evaluate(self, world, answer):
        return float(self._events_right(world) and admin(world)["notifications"]["frequency"] == self.params["frequency"])

    def milestones(self):
        return [("Opened the notification settings", visited("/notifications")),
                ("Saved the three event changes", self._events_right),
                (f"Delivery set to {self.params['frequency']}", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        yield from open_section(ui, "notifications")
        for key in (*self.params["on"], self.params["off"]):
            yield from ui.click(f"button[data-event='{key}']")
        yield from ui.type_ahead("#frequency", self.params["frequency"])
        yield from ui.click("form.notifications button[type=submit]")

    def expert_plan(self):
        names = [NOTIFICATION_EVENTS[k][0] for k in (*self.params["on"], self.params["off"])]
        return ["Open the Notifications tab", *(f"Flip the “{n}” switch" for n in names),
                f"Choose {self.params['frequency']} as the delivery frequency", "Press Save preferences"]


class CreateApiKey(AdminTemplate):
    template_id = "admin.create-api-key"
    difficulty = "medium"

    def sample_params(self, world, rng):
        scopes = sorted(rng.sample(SCOPES, rng.randint(2, 3)), key=SCOPES.index)
        return {"name": free_key_name(world, rng), "scopes": scopes,
                "expiry": rng.choice([e for e in EXPIRIES if e != "90 days"])}

    @property
    def instruction(self):
        p = self.params
        return (f"Create an API key named “{p['name']}” with exactly the scopes {', '.join(p['scopes'])}, "
                f"expiring after {p['expiry'].lower()}." if p["expiry"] != "No expiry" else
                f"Create an API key named “{p['name']}” with exactly the scopes {', '.join(p['scopes'])} and no expiry date.")

    def _scoped(self, world):
        key = key_named(world, self.params["name"])
        return bool(key and key["scopes"] == self.params["scopes"])

    def evaluate(self, world, answer):
        key = key_named(world, self.params["name"])
        days = EXPIRY_DAYS[self.params["expiry"]]
        return float(self._scoped(world) and key["expires"] == (day(-days) if days else None))

    def milestones(self):
        return [("Opened the API keys section", visited("/api-keys")),
                (f"Created the key “{self.params['name']}”", lambda w: key_named(w, self.params["name"]) is not None),
                ("The key has exactly the requested scopes", self._scoped),
                (f"The key expires after {self.params['expiry']}", lambda w: self.evaluate(w, None) == 1.0)]

    def oracle(self, ui):
        yield from open_section(ui, "api-keys")
        yield from create_key(ui, self.params["name"], self.params["scopes"], self.params["expiry"])

    def expert_plan(self):
        p = self.params
        return ["Open the API keys tab", "Press Create API key", f"Name it “{p['name']}”",
                f"Tick the scopes {', '.join(p['scopes'])}", f"Choose {p['expiry']} as the expiry", "Press Create key"]
