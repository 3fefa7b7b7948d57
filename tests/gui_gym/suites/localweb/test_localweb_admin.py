"""LocalWeb admin console: what is particular to it (the generic checks of every template are
in test_localweb_templates.py): well-posed prepared worlds, the console's validation, and its
widgets in the browser."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.actions import Action
from gui_gym.suites.localweb.apps import admin
from gui_gym.suites.localweb.apps.admin.views_users import filtered_users
from gui_gym.suites.localweb.framework import Request
from gui_gym.suites.localweb.suite import LocalWebSuite



@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/LocalWeb-v0", apps=["admin"], observe_screenshot=False)
    yield env
    env.close()


def test_stale_team_task_is_well_posed():
    suite = LocalWebSuite(["admin"])
    for seed in range(25):
        task = suite.make_task("admin.stale-team-cleanup", seed)
        p, users = task.template.params, task.world["admin"]["users"]
        stale = sorted(u["id"] for u in users if u["team"] == p["team"] and u["status"] == "Active"
                       and (u["last_login"] or "") < p["since"])
        assert stale == p["stale"], seed
        ordered = filtered_users(task.world["admin"], {"team": p["team"], "sort": "last_login"})
        assert {u["id"] for u in ordered[:10]} >= set(stale), "every candidate is on the first sorted page"


# ---- the console itself (no browser) --------------------------------------------------------

def call(state, method: str, path: str, query: dict | None = None, form: dict | None = None, raw: bytes = b""):
    return admin.APP.handle(Request(method, path, query or {}, form or {}, raw), state)


def test_invite_validates_email_duplicates_and_team():
    state = admin.APP.initial_state(0)
    count = len(state["users"])
    bad = call(state, "POST", "/users/invite", form={"email": "not-an-email", "role": "Viewer", "team": ""})
    assert bad.status == 422 and b"Enter a valid email address" in bad.body and b"Choose a team." in bad.body
    assert b"data-show-on-load" in bad.body  # the dialog opens again with the messages
    taken = state["users"][3]["email"]
    dup = call(state, "POST", "/users/invite", form={"email": taken.upper(), "role": "Editor", "team": "Sales"})
    assert dup.status == 422 and b"already a member" in dup.body and len(state["users"]) == count
    ok = call(state, "POST", "/users/invite", form={"email": "new.person@example.org", "role": "Admin", "team": "Sales"})
    assert ok.status == 303 and state["users"][-1]["status"] == "Invited" and state["users"][-1]["role"] == "Admin"
    assert state["audit"][0]["action"] == "user.invited" and state["audit"][0]["ts"].startswith(state["today"])


def test_delete_needs_the_exact_email_and_the_owner_is_protected():
    state = admin.APP.initial_state(1)
    victim = next(u for u in state["users"] if u["role"] != "Owner")
    wrong = call(state, "POST", f"/users/{victim['id']}/delete", form={"confirm": "someone@else.io"})
    assert wrong.status == 422 and any(u["id"] == victim["id"] for u in state["users"])
    assert call(state, "POST", f"/users/{victim['id']}/delete", form={"confirm": victim["email"]}).status == 303
    assert all(u["id"] != victim["id"] for u in state["users"])
    owner = next(u for u in state["users"] if u["role"] == "Owner")
    assert call(state, "POST", f"/users/{owner['id']}/status", form={"status": "Deactivated"}).status == 404
    assert owner["status"] == "Active"


def test_api_key_needs_a_name_and_a_scope():
    state = admin.APP.initial_state(2)
    keys = len(state["api_keys"])
    bad = call(state, "POST", "/api-keys", form={"name": "", "expiry": "30 days"}, raw=b"name=&expiry=30+days")
    assert bad.status == 422 and b"Give the key a name." in bad.body and b"Choose at least one scope." in bad.body
    raw = b"name=Exporter&scopes=audit%3Aread&scopes=users%3Aread&expiry=1+year"
    ok = call(state, "POST", "/api-keys", form={"name": "Exporter", "scopes": "users:read", "expiry": "1 year"}, raw=raw)
    assert ok.status == 303 and len(state["api_keys"]) == keys + 1
    assert state["api_keys"][-1]["scopes"] == ["users:read", "audit:read"]


def test_switch_api_takes_only_booleans():
    state = admin.APP.initial_state(0)
    assert call(state, "POST", "/api/security/two_factor", form={"value": "yes"}).status == 400
    response = call(state, "POST", "/api/security/two_factor", form={"value": not state["security"]["two_factor"]})
    assert response.status == 200 and json.loads(response.body)["ok"] is True


def test_user_list_sorts_filters_and_pages():
    state = admin.APP.initial_state(0)
    by_login = filtered_users(state, {"sort": "last_login"})
    assert by_login[0]["last_login"] is None  # never signed in counts as the oldest
    dated = [u["last_login"] for u in by_login if u["last_login"]]
    assert dated == sorted(dated)
    team = filtered_users(state, {"team": "Sales", "status": "Active"})
    assert team and all(u["team"] == "Sales" and u["status"] == "Active" for u in team)
    page_two = call(state, "GET", "/users", query={"page": "2"}).body.decode()
    assert "Showing 11–20 of" in page_two and "aria-current='page'>2<" in page_two
    assert call(state, "GET", "/users/9999").status == 404


def test_pages_escape_data():
    state = admin.APP.initial_state(0)
    state["users"][5]["name"] = "<script>alert(1)</script>"
    body = call(state, "GET", "/users", query={"q": "<script>"}).body
    assert b"<script>alert" not in body and b"&lt;script&gt;alert(1)&lt;/script&gt;" in body


# ---- widgets in the browser ---------------------------------------------------------------

def test_invite_dialog_reopens_with_errors(env):
    env.reset(seed=0, options={"task_id": "admin.invite-user", "instance_seed": 0})
    backend = env.unwrapped.backend
    for selector in (".admin-tabs a[data-section='users']", "[data-dialog-open='#invite-dialog']",
                     "#invite-dialog button[type=submit]"):
        x, y, w, h = backend.locate(selector)
        env.step(Action.click(x + w / 2, y + h / 2))
    assert backend.evaluate("() => document.querySelector('#invite-dialog').open") is True
    assert "valid email" in backend.evaluate("() => document.querySelector('#email-error').innerText")


def test_the_oracle_judge_credits_the_invite_form_before_anything_is_sent(env):
    """The invite dialog's steps change no world state; its on-screen milestones give PAGE's
    progress something to climb between "opened Users" and "invited" (and a closed dialog
    keeps the credit)."""
    from gui_gym.judges import OracleJudge
    from gui_gym.wrappers.progress import ProgressReward

    judged = ProgressReward(env, OracleJudge())
    judged.reset(seed=0, options={"task_id": "admin.invite-user", "instance_seed": 0})
    base = env.unwrapped
    email = base.task.template.params["email"]

    def click(selector):
        x, y, w, h = base.backend.locate(selector)
        return judged.step(Action.click(x + w / 2, y + h / 2))

    click(".admin-tabs a[data-section='users']")
    click("[data-dialog-open='#invite-dialog']")
    click("#invite-dialog #email")
    judged.step(Action.type(email))
    click("#invite-dialog button.secondary")  # Cancel: the dialog closes, nothing was sent
    *_, info = judged.step(Action.fail())
    role_by_default = base.task.template.params["role"] == "Viewer"  # the role select starts at Viewer
    assert info["progress_per_criterion"] == [1.0, 1.0, 1.0, float(role_by_default), 0.0, 0.0, 0.0]
    assert not info["success"] and base.backend.evaluate("() => document.querySelector('#invite-dialog').open") is False
