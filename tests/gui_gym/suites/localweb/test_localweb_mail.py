"""LocalWeb's mail app: what is particular to it (the generic checks of every template are in
test_localweb_templates.py): the world as a function of the seed, and the compose/label
validation and the mailbox store refusing bad input with clear messages."""

from __future__ import annotations

import re
from typing import Iterator
from urllib.request import Request, urlopen

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.mail import data, store
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.suite import LocalWebSuite



@pytest.fixture(scope="module")
def env():
    # A generous settle bound: on a loaded machine suggestions may take a while to arrive.
    env = gym.make("GUI/LocalWeb-v0", apps=["mail"], settle_timeout_s=10, observe_screenshot=False)
    yield env
    env.close()


def act(env, actions: Iterator[Action]) -> None:
    for action in actions:
        *_, info = env.step(action)
        assert info["action_error"] is None


def test_world_is_a_pure_function_of_the_seed():
    assert data.initial_state(7) == data.initial_state(7)
    assert data.initial_state(7)["messages"] != data.initial_state(8)["messages"]
    subjects = [m["subject"] for m in data.initial_state(7)["messages"]]
    assert len(subjects) == len(set(subjects))


def test_compose_refuses_a_bad_address_and_sends_nothing(env):
    env.reset(seed=0, options={"task_id": "mail.send-file", "instance_seed": 0})
    ui = OracleUI(env.unwrapped.backend)
    act(env, ui.click("#compose"))
    act(env, ui.type_into("#to-input", "bob@nowhere"))
    act(env, ui.type_into("#subject", "Hello"))
    act(env, ui.click("#send"))
    assert ui.text("#error-to") == "'bob@nowhere' is not a valid email address"
    world = env.unwrapped.task.world
    assert [m for m in world["mail"]["messages"] if m["date"] > "2026-03-02T09:00"] == []


def test_new_label_refuses_an_existing_name(env):
    env.reset(seed=0, options={"task_id": "mail.star", "instance_seed": 0})
    task = env.unwrapped.task
    ui = OracleUI(env.unwrapped.backend)
    act(env, ui.click(f".msg-row[data-id='{task.template.params['id']}'] .msg-link"))
    act(env, ui.click("#move-button"))
    act(env, ui.click("#new-label-item"))
    act(env, ui.type_into("#label-name", "finance"))
    act(env, ui.click("#label-create"))
    assert ui.text("#error-name") == "A folder or label called 'finance' already exists"
    assert task.world["mail"]["labels"] == ["Finance", "Projects", "Travel"]


def test_search_and_pagination_over_http():
    suite = LocalWebSuite(["mail"])
    suite.server.start()
    try:
        suite.install_world(suite.new_world(4))
        def rows(path: str) -> list[int]:
            page = urlopen(Request(f"{suite.url}/mail{path}", headers=suite.server.auth_headers), timeout=10).read().decode()
            return [int(i) for i in re.findall(r"class='msg-row[^']*' data-id='(\d+)'", page)]
        first, second = rows("/folder/inbox"), rows("/folder/inbox?page=2")
        assert len(first) == store.PAGE_SIZE and second and not set(first) & set(second)
        messages = suite.app_server.states["mail"]["messages"]
        project = next(m["meta"]["project"] for m in messages if "project" in m["meta"])
        expected = {m["id"] for m in messages if m["meta"].get("project") == project}
        assert set(rows(f"/search?q=project+{project}")) == expected and len(expected) >= 3
    finally:
        suite.close()


def test_store_validates_what_the_forms_send():
    state = data.initial_state(1)
    assert store.parse_address("Ana Lopez <Ana@Example.test>", "to") == "ana@example.test"
    with pytest.raises(store.MailError, match="'ana@' is not a valid email address"):
        store.parse_address("ana@", "cc")
    with pytest.raises(store.MailError, match="cannot move messages to 'label:Nope'"):
        store.move(state, state["messages"][:1], "label:Nope")
    with pytest.raises(store.MailError, match="Add at least one recipient"):
        store.compose(state, {"subject": "Hi"}, as_draft=False)
    with pytest.raises(store.MailError, match="attachments must be files from My files"):
        store.compose(state, {"to": ["a@b.test"], "subject": "Hi", "attachments": ["secret.key"]}, as_draft=False)
    draft = store.compose(state, {"subject": ""}, as_draft=True)
    assert draft["folder"] == "drafts" and draft["to"] == []
