"""The admin templates' base (`AdminTemplate`), the oracle moves they share and what their
checks read.

Native ``<select>`` fields are set the way a keyboard user does it (`OracleUI.type_ahead`:
click, type the option's label, Enter), which costs the same three steps for every option, so
a template's oracle length does not depend on where the drawn option sits in the list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.admin import data
from gui_gym.suites.localweb.apps.admin.data import LANGUAGES, TIMEZONES
from gui_gym.suites.localweb.framework import log_has
from gui_gym.suites.localweb.templates import TaskTemplate, World

if TYPE_CHECKING:
    import random

    from gui_gym.suites.localweb.oracle_ui import OracleUI

Check = Callable[[World], bool]
KEY_NAMES = ("Access review", "Quarterly export", "Offboarding audit", "SIEM forwarder", "Payroll sync",
             "Status page", "Warehouse loader", "License checker")


# ---- what the oracles do ---------------------------------------------------------------------



def open_section(ui: "OracleUI", section: str) -> Iterator[Action]:
    yield from ui.click(f".admin-tabs a[data-section='{section}']")


def open_user(ui: "OracleUI", user: dict[str, Any]) -> Iterator[Action]:
    """From the Users section: search by name, then open the member's page."""
    yield from ui.type_into("input[name=q]", user["name"], clear=True)
    yield ui.press("enter")
    yield from ui.click(f"a.user-link[data-user-id='{user['id']}']")


def confirm(ui: "OracleUI", opener: str, dialog_id: str) -> Iterator[Action]:
    """Press the button that opens a confirm dialog, then the dialog's submit button."""
    yield from ui.click(opener)
    yield from ui.click(f"#{dialog_id} button[type=submit]")


def create_key(ui: "OracleUI", name: str, scopes: list[str], expiry: str | None = None) -> Iterator[Action]:
    """From the API keys section: fill and submit the create-key dialog."""
    yield from ui.click("[data-dialog-open='#create-key-dialog']")
    yield from ui.type_into("#key-name", name)
    for scope in scopes:
        yield from ui.click(f"input[data-scope='{scope}']")
    if expiry is not None:
        yield from ui.type_ahead("#expiry", expiry)
    yield from ui.click("#create-key-dialog button[type=submit]")


# ---- what the checks read ---------------------------------------------------------------------

def admin(world: World) -> dict[str, Any]:
    return world["admin"]


def visited(path: str, **query: str) -> Check:
    """A milestone: the agent loaded `path` (with these query values) at some point."""
    return lambda w: log_has(admin(w)["log"], path, **query)


def audited(action: str, target: str | None = None) -> Check:
    """A milestone: the agent did `action` (to `target`); the console stamps its own actions
    with today's date, which no generated history has."""
    return lambda w: any(e["ts"].startswith(admin(w)["today"]) and e["action"] == action
                         and target in (None, e["target"]) for e in admin(w)["audit"])


def user_by_id(world: World, uid: int) -> dict[str, Any] | None:
    return next((u for u in admin(world)["users"] if u["id"] == uid), None)


def snapshot(world: World) -> dict[int, tuple[Any, ...]]:
    """Who is who, before the agent acts: what collateral-damage checks compare against."""
    return {u["id"]: (u["name"], u["role"], u["team"], u["status"], u["password_reset"]) for u in admin(world)["users"]}


def others_unchanged(world: World, before: dict[int, tuple[Any, ...]], touched: set[int]) -> bool:
    now = snapshot(world)
    return all(now.get(uid) == facts for uid, facts in before.items() if uid not in touched) and \
        set(now) - set(before) <= touched


def key_named(world: World, name: str) -> dict[str, Any] | None:
    return next((k for k in admin(world)["api_keys"] if k["name"].lower() == name.lower() and k["status"] == "Active"), None)


def free_key_name(world: World, rng: "random.Random") -> str:
    taken = {k["name"] for k in admin(world)["api_keys"]}
    return rng.choice([n for n in KEY_NAMES if n not in taken])


def general_questions(world: World) -> list[dict[str, Any]]:
    """Facts on the General page, the start page of several templates."""
    org = admin(world)["org"]
    return [
        {"question": "What is the organization's default language?", "answer": org["language"],
         "distractors": [x for x in LANGUAGES if x != org["language"]][:3]},
        {"question": "Which time zone is the organization set to?", "answer": org["timezone"],
         "distractors": [x for x in TIMEZONES if x != org["timezone"]][:3]},
        {"question": "What is the organization's support email?", "answer": org["support_email"],
         "distractors": [f"{p}@{org['domain']}" for p in ("support", "admin", "contact")]},
    ]


class AdminTemplate(TaskTemplate):
    """What every admin template shares: the app, its seeded state, its start-page facts."""

    app = "admin"
    initial_state = staticmethod(data.initial_state)

    def app_questions(self, world: World) -> list[dict[str, Any]]:
        return general_questions(world)
