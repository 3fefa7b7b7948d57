"""`TrajectoryRecorder` on GUI/Demo-v0: the folder layout, screenshots equal to what the agent
saw, result.json last, info keys added and none changed, stale attempts cleared, errors
recorded, check_env."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

import gui_gym  # noqa: F401 - registers the ids
from gui_gym import Action
from gui_gym.errors import TaskConfigError
from gui_gym.records import read_result
from gui_gym.wrappers import TrajectoryRecorder


@pytest.fixture(scope="module")
def demo():
    env = gym.make("GUI/Demo-v0")
    yield env
    env.close()


def _lines(folder):
    return [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]


def test_an_episode_is_recorded_step_by_step_and_completed_by_result_json(demo, tmp_path):
    env = TrajectoryRecorder(demo, tmp_path)
    obs, info = env.reset(seed=0, options={"task_id": "demo.fill-form"})
    folder = tmp_path / "demo.fill-form__seed0"
    assert info["trajectory_dir"] == str(folder) and info["screenshot_file"] == "step_0000.png"
    assert not (folder / "result.json").exists()
    seen = [obs["screenshot"]]
    steps = 0
    while True:
        env.annotate(response="scripted", agent_time_s=0.01)
        obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        seen.append(obs["screenshot"])
        steps += 1
        if terminated or truncated:
            break
    result = read_result(folder)
    assert result.success is True and result.score == 1.0 and result.steps == steps
    assert result.error is None and result.task_id == "demo.fill-form" and result.seed == 0
    assert result.timings["total_s"] >= result.timings["env_s"] > 0
    assert result.timings["agent_s"] == pytest.approx(0.01 * steps)
    lines = _lines(folder)
    assert [line["step"] for line in lines] == list(range(steps + 1))
    assert lines[0]["event"] == "reset" and lines[0]["instruction"].startswith("Type the name")
    assert lines[1]["parsed_action"]["kind"] == "click" and lines[1]["response"] == "scripted"
    assert lines[-1]["terminated"] is True and lines[-1]["reward"] == 1.0
    assert all(line["url"].startswith("http://127.0.0.1:") for line in lines)
    for line, screen in zip(lines, seen):
        assert np.array_equal(np.asarray(Image.open(folder / line["screenshot_file"]).convert("RGB")), screen)
    assert env.last_result.success is True


class _Dimmed(gym.ObservationWrapper):
    def observation(self, observation):
        return {**observation, "screenshot": observation["screenshot"] // 2}


def test_the_file_holds_the_screen_the_agent_saw_even_when_a_wrapper_changed_it(demo, tmp_path):
    env = TrajectoryRecorder(_Dimmed(demo), tmp_path)
    obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
    obs, *_ = env.step(Action.done())  # the episode ends: every screenshot is on disk
    for name, screen in (("step_0000.png", None), ("step_0001.png", obs["screenshot"])):
        saved = np.asarray(Image.open(tmp_path / "demo.press-button__seed0" / name).convert("RGB"))
        assert saved.max() <= 127  # encoded from the dimmed array, not copied from the browser's PNG
        if screen is not None:
            assert np.array_equal(saved, screen)


def test_webp_screenshots_are_lossless_and_a_third_of_the_browsers_png(demo, tmp_path):
    env = TrajectoryRecorder(demo, tmp_path, image_format="webp")
    obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
    png = demo.unwrapped.last_observation.extra["png"]
    env.step(Action.done())
    saved = tmp_path / "demo.press-button__seed0" / info["screenshot_file"]
    assert info["screenshot_file"] == "step_0000.webp"
    with Image.open(saved) as picture:
        assert picture.format == "WEBP" and np.array_equal(np.asarray(picture.convert("RGB")), obs["screenshot"])
    assert saved.stat().st_size < len(png) / 2
    with pytest.raises(ValueError, match="image_format"):
        TrajectoryRecorder(demo, tmp_path, image_format="gif")


def test_info_gains_two_keys_and_keeps_every_base_key(demo, tmp_path):
    plain_obs, plain = demo.reset(seed=1, options={"task_id": "demo.read-code"})
    env = TrajectoryRecorder(demo, tmp_path)
    _, recorded = env.reset(seed=1, options={"task_id": "demo.read-code"})
    assert set(recorded) - set(plain) == {"trajectory_dir", "screenshot_file"}
    assert {k: recorded[k] for k in plain if k != "reset_time_s"} == {k: plain[k] for k in plain if k != "reset_time_s"}
    code = plain_obs["instruction"] and demo.unwrapped.task.code
    _, _, terminated, _, info = env.step(Action.answer(code))
    assert terminated and info["success"] and info["screenshot_file"] == "step_0001.png"
    result = read_result(tmp_path / "demo.read-code__seed1")
    assert result.final_answer == code


def test_a_new_attempt_clears_what_the_last_one_left_but_not_foreign_files(demo, tmp_path):
    folder = tmp_path / "demo.press-button__seed0"
    folder.mkdir()
    for name in ("step_0042.png", "result.json", "traj.jsonl", ".result.json.1.2.tmp", "notes.txt"):
        (folder / name).write_text("stale")
    env = TrajectoryRecorder(demo, tmp_path)
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    env.close()  # the new attempt's first screenshot is written in the background: let it land
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "step_0000.png", "traj.jsonl"]
    assert len(_lines(folder)) == 1


def test_an_exception_is_recorded_as_an_error_result(demo, tmp_path):
    env = TrajectoryRecorder(demo, tmp_path)
    with pytest.raises(TaskConfigError, match="unknown task id 'demo.nope'"):
        env.reset(seed=0, options={"task_id": "demo.nope"})
    with pytest.raises(ValueError, match="no episode is open: pass task_id="):
        env.record_error("boom")
    result = env.record_error("TaskConfigError: unknown task", "env", task_id="demo.nope", seed=0)
    stored = json.loads((tmp_path / "demo.nope__seed0" / "result.json").read_text())
    assert stored == result.to_dict() and result.error_kind == "env" and result.success is False
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    result = env.record_error("AgentError: the model endpoint is down", "agent")
    assert result.task_id == "demo.press-button" and result.steps == 0
    with pytest.raises(gym.error.ResetNeeded):
        env.step(Action.wait(0))


def test_arguments_are_validated(demo, tmp_path):
    with pytest.raises(TypeError, match="out_dir must be a path, received int"):
        TrajectoryRecorder(demo, 3)
    with pytest.raises(ValueError, match=r"png_compress_level must be an int in \[0, 9\], received 11"):
        TrajectoryRecorder(demo, tmp_path, png_compress_level=11)


@pytest.mark.slow
def test_gymnasium_check_env_passes_on_the_recorded_env(tmp_path):
    env = TrajectoryRecorder(gym.make("GUI/Demo-v0"), tmp_path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env's advice to check the unwrapped env
            check_env(env)
    finally:
        env.close()
    assert any(tmp_path.glob("*/step_0000.png"))


def _nested(depth: int) -> dict:
    """What an agent gets from ``json.loads`` of a model's answer nested `depth` deep."""
    return json.loads('{"a": ' * depth + "1" + "}" * depth)


