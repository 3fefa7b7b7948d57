"""LocalWeb as a whole: the task set, its spread of lengths, filters, isolation from the
network, exact state restoration, and a random agent's (near-zero) success on long tasks."""

from __future__ import annotations

from collections import Counter
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import gymnasium as gym
import numpy as np
import pytest

from gui_gym import Action
from gui_gym.env import GUIEnv
from tests.fakes.hostile_agent import run_navigation_attacks
from gui_gym.suites.localweb.apps import APP_MODULES
from gui_gym.suites.localweb.suite import LocalWebSuite
from gui_gym.suites.localweb.templates import DIFFICULTY_STEPS


@pytest.fixture(scope="module")
def suite():
    return LocalWebSuite()


@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/LocalWeb-v0")
    yield env
    env.close()


def test_at_least_forty_templates_over_five_apps_with_a_spread_of_lengths(suite):
    ids = suite.task_ids
    assert len(ids) >= 40 and len(set(ids)) == len(ids)
    apps = Counter(suite.describe(t)["app"] for t in ids)
    assert set(apps) == set(APP_MODULES) and min(apps.values()) >= 8
    levels = Counter(suite.describe(t)["difficulty"] for t in ids)
    assert set(levels) == set(DIFFICULTY_STEPS)
    assert all(count >= len(ids) // 4 for count in levels.values()), levels


def test_same_seed_same_world_and_params(suite):
    for task_id in suite.task_ids:
        a, b = suite.make_task(task_id, 7), suite.make_task(task_id, 7)
        assert a.instruction == b.instruction and a.world == b.world, task_id


def test_difficulty_filter_and_unknown_values():
    env = gym.make("GUI/LocalWeb-v0", difficulty="hard")
    try:
        suite = env.unwrapped.suite
        assert env.unwrapped.task_ids and all(suite.describe(t)["difficulty"] == "hard" for t in env.unwrapped.task_ids)
    finally:
        env.close()
    with pytest.raises(ValueError, match="unknown difficulty"):
        gym.make("GUI/LocalWeb-v0", difficulty="epic")
    with pytest.raises(ValueError, match="unknown LocalWeb app"):
        gym.make("GUI/LocalWeb-v0", apps=["bank"])


def test_the_suite_cannot_leave_loopback(env):
    env.reset(seed=0, options={"task_id": env.unwrapped.task_ids[0]})
    info = env.step(Action.goto("http://192.0.2.10/"))[4]
    assert "blocked" in info["action_error"]
    backend = env.unwrapped.backend
    backend.evaluate("fetch('http://192.0.2.10/leak').catch(() => null)")
    env.step(Action.wait(0))
    assert any("192.0.2.10" in url for url in backend.blocked_requests)


def test_an_agents_navigation_attacks_are_its_own_action_errors_and_show_no_host_file():
    env = gym.make("GUI/LocalWeb-v0", observe_a11y=True, max_steps=50)
    try:
        run_navigation_attacks(env, "mail.star")
    finally:
        env.close()


def test_one_env_cannot_reach_or_score_another_envs_task():
    a, b = (gym.make("GUI/LocalWeb-v0", observe_screenshot=False) for _ in range(2))
    try:
        b.reset(seed=0, options={"task_id": "mail.star"})
        a.reset(seed=0, options={"task_id": "mail.star"})  # the same task instance in both
        target = b.unwrapped.backend.start_url
        info = a.step(Action.goto(target))[4]
        assert "is not one of this env's servers" in info["action_error"] and info["infra_error"] is None
        done = False
        while not done:  # the actions that solve the task: they reach A's own server only
            _, reward, terminated, truncated, info = a.step(a.unwrapped.oracle_action())
            done = terminated or truncated
        assert info["success"]
        for request in (Request(target), Request(target + "message/1/star", data=b"value=1", method="POST"),
                        Request(target, headers=a.unwrapped.suite.server.auth_headers)):  # A's token is not B's
            with pytest.raises(HTTPError, match="403"):
                urlopen(request, timeout=10)
        assert b.step(Action.done())[4]["score"] == 0.0  # B did nothing, and nothing was done for it
    finally:
        a.close()
        b.close()


def without_request_logs(world: dict) -> dict:
    """The apps' states without the request log each app keeps (the start page's own load is
    logged, so a world that has been served differs from a fresh one only there)."""
    return {app: {k: v for k, v in state.items() if k != "log"} for app, state in world.items()}


def test_reset_restores_the_world_exactly(env):
    task_id = next(t for t in env.unwrapped.task_ids if env.unwrapped.suite.describe(t)["difficulty"] == "medium")
    first_obs, _ = env.reset(seed=3, options={"task_id": task_id})
    for _ in range(4):
        env.step(env.unwrapped.oracle_action())
    changed = env.unwrapped.task.world
    obs, _ = env.reset(seed=3, options={"task_id": task_id})
    fresh = env.unwrapped.suite.make_task(task_id, env.unwrapped.episode.seed).world
    assert without_request_logs(env.unwrapped.task.world) == without_request_logs(fresh)
    assert env.unwrapped.task.world is not changed
    assert np.array_equal(obs["screenshot"], first_obs["screenshot"])


def test_random_agent_almost_never_solves_long_tasks(env):
    """One episode of 20 random actions per hard template: the measured success rate. The
    agent does not look, so the module's browser runs it text-only (no capture per step)."""
    env = GUIEnv(env.unwrapped.backend, env.unwrapped.suite, observe_screenshot=False)
    hard = [t for t in env.task_ids if env.suite.describe(t)["difficulty"] == "hard"]
    env.action_space.seed(0)
    successes = 0
    for i, task_id in enumerate(hard):
        env.reset(seed=i, options={"task_id": task_id})
        for _ in range(20):
            _, _, terminated, truncated, info = env.step(env.action_space.sample())
            if terminated or truncated:
                break
        if not (terminated or truncated):
            info = env.step(Action.done())[4]
        successes += bool(info["success"])
    rate = successes / len(hard)
    print(f"random agent on {len(hard)} hard LocalWeb templates: success rate {rate:.3f}")
    assert rate <= 0.05


def test_each_page_loads_in_one_request_with_its_assets_inlined(env, suite, tmp_path):
    # Every app's stylesheets and scripts are inlined and its icon is empty (a page costs one
    # request, not six);
    # a file that would close its inlined tag early is refused when the app is imported.
    from gui_gym.suites.localweb.framework import assets

    for app in APP_MODULES:
        env.reset(seed=0, options={"task_id": next(t for t in suite.task_ids if t.startswith(app + "."))})
        backend = env.unwrapped.backend
        loaded = backend.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        assert loaded == [], (app, loaded)
        assert backend.evaluate("document.styleSheets.length") >= 2  # the shared sheet and the app's
    bad = tmp_path / "bad.js"
    bad.write_text("document.write('</SCRIPT>')")
    with pytest.raises(ValueError, match="bad.js holds </script>"):
        assets(bad)
