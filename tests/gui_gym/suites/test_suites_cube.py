"""``GUI/CUBE-v0``: a CUBE benchmark from the package index (arithmetic-cube) as a Gymnasium env,
scored by CUBE, played by its own debug agent and by gui-bench; and gui-gym's exported
benchmarks round-tripped (export, then consume), episode for episode the native env's (Android's
on a phone the test serves: the fake adb server on loopback). Runs
where CUBE is installed (Python >= 3.12); tests/gui_gym/test_cube_venv.py runs it in the CUBE venv."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.cube_venv import require_cube

require_cube()

import gymnasium as gym  # noqa: E402

import gui_gym  # noqa: E402,F401
from gui_gym.actions import Action  # noqa: E402
from gui_gym.cube.android.benchmark import AndroidBenchmarkConfig  # noqa: E402
from gui_gym.errors import TaskConfigError  # noqa: E402
from tests.fakes.adb_server import FakeAdbServer  # noqa: E402
from tests.fakes.virtual_device import VirtualDevice  # noqa: E402

ARITHMETIC = {"add-3-4": "7", "sub-10-3": "7", "mul-6-7": "42", "add-100-1": "101"}


@pytest.fixture
def arithmetic():
    env = gym.make("GUI/CUBE-v0", benchmark="arithmetic-cube", observe_screenshot=False)
    yield env
    env.close()


def test_the_benchmarks_own_debug_agent_is_the_oracle_and_scores_one(arithmetic):
    assert arithmetic.unwrapped.task_ids == list(ARITHMETIC)
    for task_id, answer in ARITHMETIC.items():
        obs, info = arithmetic.reset(seed=0, options={"task_id": task_id})
        assert obs["instruction"].startswith("What is") and info["domain"] == "arithmetic-cube"
        action = arithmetic.unwrapped.oracle_action()
        assert action == Action.answer(answer)
        _obs, reward, terminated, truncated, info = arithmetic.step(action)
        assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
        assert info["evaluation"]["cube"]["correct"] is True


def test_a_wrong_answer_scores_what_cube_says(arithmetic):
    arithmetic.reset(seed=0, options={"task_id": "add-3-4"})
    _obs, reward, terminated, _truncated, info = arithmetic.step(Action.answer("8"))
    assert (reward, terminated) == (0.0, True)
    assert info["evaluation"]["cube"] == {"answer": 8, "expected": 7, "correct": False}


def test_an_action_the_benchmark_cannot_carry_out_is_an_action_error_and_the_step_limit_scores_the_state(arithmetic):
    arithmetic.reset(seed=0, options={"task_id": "add-3-4"})  # recommended_max_steps: 2
    _obs, reward, terminated, truncated, info = arithmetic.step(Action.click(0, 0))  # a text-only screen is 1x1
    assert "no function for a click action" in info["action_error"] and not (terminated or truncated)
    _obs, reward, terminated, truncated, info = arithmetic.step(Action.wait(0))
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["evaluation"]["cube"]["answer"] is None


def test_an_agent_may_write_the_benchmarks_own_calls():
    env = gym.make("GUI/CUBE-v0", benchmark="arithmetic_cube.benchmark:ArithmeticBenchmarkConfig",
                   observe_screenshot=False, action_format="function_call")
    try:
        env.reset(seed=0, options={"task_id": "mul-6-7"})
        _obs, reward, terminated, _truncated, info = env.step({"name": "submit_answer", "arguments": {"answer": 42}})
        assert (reward, terminated, info["parsed_action"]) == (1.0, True, {"kind": "answer", "text": "42"})
    finally:
        env.close()


def test_a_benchmark_that_is_not_installed_is_named_with_those_that_are():
    with pytest.raises(TaskConfigError, match=r"no CUBE benchmark 'no-such-cube'.*arithmetic-cube"):
        gym.make("GUI/CUBE-v0", benchmark="no-such-cube")


def test_gui_bench_runs_a_cube_benchmark_and_writes_its_report(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "gui_gym.benchmarks.cli", "run", "--env", "GUI/CUBE-v0",
                           "--env-arg", "benchmark=arithmetic-cube", "--env-arg", "observe_screenshot=false",
                           "--agent", "oracle", "--out", str(out)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["tasks"] == 4 and summary["overall"]["success_rate"] == 1.0
    assert (out / "report.html").is_file()


def _episode(env, task_id: str, actions: list[Action] | None = None):
    """(actions, per-step outcomes, screenshots, milestones at the end) of one episode with reset
    seed 11: the oracle's actions, or `actions`."""
    obs, info = env.reset(seed=11, options={"task_id": task_id})
    played, outcomes, shots = [], [(info["instruction"], info["seed"])], [obs.get("screenshot")]
    ended = False
    while not ended:
        action = env.unwrapped.oracle_action() if actions is None else actions[len(played)]
        obs, reward, terminated, truncated, info = env.step(action)
        played.append(action)
        outcomes.append((reward, terminated, truncated, info["action_error"], info["success"]))
        shots.append(obs.get("screenshot"))
        ended = terminated or truncated
    return played, outcomes, shots, env.unwrapped.milestones_reached()