def test_any_action_an_agent_returns_is_recorded_bounded_and_the_episode_goes_on(demo, tmp_path):
    """The attack: a 600-deep JSON mapping as the action. The env refused it (right), then the
    record raised RecursionError and the agent's failure became an env error (the harness's
    ``recorder.step`` raised). Also a list that holds itself, a structure whose parts are
    shared (2**60 leaves written out) and a string of 10 MB."""
    shared = [1]
    for _ in range(60):
        shared = [shared, shared]
    looped: list = []
    looped.append(looped)
    env = TrajectoryRecorder(demo, tmp_path)
    env.reset(seed=0, options={"task_id": "demo.press-button"})
    for action in (_nested(600), looped, shared, "x" * 10_000_000):
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["action_error"] and not terminated and reward == 0.0
    terminated = False
    while not terminated:
        terminated = env.step(env.unwrapped.oracle_action())[2]
    lines = _lines(tmp_path / "demo.press-button__seed0")
    deep, loop, dag, long = (line["action"] for line in lines[1:5])
    assert "<cut: nested deeper than 100 levels>" in deep and deep.count('{"a": ') == 100
    assert loop == '["<cut: a container inside itself>"]'
    assert "<cut:" in dag and len(dag) < 70_000 and len(long) < 70_000 and long.endswith("more characters>")
    assert lines[-1]["terminated"] is True and read_result(tmp_path / "demo.press-button__seed0").success is True
