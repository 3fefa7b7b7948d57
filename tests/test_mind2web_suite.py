"""`GUI/OnlineMind2Web-v0`: local mode on LocalWeb (the file's instruction, website and levels;
the oracle succeeds through env.step; a stale mapping is refused), live mode (no loopback
restriction, and a website this machine cannot reach fails reset at once, pointing at local
mode), and the arguments."""

from __future__ import annotations

import json
from urllib.error import HTTPError
from urllib.request import urlopen

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.envs.mind2web import make_env
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.mind2web.loader import file_sha256
from gui_gym.suites.mind2web.suite import LOCAL_TASK_FILE, TASKS_ENV_VAR, Mind2WebSuite, check_reachable

BUNDLED = json.loads(LOCAL_TASK_FILE.read_text())


def _task_file(tmp_path, tasks, name="tasks.json"):
    path = tmp_path / name
    path.write_text(json.dumps(tasks))
    return path


def test_local_mode_describes_the_bundled_tasks():
    suite = Mind2WebSuite("local", levels="easy")
    easy = [t for t in BUNDLED if t["level"] == "easy"]
    assert suite.task_ids == [t["task_id"] for t in easy] and easy
    first = easy[0]
    assert suite.describe(first["task_id"]) == {
        "task_id": first["task_id"], "website": first["website"], "level": "easy", "difficulty": "easy",
        "reference_length": first["reference_length"], "mode": "local", "evaluator": "env",
        "task_file_sha256": file_sha256(LOCAL_TASK_FILE), "domain": first["localweb"]["template"].split(".")[0],
        "app": first["localweb"]["template"].split(".")[0], "template": first["localweb"]["template"],
        "template_seed": first["localweb"]["seed"]}
    assert "Chromium" in suite.needs


def test_a_local_task_starts_at_its_website_and_the_oracle_solves_it():
    task = next(t for t in BUNDLED if t["localweb"]["template"] == "mail.star")
    env = gym.make("GUI/OnlineMind2Web-v0", mode="local", settle_timeout_s=10)  # generous on a loaded machine
    try:
        assert env.unwrapped.backend.config.allowed_hosts == frozenset()  # its LocalWeb server only
        obs, info = env.reset(seed=3, options={"task_id": task["task_id"]})
        assert obs["instruction"] == info["instruction"] == task["confirmed_task"]
        assert obs["url"].startswith("http://127.0.0.1:") and obs["url"].endswith(task["website"])
        with pytest.raises(HTTPError, match="403"):  # its server answers the env's own browser only
            urlopen(obs["url"], timeout=10)
        steps, done = 0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
            steps, done = steps + 1, terminated or truncated
        assert (reward, info["success"], steps - 1) == (1.0, True, task["reference_length"])
    finally:
        env.close()


@pytest.mark.slow
def test_local_mode_passes_gymnasiums_check_env():
    env = gym.make("GUI/OnlineMind2Web-v0", mode="local", levels="easy", render_mode="rgb_array")
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


def test_a_stale_local_mapping_is_refused(tmp_path):
    task = next(t for t in BUNDLED if t["localweb"]["template"] == "mail.star")
    path = _task_file(tmp_path, [{**task, "confirmed_task": "Star some other email."}])
    suite = Mind2WebSuite("local", path)
    with pytest.raises(TaskConfigError, match="now reads .* but the task file says 'Star some other email.'; "
                                              "regenerate the file"):
        suite.make_task(task["task_id"], 0)
    with pytest.raises(TaskConfigError, match="maps onto LocalWeb template 'mail.stars', which does not exist"):
        Mind2WebSuite("local", _task_file(tmp_path, [{**task, "localweb": {"template": "mail.stars", "seed": 1}}]))
    with pytest.raises(TaskConfigError, match=r"expected a field \"localweb\""):
        Mind2WebSuite("local", _task_file(tmp_path, [{**task, "localweb": {"template": "mail.star"}}]))
    with pytest.raises(TaskConfigError, match=r"needs 'website' to be the URL path of its LocalWeb app \(/mail/...\)"):
        Mind2WebSuite("local", _task_file(tmp_path, [{**task, "website": "https://mail.example.com/"}]))


LIVE = [{"task_id": "t-invalid", "website": "https://unresolvable.invalid/", "confirmed_task": "Find a bike.",
         "reference_length": 5, "level": "easy"},
        {"task_id": "t-noroute", "website": "http://192.0.2.1/", "confirmed_task": "Find a lamp.",
         "reference_length": 7, "level": "medium"}]


def test_live_mode_without_a_route_fails_reset_at_once_and_suggests_local_mode(tmp_path):
    env = gym.make("GUI/OnlineMind2Web-v0", mode="live", tasks=str(_task_file(tmp_path, LIVE)), probe_timeout_s=1.0)
    try:
        base = env.unwrapped
        assert base.backend.config.allowed_hosts is None
        assert base.suite.describe("t-noroute")["evaluator"] == "judge"
        with pytest.raises(MissingResourceError, match=r"cannot reach https://unresolvable.invalid/: the host "
                                                       r"'unresolvable.invalid' does not resolve .* use the bundled tasks "
                                                       r"on LocalWeb: .*mode=\"local\""):
            env.reset(options={"task_id": "t-invalid"})
        with pytest.raises(MissingResourceError, match=r"cannot reach http://192.0.2.1/: (cannot connect to 192.0.2.1:80|"
                                                       r"no answer from 192.0.2.1:80 within 1 s).*mode=\"local\""):
            env.reset(options={"task_id": "t-noroute"})
        assert not env.unwrapped.task.has_oracle
    finally:
        env.close()


def test_reachability_check_accepts_a_listening_loopback_server():
    from tests.fakes.chat_server import ChatServer

    with ChatServer() as server:
        check_reachable(server.base_url, 1.0)


def test_arguments_and_missing_resources(tmp_path, monkeypatch):
    monkeypatch.delenv(TASKS_ENV_VAR, raising=False)
    with pytest.raises(MissingResourceError, match=f"pass tasks=<path> or set \\${TASKS_ENV_VAR}"):
        Mind2WebSuite("live")
    monkeypatch.setenv(TASKS_ENV_VAR, str(_task_file(tmp_path, LIVE)))
    assert Mind2WebSuite("live").task_ids == ["t-invalid", "t-noroute"]
    with pytest.raises(TaskConfigError, match="live mode needs 'website' to be an http\\(s\\) URL, received '/shop/'"):
        Mind2WebSuite("live", _task_file(tmp_path, [{**LIVE[0], "website": "/shop/"}], "bad.json"))
    with pytest.raises(ValueError, match=r"mode must be one of \['local', 'live'\], received 'offline'"):
        Mind2WebSuite("offline")
    with pytest.raises(TaskConfigError, match="is pinned to 00"):
        make_env(pin="00")
    with pytest.raises(ValueError, match="judge= is for live mode"):
        make_env(judge={"model": "m", "base_url": "http://127.0.0.1:9/v1"})
    assert len(Mind2WebSuite("local", levels=["medium", "hard"]).task_ids) == sum(t["level"] != "easy" for t in BUNDLED)