@pytest.mark.parametrize("env_id, benchmark, kwargs, task_ids", [
    ("GUI/Demo-v0", "gui-gym-demo", {}, ["demo.press-button", "demo.fill-form", "demo.read-code"]),
    ("GUI/MMBench-GUI-L1-v0", "gui-gym-mmbench", {"data_root": "sample"}, ["mmbench-l1.3.medium"]),
    ("GUI/MMBench-GUI-L2-v0", "gui-gym-mmbench", {"data_root": "sample"}, ["mmbench-l2.5"]),
    ("GUI/LocalWeb-v0", "gui-gym-localweb", {}, ["shop.add-to-cart"]),
])
def test_export_then_consume_gives_the_native_episode(env_id, benchmark, kwargs, task_ids):
    """The same reset seed and actions: the same instance, rewards, ends, screenshots (pixel for
    pixel) and milestones as the native env."""
    native = gym.make(env_id, **kwargs)
    consumed = gym.make("GUI/CUBE-v0", benchmark=benchmark)
    try:
        for task_id in task_ids:
            native_episode = _episode(native, task_id)
            _assert_same_episode(_episode(consumed, task_id, native_episode[0]), native_episode)
    finally:
        native.close()
        consumed.close()


def test_export_then_consume_gives_the_native_episode_on_a_phone():
    """The phone named in the benchmark config; the debug agent's actions through CUBE (it
    reads the element list it is shown), then the same actions on the native env: the same
    instance, rewards, ends and screenshots."""
    with FakeAdbServer([VirtualDevice()]) as phone:
        consumed = gym.make("GUI/CUBE-v0", benchmark=AndroidBenchmarkConfig(adb_port=phone.port))
        native = gym.make("GUI/Android-v0", adb_port=phone.port, observe_a11y=True)
        try:
            opened = _episode(consumed, "OpenAppTaskEval")
            (app, done), instruction = opened[0], opened[1][0][0]
            assert app.kind == "open_app" and instruction.startswith(f"Open the {app.text} app.")
            assert done == Action.done()
            _assert_same_episode(_episode(native, "OpenAppTaskEval", opened[0]), opened)
            wifi = _episode(consumed, "SystemWifiTurnOn")
            assert wifi[0] == [Action("open_app", text="Settings"), Action.click_element(1), Action.done()]
            _assert_same_episode(_episode(native, "SystemWifiTurnOn", wifi[0]), wifi)
        finally:
            consumed.close()
            native.close()


def _assert_same_episode(episode, native) -> None:
    """Two `_episode`s give the same outcomes and milestones, pixel-equal screenshots, and the
    task solved."""
    _actions, outcomes, shots, marks = episode
    _native_actions, native_outcomes, native_shots, native_marks = native
    assert outcomes == native_outcomes and marks == native_marks
    assert outcomes[-1][0] == 1.0
    assert len(shots) == len(native_shots)
    for shot, native_shot in zip(shots, native_shots):
        assert shot.shape == native_shot.shape and np.array_equal(shot, native_shot)


def test_the_oracle_through_cube_is_the_exported_tasks_own_on_the_episodes_seed():
    env = gym.make("GUI/CUBE-v0", benchmark="gui-gym-demo")
    try:
        _actions, outcomes, _shots, marks = _episode(env, "demo.fill-form")
        assert outcomes[-1][0] == 1.0 and all(marks)
    finally:
        env.close()
