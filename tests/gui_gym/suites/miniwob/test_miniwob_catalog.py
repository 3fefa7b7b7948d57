"""The MiniWoB task set read from the installed package, its subsets, `tasks=` and the env's
configuration, without a browser: the page server and the env's spaces and errors."""

from __future__ import annotations

import gymnasium as gym
import httpx
import numpy as np
import pytest

import gui_gym  # noqa: F401
from gui_gym.benchmarks.commands.list_envs import describe_env
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.suites.miniwob import catalog, oracles
from gui_gym.suites.miniwob.suite import score_of, static_app


@pytest.fixture(scope="module")
def installed():
    return catalog.installed_tasks()


def test_every_registered_task_with_its_page_and_one_category(installed):
    import miniwob

    names = [s.name for s in installed]
    assert miniwob.__version__ == "1.1.0" and len(names) == 128 == len(set(names))
    registered = {i.removeprefix("miniwob/").removesuffix("-v1") for i in gym.registry if i.startswith("miniwob/")}
    assert set(names) == registered
    folder = catalog.html_dir()
    assert all((folder / s.page).is_file() for s in installed)
    assert next(s for s in installed if s.name == "flight.AA").page == "flight/AA/wrapper.html"
    assert next(s for s in installed if s.name == "click-test").page == "miniwob/click-test.html"
    # MiniWoB's categories partition the installed tasks: none is left unlisted, none listed twice
    assert sum(len(c) for c in catalog.CATEGORIES.values()) == 128
    assert {s.category for s in installed} == set(catalog.CATEGORIES)
    assert sum(s.nondeterministic for s in installed) == 25  # as the package registers them


def test_subsets(installed):
    def sub(name):
        return catalog.subset(name, installed, oracles.SOLUTIONS)

    assert len(sub("all")) == 128 and len(sub("browsergym")) == 125 and sub("flight") == ["flight.AA", "flight.Alaska", "flight.Alaska-auto"]
    assert len(sub("webgum")) == 56 and set(sub("webgum")) <= set(sub("browsergym"))
    assert {name: len(sub(name)) for name in catalog.CATEGORIES} == {
        "original": 77, "nodelay": 6, "additional": 12, "debug": 12, "flight": 3, "hidden-test": 18}
    assert sub("scripted") == sorted(oracles.SOLUTIONS) and set(catalog.SUBSET_HELP) >= {"all", "debug", "scripted"}


def test_tasks_option_takes_subsets_names_lists_and_says_what_it_cannot_read(installed):
    resolve = catalog.resolve_tasks
    assert len(resolve(None, installed)) == 128
    assert resolve("click-test", installed) == ["click-test"]
    assert resolve("click-test, debug", installed)[:2] == ["click-test", "choose-date-easy"]
    assert resolve(["flight", "flight.AA", "click-test"], installed) == ["flight.AA", "flight.Alaska", "flight.Alaska-auto", "click-test"]
    with pytest.raises(TaskConfigError, match=r"'click-tset' is neither a task .* did you mean \['click-test'"):
        resolve("click-tset", installed)
    with pytest.raises(TaskConfigError, match=r"did you mean \['debug'"):
        resolve(["debgu"], installed)
    with pytest.raises(TaskConfigError, match="expected task names or subset names, received 3"):
        resolve([3], installed)


def test_scores_from_the_raw_reward():
    assert [score_of(r, "positive") for r in (1.0, 0.25, 0.0, -1.0)] == [1.0, 1.0, 0.0, 0.0]
    assert [score_of(r, "perfect") for r in (1.0, 0.25, 0.0, -1.0)] == [1.0, 0.0, 0.0, 0.0]
    assert [score_of(r, "partial") for r in (1.0, 0.25, 0.0, -1.0)] == [1.0, 0.25, 0.0, 0.0]


def test_the_env_spaces_listing_and_bad_options():
    env = gym.make("GUI/MiniWoB-v0", tasks="debug")
    try:
        assert env.observation_space["screenshot"].shape == (210, 160, 3)  # MiniWoB's task area
        assert env.unwrapped.backend.config.viewport == (800, 600)
        assert env.unwrapped.suite.describe("click-test-transfer") == {
            "task_id": "click-test-transfer", "domain": "debug", "category": "debug", "webgum": False,
            "nondeterministic": False, "has_oracle": False}
    finally:
        env.close()
    env = gym.make("GUI/MiniWoB-v0", tasks="flight")
    try:
        assert env.observation_space["screenshot"].shape == (667, 375, 3)  # the flight searches' task area
        assert env.unwrapped.backend.config.viewport == (800, 800)
    finally:
        env.close()
    env = gym.make("GUI/MiniWoB-v0", tasks=["click-test", "flight.AA"])
    try:  # both: each task shows its own area, so screenshots come in both sizes
        space = env.observation_space["screenshot"]
        assert space.contains(np.zeros((210, 160, 3), np.uint8)) and space.contains(np.zeros((667, 375, 3), np.uint8))
        assert env.unwrapped.suite.screen_per_task
    finally:
        env.close()
    env = gym.make("GUI/MiniWoB-v0", tasks=["click-test", "flight.AA"], screen=(375, 667))
    try:  # unless one screen is asked for
        assert env.observation_space["screenshot"].shape == (667, 375, 3) and not env.unwrapped.suite.screen_per_task
    finally:
        env.close()
    assert describe_env("GUI/MiniWoB-v0")[0] == "128"  # what gui-bench list shows
    with pytest.raises(TaskConfigError, match=r"reward: expected one of \['partial', 'perfect', 'positive'\], received 'raw'"):
        gym.make("GUI/MiniWoB-v0", reward="raw")
    with pytest.raises(TaskConfigError, match="data_mode: expected one of"):
        gym.make("GUI/MiniWoB-v0", data_mode="dev")
    with pytest.raises(TaskConfigError, match="time_limit_s: expected a positive number"):
        gym.make("GUI/MiniWoB-v0", time_limit_s=0)


def test_the_page_server_serves_the_package_files_and_nothing_else():
    server = LoopbackServer(static_app(catalog.html_dir())).start()
    try:
        assert httpx.get(f"{server.url}/miniwob/click-test.html", timeout=5).status_code == 403  # no token
        page = httpx.get(f"{server.url}/miniwob/click-test.html", headers=server.auth_headers, timeout=5)
        assert page.status_code == 200 and "genProblem" in page.text and page.headers["content-type"].startswith("text/html")
        assert httpx.get(f"{server.url}/core/core.js", headers=server.auth_headers, timeout=5).text.startswith("var core = {};")
        for path in ("/../catalog.py", "/%2e%2e/catalog.py", "/miniwob/nope.html", "/"):
            assert httpx.get(server.url + path, headers=server.auth_headers, timeout=5).status_code == 404, path
        assert httpx.post(f"{server.url}/miniwob/click-test.html", headers=server.auth_headers, timeout=5).status_code == 405
    finally:
        server.stop()


def test_without_the_package_the_env_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "miniwob" else real(name, *a))
    expected = r"^GUI/MiniWoB-v0 needs the 'miniwob' extra, which this install lacks \(no module miniwob\): " \
               r"pip install 'gui-gym\[miniwob\]'$"
    with pytest.raises(MissingResourceError, match=expected):
        gym.make("GUI/MiniWoB-v0")
