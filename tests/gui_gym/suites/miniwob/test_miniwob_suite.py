"""GUI/MiniWoB-v0 on the real task pages: episodes started, timed and scored by the pages' own
code, the scripted solutions, the env contract (check_env, formats, a11y), what the agent
cannot do (leave the page, restart an ended episode), every installed task, the harness."""

from __future__ import annotations

import json
import time
from urllib.error import HTTPError
from urllib.request import urlopen

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401
from gui_gym.benchmarks.cli import main
from gui_gym import Action
from gui_gym.action_formats import format_action
from gui_gym.env import GUIEnv
from gui_gym.suites.miniwob import MiniWoBSuite, oracles


@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/MiniWoB-v0", tasks="scripted", render_mode="rgb_array")
    yield env
    env.close()


def solve(env, task: str, seed: int):
    """The scripted solution's episode: (reset info, rewards, last info)."""
    _, first = env.reset(options={"task_id": task, "instance_seed": seed})
    rewards = []
    while True:
        _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        rewards.append(reward)
        if terminated or truncated:
            return first, rewards, info


def test_scripted_solutions_succeed_and_the_page_reward_is_reported(env):
    assert sorted(env.unwrapped.task_ids) == sorted(oracles.SOLUTIONS)
    for task in env.unwrapped.task_ids:
        first, rewards, info = solve(env, task, 5)
        assert first["instruction"] and info["success"] and rewards[-1] == 1.0 and set(rewards[:-1]) <= {0.0}, task
        details = info["evaluation"]
        assert details["done"] and details["raw_reward"] == 1.0 and 0.0 < details["reward"] <= 1.0, (task, details)
        assert info["task_id"] == task and info["domain"] == "original"
    assert env.unwrapped.task.metadata["time_limit_s"] == 10.0  # login-user's own limit: core.EPISODE_MAX_TIME


def test_the_seed_is_the_episode(env):
    obs_a, info_a = env.reset(options={"task_id": "enter-text", "instance_seed": 7})
    obs_b, info_b = env.reset(options={"task_id": "enter-text", "instance_seed": 7})
    assert info_a["instruction"] == info_b["instruction"] == obs_a["instruction"]
    assert np.array_equal(obs_a["screenshot"], obs_b["screenshot"]) and obs_a["screenshot"].shape == (210, 160, 3)
    others = {env.reset(options={"task_id": "enter-text", "instance_seed": s})[1]["instruction"] for s in range(4)}
    assert len(others) > 2
    drawn = [env.reset(seed=3)[1] for _ in range(2)]  # no task id: the task and its seed drawn from the seed
    assert [(i["task_id"], i["seed"], i["instruction"]) for i in drawn] == [(drawn[0]["task_id"], drawn[0]["seed"], drawn[0]["instruction"])] * 2


def test_partial_credit_under_each_reward_rule(env):
    # click-checkboxes scores (right boxes - wrong boxes) / boxes: seed 8 asks for 2 of 6 boxes,
    # so a bare Submit gets 4 right and 2 wrong, a raw reward of 1/3.
    suite = env.unwrapped.suite
    _, info = env.reset(options={"task_id": "click-checkboxes", "instance_seed": 8})
    assert info["instruction"] == "Select 6j, IUz7gF and click Submit."
    assert env.unwrapped.backend.evaluate("document.querySelectorAll('#boxes input').length") == 6
    submit, raw, seed = oracles.click(env.unwrapped.backend, "#subbtn"), 1 / 3, 8
    try:
        for rule, score in (("positive", 1.0), ("perfect", 0.0), ("partial", raw)):
            suite.config.reward = rule
            env.reset(options={"task_id": "click-checkboxes", "instance_seed": seed})
            _, reward, terminated, _, info = env.step(submit)
            assert terminated and info["evaluation"]["raw_reward"] == pytest.approx(raw), rule
            assert reward == pytest.approx(score) and info["success"] is (score == 1.0), rule
    finally:
        suite.config.reward = "positive"


def test_leaving_the_task_page_ends_the_episode_with_nothing(env):
    env.reset(options={"task_id": "enter-text", "instance_seed": 1})
    _, reward, terminated, _, info = env.step(Action("navigate_home"))  # a reload: a page the env did not start
    assert terminated and reward == 0.0 and info["evaluation"]["reason"] == "left the task page"
    env.reset(options={"task_id": "click-test", "instance_seed": 1})
    url = env.unwrapped.backend.url.replace("click-test", "click-test-2")
    _, reward, terminated, _, info = env.step(Action.goto(url))  # another task's page on the same server
    assert terminated and reward == 0.0 and info["evaluation"]["reason"] == "left the task page"
    env.reset(options={"task_id": "click-test", "instance_seed": 1})
    _, _, terminated, _, info = env.step(Action.goto("http://192.0.2.1/"))
    assert not terminated and "blocked" in info["action_error"]
    other = MiniWoBSuite("debug").server.start()  # another env's MiniWoB server, on the same loopback
    try:
        _, _, terminated, _, info = env.step(Action.goto(f"{other.url}/miniwob/click-test.html"))
        assert not terminated and "is not one of this env's servers" in info["action_error"]
        assert env.unwrapped.backend.evaluate("fetch(%r).then(() => 'fetched', () => 'refused')" % other.url) == "refused"
        with pytest.raises(HTTPError, match="403"):  # and this env's server answers only this env's browser
            urlopen(env.unwrapped.backend.url, timeout=10)
    finally:
        other.stop()


def test_the_env_contract(env):
    check_env(env.unwrapped)
    env.reset(options={"task_id": "focus-text", "instance_seed": 0})
    assert env.render().shape == (210, 160, 3)
    _, reward, terminated, truncated, info = env.step("not an action")
    assert info["action_error"] and not terminated and not truncated and reward == 0.0


