"""Admin console task templates, easy: one section, one change or one fact (2-5 steps)."""

from __future__ import annotations

from gui_gym.suites.localweb.answers import answer_matches
from gui_gym.suites.localweb.apps.admin.base import AdminTemplate, admin, confirm, open_section, visited
from gui_gym.suites.localweb.apps.admin.data import ROLES, SECURITY_SWITCHES, money
from gui_gym.suites.localweb.apps.admin.views_users import filtered_users, list_query, list_view


class SecurityToggle(AdminTemplate):
    template_id = "admin.security-toggle"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world, rng):
        key = rng.choice(sorted(SECURITY_SWITCHES))
        return {"setting": key, "label": SECURITY_SWITCHES[key][0], "on": not admin(world)["security"][key]}

    def prepare(self, world):
        self.before = dict(admin(world)["security"])

    @property
    def instruction(self):
        return f"In the Security settings, turn {'on' if self.params['on'] else 'off'} “{self.params['label']}”."

    def _done(self, world):
        return admin(world)["security"][self.params["setting"]] == self.params["on"]

    def evaluate(self, world, answer):
        sec = admin(world)["security"]
        return float(self._done(world) and all(sec[k] == v for k, v in self.before.items() if k != self.params["setting"]))

    def milestones(self):
        return [("Opened the Security settings", visited("/security")),
                (f"Turned {'on' if self.params['on'] else 'off'} {self.params['label']}", self._done)]

    def oracle(self, ui):
        yield from open_section(ui, "security")
        yield from ui.click(f"button[data-switch='{self.params['setting']}']")

    def expert_plan(self):
        return ["Open the Security tab", f"Click the switch next to “{self.params['label']}” so it reads "
                f"{'on' if self.params['on'] else 'off'}"]


class UserRole(AdminTemplate):
    template_id = "admin.user-role"
    difficulty = "easy"
    start_path = "/users"
    answer_required = True

    def sample_params(self, world, rng):
        later_pages = filtered_users(admin(world), {})[10:]
        user = rng.choice([u for u in later_pages if u["role"] != "Owner"])
        return {"user_id": user["id"], "name": user["name"], "role": user["role"]}

    @property
    def instruction(self):
        return f"What role does {self.params['name']} have in the organization? Answer with the role's name."

    def evaluate(self, world, answer):
        return float(answer_matches(answer, self.params["role"], candidates=(*ROLES, "Owner")))

    def _found(self, world):
        """The member's row was on a member-list page the agent loaded (by a search, a filter
        or paging), or their own page was opened: a search that matches them but shows other
        members ("e") finds nobody."""
        state, uid = admin(world), self.params["user_id"]
        return visited(f"/users/{uid}")(world) or any(
            e["method"] == "GET" and e["path"].rstrip("/") == "/users"
            and any(u["id"] == uid for u in list_view(state, list_query(e["query"]))[1]) for e in state["log"])

    def milestones(self):
        return [(f"Found {self.params['name']} in the member list", self._found)]

    def oracle(self, ui):
        yield from ui.type_into("input[name=q]", self.params["name"])
        yield ui.press("enter")
        yield ui.answer(self.params["role"])

    def expert_plan(self):
        return [f"Type “{self.params['name']}” in the member search box and press Enter",
                "Read the Role column of their row", "Answer with that role"]

    def sample_questions(self, world):
        rows = [u for u in filtered_users(admin(world), {})[:10] if u["role"] != "Owner"][:3]
        return [{"question": f"What role does {u['name']} have?", "answer": u["role"],
                 "distractors": [r for r in ROLES if r != u["role"]]} for u in rows]


class RevokeKey(AdminTemplate):
    template_id = "admin.revoke-key"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world, rng):
        key = rng.choice([k for k in admin(world)["api_keys"] if k["status"] == "Active"])
        return {"key_id": key["id"], "name": key["name"]}

    def prepare(self, world):
        self.before = {k["id"]: k["status"] for k in admin(world)["api_keys"]}

    @property
    def instruction(self):
        return f"Revoke the API key named “{self.params['name']}”."

    def _revoked(self, world):
        return any(k["id"] == self.params["key_id"] and k["status"] == "Revoked" for k in admin(world)["api_keys"])

    def evaluate(self, world, answer):
        keys = admin(world)["api_keys"]
        return float(self._revoked(world) and all(k["status"] == self.before.get(k["id"], "Active") for k in keys
                                                  if k["id"] != self.params["key_id"]))

    def milestones(self):
        return [("Opened the API keys section", visited("/api-keys")), (f"Revoked {self.params['name']}", self._revoked)]

    def oracle(self, ui):
        yield from open_section(ui, "api-keys")
        yield from confirm(ui, f"button[data-key-id='{self.params['key_id']}']", f"revoke-{self.params['key_id']}")

    def expert_plan(self):
        return ["Open the API keys tab", f"Press Revoke on the “{self.params['name']}” row", "Confirm in the dialog"]


class InvoiceAmount(AdminTemplate):
    template_id = "admin.invoice-amount"
    difficulty = "easy"
    answer_required = True

    def sample_params(self, world, rng):
        invoice = rng.choice(admin(world)["billing"]["invoices"])
        return {"period": invoice["period"], "amount": money(invoice["amount"])}

    @property
    def instruction(self):
        return f"How much was the organization's invoice for {self.params['period']}? Answer with the amount."

    def evaluate(self, world, answer):
        return float(answer_matches(answer, self.params["amount"], question=self.instruction))

    def milestones(self):
        return [("Opened the Billing section", visited("/billing"))]

    def oracle(self, ui):
        yield from open_section(ui, "billing")
        yield from ui.click("#tab-invoices")
        yield ui.answer(self.params["amount"])

    def expert_plan(self):
        return ["Open the Billing tab", "Switch to the Invoices view",
                f"Read the amount on the {self.params['period']} row and answer it"]
