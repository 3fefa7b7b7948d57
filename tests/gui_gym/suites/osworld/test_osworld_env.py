"""`GUI/OSWorld-v0` and the env contract: make_env routing, check_env, clear failures at reset."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.envs.osworld import make_env
from gui_gym.errors import MissingResourceError, TaskConfigError


def test_make_env_routes_arguments_without_starting_anything(tmp_path):
    env = make_env(tasks="sample", domains=["os"], provider="remote", host="10.0.0.9", screen_size=(1280, 720),
                   max_steps=7, cache_dir=str(tmp_path))
    base = env
    assert base.action_format == "pyautogui" and base.backend.config.host == "10.0.0.9"
    assert base.observation_space["screenshot"].shape == (720, 1280, 3)
    assert all(base.suite.describe(t)["domain"] == "os" for t in base.task_ids)
    assert base.suite.make_task(base.task_ids[0], 0).max_steps == 7
    description = base.suite.describe("sample-os-count-rows")
    assert description["runnable"] and description["has_oracle"] and description["unmet"]["metrics"] == []
    with pytest.raises(TaskConfigError, match=r"unknown task id 'sample-os-nope'"):
        base.suite.check_task_id("sample-os-nope")
    base.close()


def test_a_task_with_unmet_needs_fails_at_reset_naming_them(tmp_path, osworld_tasks):
    env = gym.make("GUI/OSWorld-v0", tasks=osworld_tasks, domains=["multi_apps"],
                   provider="local", screen_size=(640, 480), accessibility=False, shell="openbox")
    try:
        task_id = "22a4636f-8179-4357-8e87-d1743ece1f81"  # uploads to OSWorld's Google Drive account
        with pytest.raises(MissingResourceError, match=rf"task {task_id} \(multi_apps\) needs what this "
                                                       r"install lacks: setup: googledrive, login"):
            env.reset(options={"task_id": task_id})
    finally:
        env.close()


@pytest.mark.slow
def test_check_env_on_a_terminal_task():
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=(640, 480), accessibility=False,
                   shell="openbox", task_ids=["sample-os-infeasible-bluetooth"])
    try:
        check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step("FAIL")
        assert terminated and reward == 1.0 and info["success"]
    finally:
        env.close()
