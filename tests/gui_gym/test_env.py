"""The env contract (docs/env_contract.md) on GUI/Demo-v0: spaces, reset options, info keys, reward at
the end, terminated vs truncated, malformed input, determinism, check_env, close."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

import gymnasium as gym
import numpy as np
import psutil
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym
from gui_gym import Action
from gui_gym.env import TIMING_KEYS
from gui_gym.errors import TaskConfigError
from tests.fakes.hostile_agent import run_navigation_attacks

STEP_INFO_KEYS = {"success", "score", "action_error", "action_warnings", "parsed_action", "step_time_s", "infra_error",
                  "task_id", "instruction", "domain"}


@pytest.fixture(scope="module")
def env():
    env = gym.make("GUI/Demo-v0")
    yield env
    env.close()


def without_timings(info: dict) -> dict:
    return {k: v for k, v in info.items() if k not in TIMING_KEYS}


def test_reset_returns_observation_in_space_and_task_info(env):
    obs, info = env.reset(seed=0, options={"task_id": "demo.fill-form"})
    assert obs in env.observation_space
    assert obs["screenshot"].dtype == np.uint8 and obs["screenshot"].shape == (720, 1280, 3)
    assert info["task_id"] == "demo.fill-form" and info["domain"] == "demo"
    assert info["instruction"] == obs["instruction"] and "Send" in info["instruction"]


def test_reset_without_task_id_draws_from_the_seeded_rng(env):
    drawn = [env.reset(seed=s)[1]["task_id"] for s in range(8)]
    again = [env.reset(seed=s)[1]["task_id"] for s in range(8)]
    assert drawn == again and set(drawn) <= set(env.unwrapped.task_ids) and len(set(drawn)) > 1


def test_unknown_task_id_suggests_the_nearest(env):
    with pytest.raises(TaskConfigError, match=r"unknown task id 'demo.fill-from'.*did you mean \['demo.fill-form'"):
        env.reset(options={"task_id": "demo.fill-from"})


def test_an_unknown_task_id_with_no_near_one_lists_the_suites_ids(env):
    with pytest.raises(TaskConfigError, match=r"unknown task id 'zzz' in suite .*; the suite's ids are "
                                              r"\['demo.press-button', 'demo.fill-form', 'demo.read-code'\]$"):
        env.reset(options={"task_id": "zzz"})


def test_after_a_first_reset_that_raised_gymnasiums_env_checker_fails_the_first_step_unless_disabled():
    """The Gymnasium bug docs/env_contract.md documents, and the way around it it gives: when this
    test fails on a newer Gymnasium, the bug is fixed there and the docs can say so."""
    for disable_env_checker, fails in ((False, True), (True, False)):
        env = gym.make("GUI/Demo-v0", disable_env_checker=disable_env_checker)
        try:
            with pytest.raises(TaskConfigError):
                env.reset(options={"task_id": "demo.fill-from"})
            env.reset(seed=0, options={"task_id": "demo.read-code"})
            if fails:
                with pytest.raises(TypeError, match="cannot unpack non-iterable NoneType"):
                    env.step(Action.wait())
            else:
                assert env.step(Action.wait())[4]["task_id"] == "demo.read-code"
        finally:
            env.close()


def test_unknown_reset_option_is_refused(env):
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"task": "demo.fill-form"})


def test_oracle_episode_rewards_only_at_the_end(env):
    env.reset(seed=3, options={"task_id": "demo.fill-form"})
    rewards, infos = [], []
    while True:
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        rewards.append(reward)
        infos.append(info)
        assert STEP_INFO_KEYS <= set(info)
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert rewards[-1] == 1.0 and set(rewards[:-1]) == {0.0}
    assert infos[-1]["success"] is True and infos[-1]["score"] == 1.0
    assert all(i["score"] is None and i["success"] is False for i in infos[:-1])
    assert infos[0]["parsed_action"]["kind"] == "click"


def test_done_without_the_state_change_scores_zero(env):
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    _, reward, terminated, _, info = env.step(Action.done())
    assert terminated and reward == 0.0 and info["success"] is False and info["score"] == 0.0


def test_answer_task_is_scored_on_the_answer(env):
    env.reset(seed=5, options={"task_id": "demo.read-code"})
    code = env.unwrapped.task.code
    assert env.step(f'{{"kind": "answer", "text": "{code}"}}')[1] == 1.0
    env.reset(seed=5, options={"task_id": "demo.read-code"})
    assert env.step(Action.answer("000000"))[1] == 0.0


@pytest.mark.parametrize("bad", ["", "nonsense", '{"kind": "click"}', '{"kind": "teleport"}',
                                 '{"kind": "scroll", "direction": "sideways"}', 42, None,
                                 {"kind": "click", "x": "a", "y": 1}, '[{"kind": "click", "x": 1}]'])
def test_malformed_actions_are_info_errors_not_exceptions(env, bad):
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    obs, reward, terminated, truncated, info = env.step(bad)
    assert info["action_error"] and info["parsed_action"] is None
    assert reward == 0.0 and not terminated and not truncated
    assert obs in env.observation_space


def test_unexecutable_action_is_an_action_error(env):
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    info = env.step(Action.click_element(999))[4]
    assert "element index 999 does not exist" in info["action_error"]
    info = env.step(Action.goto("http://198.51.100.7/"))[4]
    assert "blocked" in info["action_error"]


def test_step_limit_truncates_and_still_evaluates():
    env = gym.make("GUI/Demo-v0", max_steps=2)
    try:
        env.reset(seed=0, options={"task_id": "demo.press-button"})
        assert env.step(Action.wait(0))[3] is False
        _, reward, terminated, truncated, info = env.step(Action.wait(0))
        assert truncated and not terminated and info["score"] == 0.0 and reward == 0.0
        with pytest.raises(gym.error.ResetNeeded):
            env.step(Action.wait(0))
    finally:
        env.close()


def test_action_format_uitars_maps_model_coordinates():
    env = gym.make("GUI/Demo-v0", action_format="uitars", format_context={"coordinates": "relative1000"})
    try:
        env.reset(seed=0, options={"task_id": "demo.press-button"})
        info = env.step("Thought: click it\nAction: click(start_box='(500,500)')")[4]
        assert info["parsed_action"] == {"kind": "click", "x": 640.0, "y": 360.0}
    finally:
        env.close()


def test_seeded_episodes_are_deterministic(env):
    def run():
        obs, info = env.reset(seed=11, options={"task_id": "demo.fill-form"})
        first = (obs, without_timings(info))
        steps = [env.step(env.unwrapped.oracle_action()) for _ in range(3)]
        return first, [(o, r, t, tr, without_timings(i)) for o, r, t, tr, i in steps]

    (obs_a, info_a), steps_a = run()
    (obs_b, info_b), steps_b = run()
    assert np.array_equal(obs_a["screenshot"], obs_b["screenshot"]) and info_a == info_b
    for a, b in zip(steps_a, steps_b):
        assert np.array_equal(a[0]["screenshot"], b[0]["screenshot"]) and a[1:] == b[1:]


def test_gymnasium_check_env_passes():
    env = gym.make("GUI/Demo-v0", render_mode="rgb_array")
    try:
        check_env(env.unwrapped)
        assert env.unwrapped.render().shape == (720, 1280, 3)
    finally:
        env.close()


def _chromium_pids() -> set[int]:
    me = psutil.Process()
    return {p.pid for p in me.children(recursive=True) if "chrom" in p.name().lower()}


def test_close_leaves_no_browser_and_is_safe_twice():
    before = _chromium_pids()
    env = gym.make("GUI/Demo-v0")
    env.reset(seed=0)
    assert _chromium_pids() - before
    env.close()
    env.close()
    assert not (_chromium_pids() - before)


def test_crashed_browser_is_an_infra_error_then_relaunched_at_reset():
    env = gym.make("GUI/Demo-v0")
    try:
        env.reset(seed=0, options={"task_id": "demo.press-button"})
        for pid in _chromium_pids():
            psutil.Process(pid).kill()
        obs, reward, terminated, truncated, info = env.step(Action.click(10, 10))
        assert truncated and info["infra_error"] and info["score"] is None and reward == 0.0
        assert obs in env.observation_space
        obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
        assert env.unwrapped.backend.relaunches == 1
        assert env.step(env.unwrapped.oracle_action())[4]["infra_error"] is None
    finally:
        env.close()


def test_an_agents_navigation_attacks_are_its_own_action_errors_and_show_no_host_file():
    env = gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=50)
    try:
        run_navigation_attacks(env, "demo.press-button")
    finally:
        env.close()


@pytest.mark.slow
def test_a_frozen_browser_or_driver_cannot_hang_reset_or_close(caplog):
    """BrowserContext.close() has no timeout: a browser that stops answering hung reset. Each
    freeze here (SIGSTOP) must cost one relaunch and a warning, not the run."""
    outcome: dict = {}

    def scenario():  # a thread of its own, so the driver it kills is nobody else's
        env = gym.make("GUI/Demo-v0", close_timeout_s=3)
        backend = env.unwrapped.backend
        try:
            env.reset(seed=0, options={"task_id": "demo.press-button"})
            for frozen in ("browser", "driver"):
                pid = backend.browser_pid if frozen == "browser" else backend._driver.pid
                os.kill(pid, signal.SIGSTOP)
                started = time.monotonic()
                obs, _ = env.reset(seed=0, options={"task_id": "demo.press-button"})
                outcome[frozen] = (time.monotonic() - started, obs in env.observation_space, backend.relaunches,
                                   psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie")
            os.kill(backend.browser_pid, signal.SIGSTOP)
            started = time.monotonic()
        finally:
            env.close()
        outcome["close"] = time.monotonic() - started

    worker = threading.Thread(target=scenario, daemon=True)
    with caplog.at_level(logging.WARNING, logger="gui_gym.backends"):
        worker.start()
        worker.join(240)
    assert not worker.is_alive(), "reset or close hung on a frozen browser"
    assert outcome["browser"][1:] == (True, 1, False) and outcome["browser"][0] < 60, outcome
    assert outcome["driver"][1:] == (True, 2, False) and outcome["driver"][0] < 60, outcome
    assert outcome["close"] < 30, outcome
    warnings = [r.getMessage() for r in caplog.records]
    assert any("closing the episode's context did not finish within close_timeout_s=3 s" in w for w in warnings)
    assert any("aborting harder" in w for w in warnings), warnings


def test_import_does_not_import_torch_and_registers_ids():
    import subprocess
    import sys

    code = "import sys, gui_gym, gymnasium as gym; print('torch' in sys.modules, 'GUI/Demo-v0' in gym.registry)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
    assert gui_gym.__version__