def test_every_action_format_clicks_in_the_task_screen(env):
    backend, suite = env.unwrapped.backend, env.unwrapped.suite
    for fmt in ("json", "uitars", "pyautogui", "computer_13", "androidworld"):
        formatted = GUIEnv(backend, suite, action_format=fmt)  # another format on the same browser
        formatted.reset(options={"task_id": "click-test", "instance_seed": 3})
        click = oracles.click(backend, "#subbtn")
        written = format_action(click, fmt, **formatted.format_context)
        _, reward, terminated, _, info = formatted.step(written)
        parsed = info["parsed_action"]  # UI-TARS writes points on its resized image: within a pixel
        assert parsed["kind"] == "click" and (parsed["x"], parsed["y"]) == pytest.approx((click.x, click.y), abs=1), (fmt, written)
        assert terminated and reward == 1.0, (fmt, written, info)


def test_time_limit_a11y_another_action_format_and_a_kept_page(env):
    fresh = env.reset(options={"task_id": "enter-text", "instance_seed": 7})[1]["instruction"]
    env = gym.make("GUI/MiniWoB-v0", tasks=["focus-text", "enter-text"], time_limit_s=0.5, observe_a11y=True,
                   action_format="pyautogui", keep_page=True)
    try:
        obs, _ = env.reset(options={"task_id": "focus-text", "instance_seed": 2})
        assert env.unwrapped.task.metadata["time_limit_s"] == 0.5
        lines = obs["a11y_tree"].splitlines()
        index = next(int(line[1:line.index("]")]) for line in lines if " textbox " in line)
        _, reward, terminated, _, info = env.step(Action.click_element(index))
        assert terminated and reward == 1.0, info  # in time: an element-index click focuses the box
        env.reset(options={"task_id": "focus-text", "instance_seed": 2})
        box = oracles.click(env.unwrapped.backend, "#tt")
        time.sleep(0.8)  # the agent thinks past the page's limit: the page ends the episode, -1
        _, reward, terminated, _, info = env.step(f"pyautogui.click({box.x:.0f}, {box.y:.0f})")
        assert info["parsed_action"] == {"kind": "click", "x": box.x, "y": box.y}
        # the click lands on the sync screen the end brought back, which starts nothing
        assert terminated and reward == 0.0, info
        assert info["evaluation"] == {"done": True, "raw_reward": -1.0, "reward": -1.0, "reason": "timed out"}
        # a kept page (opened for seed 1, its episode ended by the reset or the clock) restarts in
        # place, into the same episode as a fresh page
        page = env.unwrapped.backend.page
        env.reset(options={"task_id": "enter-text", "instance_seed": 1})
        env.step("pyautogui.click(5, 100)")
        assert env.reset(options={"task_id": "enter-text", "instance_seed": 7})[1]["instruction"] == fresh
        assert env.unwrapped.backend.page is page and env.unwrapped.backend.evaluate("WOB_EPISODE_ID") == 1
    finally:
        env.close()


@pytest.mark.slow
def test_every_installed_task_resets_and_steps():
    # one page, navigated from task to task: half the time; text-only: no capture and decode per
    # step (half again), the screenshots of both screen sizes are checked at the end
    env = gym.make("GUI/MiniWoB-v0", keep_page=True, observe_screenshot=False)
    try:
        unwrapped = env.unwrapped
        assert len(unwrapped.task_ids) == 128
        for task in unwrapped.task_ids:
            obs, info = env.reset(options={"task_id": task, "instance_seed": 0})
            assert obs in env.observation_space and isinstance(info["instruction"], str) and info["instruction"], task
            assert env.action_space.screen_size == _screen(task), task  # actions read on the task's screen
            if task.startswith("flight."):
                assert isinstance(json.loads(info["instruction"]), dict)  # the flight query is its fields, as JSON
            obs, reward, terminated, truncated, info = env.step(Action.click(80, 130))
            assert info["action_error"] is None and info["infra_error"] is None, (task, info)
            assert obs in env.observation_space and 0.0 <= reward <= 1.0, task
            state = unwrapped.task.state(unwrapped.backend)
            assert not state["left"] and state["done"] is terminated, (task, state)
        # the same browser with screenshots: each screen size is what the capture gives
        shots = GUIEnv(unwrapped.backend, unwrapped.suite)
        for task in ("click-test", next(t for t in unwrapped.task_ids if t.startswith("flight."))):
            obs, _ = shots.reset(options={"task_id": task, "instance_seed": 0})
            assert obs["screenshot"].shape[1::-1] == shots.action_space.screen_size == _screen(task), task
            obs, _, _, _, info = shots.step(Action.click(80, 130))
            assert obs in shots.observation_space and info["infra_error"] is None, task
    finally:
        env.close()


def _screen(task: str) -> tuple[int, int]:
    return (375, 667) if task.startswith("flight.") else (160, 210)


@pytest.mark.slow
def test_gui_bench_runs_the_random_and_the_scripted_agent(tmp_path, capsys):
    out = tmp_path / "oracle"
    assert main(["run", "--env", "GUI/MiniWoB-v0", "--env-arg", "tasks=scripted", "--agent", "oracle",
                 "--tasks", "click-button,enter-text", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["successes"] == 2 and "click-button" in summary["suite_report"]
    assert main(["run", "--env", "GUI/MiniWoB-v0", "--agent", "random", "--tasks", "category:debug",
                 "--limit", "2", "--max-steps", "3", "--out", str(tmp_path / "random")]) == 0
    printed = capsys.readouterr().out
    assert "2 of 2 episodes to run" in printed and "debug" in printed
    result = json.loads(next((tmp_path / "random").glob("tasks/*/result.json")).read_text())
    assert result["error"] is None and result["steps"] <= 3
