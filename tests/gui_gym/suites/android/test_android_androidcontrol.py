"""AndroidControl-style offline replay: the loader, the modes, and the scores of a replay
agent (100%) and a random one (low)."""

from __future__ import annotations

import json
import shutil

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.actions import Action
from gui_gym.backends.android.elements import BoundingBox
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.android import load_episodes
from gui_gym.suites.android.androidcontrol import ENV_VAR, SAMPLE_DIR, load_episode
from gui_gym.suites.android.metrics import action_type


def run(env, policy) -> dict[str, dict]:
    """Every episode once; the task's summary per episode."""
    summaries = {}
    for task_id in env.unwrapped.task_ids:
        env.reset(options={"task_id": task_id})
        done = False
        while not done:
            _obs, reward, terminated, truncated, info = env.step(policy(env))
            done = terminated or truncated
        assert reward == info["score"] == env.unwrapped.task.summary["step_success_rate"]
        summaries[task_id] = env.unwrapped.task.summary
    return summaries


def test_the_bundled_sample_covers_every_androidcontrol_action_type():
    episodes = load_episodes(SAMPLE_DIR)
    assert len(episodes) == 5 and all(e.screen_size == (360, 800) for e in episodes)
    types = {action_type(step.gold) for e in episodes for step in e.steps}
    assert types == {"click", "long_press", "scroll", "input_text", "open_app", "navigate_home", "navigate_back", "wait"}
    assert all(step.elements and step.instruction for e in episodes for step in e.steps)


@pytest.mark.parametrize("mode", ["high", "low"])
def test_a_replay_agent_scores_100_percent(mode):
    env = gym.make("GUI/AndroidControl-v0", mode=mode)
    summaries = run(env, lambda e: e.unwrapped.oracle_action())
    assert all(s["step_success_rate"] == s["type_accuracy"] == s["grounding_accuracy"] == 1.0 for s in summaries.values())
    env.close()


def test_a_random_agent_scores_low():
    env = gym.make("GUI/AndroidControl-v0")
    env.action_space.seed(0)
    summaries = run(env, lambda e: e.action_space.sample())
    steps = sum(s["steps"] for s in summaries.values())
    successes = sum(s["step_success_rate"] * s["steps"] for s in summaries.values())
    assert steps == 23 and successes / steps < 0.2


def test_high_shows_the_goal_low_the_step_instruction():
    high = gym.make("GUI/AndroidControl-v0", mode="high")
    obs, info = high.reset(options={"task_id": "settings-wifi-off"})
    assert obs["instruction"] == info["instruction"] == "Turn off Wi-Fi."
    low = gym.make("GUI/AndroidControl-v0", mode="Low", observe_a11y=True)
    obs, _ = low.reset(options={"task_id": "settings-wifi-off"})
    assert obs["instruction"] == "Open the Settings app" and obs["app"] == "com.google.android.apps.nexuslauncher"
    obs, *_ = low.step({"action_type": "open_app", "app_name": "Settings"})
    assert obs["instruction"] == "Tap the Wi-Fi switch to turn it off" and obs["app"] == "com.android.settings"
    assert '"Wi-Fi"' in obs["a11y_tree"]


def test_predictions_by_element_index_and_misses():
    env = gym.make("GUI/AndroidControl-v0", observe_a11y=True)
    obs, _ = env.reset(options={"task_id": "settings-wifi-off"})
    env.step('{"action_type": "open_app", "app_name": "settings"}')
    wifi = next(i for i, e in enumerate(env.unwrapped.backend.current.elements) if e.text == "Wi-Fi")
    _obs, reward, _t, truncated, _i = env.step({"action_type": "click", "index": wifi})
    assert truncated and reward == 1.0
    env.reset(options={"task_id": "contacts-add-ada"})
    _obs, reward, _t, _tr, info = env.step("not an action")  # costs the step
    assert info["action_error"] and reward == 0.0
    _obs, reward, terminated, _tr, info = env.step({"action_type": "status", "goal_status": "complete"})
    assert terminated and reward == 0.0 and env.unwrapped.task.summary["steps"] == 7


def test_screens_keep_their_recorded_size(tmp_path):
    root, path = copy_episode(tmp_path)
    shutil.copytree(SAMPLE_DIR / "clock-timer-5min", root / "clock-timer-5min")
    for png in path.parent.glob("*.png"):  # the same episode, recorded on a half-size phone
        Image.open(png).resize((180, 400)).save(png)

    def halve(data):
        data["screen_size"] = [180, 400]
        for step in data["steps"]:
            step.pop("elements")
            if "x" in step["action"]:
                step["action"].update(x=step["action"]["x"] // 2, y=step["action"]["y"] // 2)
                step["target_box"] = [v // 2 for v in step["target_box"]]
    edit(path, halve)
    env = gym.make("GUI/AndroidControl-v0", data_dir=root)
    obs, _ = env.reset(options={"task_id": "settings-wifi-off"})
    assert obs["screenshot"].shape == (400, 180, 3) and env.unwrapped.action_space.screen_size == (180, 400)
    obs, _ = env.reset(options={"task_id": "clock-timer-5min"})
    assert obs["screenshot"].shape == (800, 360, 3)
    assert all(s["step_success_rate"] == 1.0 for s in run(env, lambda e: e.unwrapped.oracle_action()).values())


def test_the_env_passes_gymnasiums_checker():
    env = gym.make("GUI/AndroidControl-v0", observe_a11y=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs1, _ = env.reset(seed=3)
    obs2, _ = env.reset(seed=3)
    assert np.array_equal(obs1["screenshot"], obs2["screenshot"])


def copy_episode(tmp_path, episode="settings-wifi-off"):
    root = tmp_path / "episodes"
    shutil.copytree(SAMPLE_DIR / episode, root / episode)
    return root, root / episode / "episode.json"


def edit(path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("goal"), "goal must be a non-empty str, received None"),
    (lambda d: d["steps"][0].update(screenshot="missing.png"), r"steps\[0\].screenshot names 'missing.png'"),
    (lambda d: d["steps"][1].update(action={"action_type": "tap"}), r"steps\[1\].action: .*unknown action_type 'tap'"),
    (lambda d: d["steps"][1].update(action={"action_type": "keyboard_enter"}), r"steps\[1\].action is 'key'"),
    (lambda d: d["steps"][1].update(target_box=[1, 2]), r"steps\[1\].target_box must be \[x_min, y_min, x_max, y_max\]"),
    (lambda d: d["steps"][0].pop("step_instruction"), r"steps\[0\].step_instruction must be a string"),
    (lambda d: d.update(screen_size=[0, 5]), r"screen_size must be \[width, height\]"),
    (lambda d: d["steps"][1].update(action={"action_type": "click", "index": 99}), "indexes element 99"),
])
def test_malformed_episodes_name_the_file_and_field(tmp_path, change, message):
    root, path = copy_episode(tmp_path)
    edit(path, change)
    with pytest.raises(TaskConfigError, match=message):
        load_episodes(root)


def test_recorded_element_indices_and_derived_target_boxes(tmp_path):
    root, path = copy_episode(tmp_path)

    def by_index(data):
        data["steps"][1]["action"] = {"action_type": "click", "index": 1}  # the "Wi-Fi" title
        del data["steps"][1]["target_box"]
    edit(path, by_index)
    step = load_episode(path.parent).steps[1]
    assert step.target_box == BoundingBox(16, 260, 92, 120) and step.gold.point == (138.0, 106.0)
    edit(path, lambda d: d["steps"][1].update(action={"action_type": "click", "x": 300, "y": 110}))
    assert load_episode(path.parent).steps[1].target_box == BoundingBox(290, 344, 100, 132)  # the switch


def test_uiautomator_dumps_are_element_files_too(tmp_path):
    root, path = copy_episode(tmp_path)
    (path.parent / "01.xml").write_text(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        '<node index="0" text="Wi-Fi" class="android.widget.TextView" bounds="[16,92][260,120]"/></hierarchy>')
    edit(path, lambda d: d["steps"][1].update(elements="01.xml"))
    assert [e.text for e in load_episode(path.parent).steps[1].elements] == ["Wi-Fi"]


def test_where_the_episodes_come_from(tmp_path, monkeypatch):
    root, _ = copy_episode(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(root))
    assert gym.make("GUI/AndroidControl-v0").unwrapped.task_ids == ["settings-wifi-off"]
    with pytest.raises(MissingResourceError, match="data_dir points at '/nonexistent', which is not a folder"):
        gym.make("GUI/AndroidControl-v0", data_dir="/nonexistent")
    with pytest.raises(MissingResourceError, match="no <episode>/episode.json under"):
        gym.make("GUI/AndroidControl-v0", data_dir=tmp_path / "episodes" / "settings-wifi-off")
    (root / "copy").mkdir()
    shutil.copy(root / "settings-wifi-off" / "episode.json", root / "copy" / "episode.json")
    for png in (root / "settings-wifi-off").glob("*.*"):
        shutil.copy(png, root / "copy" / png.name)
    with pytest.raises(TaskConfigError, match="episode_id 'settings-wifi-off' appears twice"):
        load_episodes(root)
    with pytest.raises(ValueError, match=r"mode must be one of \('high', 'low'\), received 'mid'"):
        gym.make("GUI/AndroidControl-v0", mode="mid")


def test_actions_in_uitars_format():
    env = gym.make("GUI/AndroidControl-v0", action_format="uitars", format_context={"coordinates": "absolute"})
    env.reset(options={"task_id": "settings-wifi-off"})
    env.step("Action: open_app(app_name='Settings')")
    _obs, reward, *_ = env.step("Action: click(start_box='(140,104)')")
    assert reward == 1.0 and Action.click(140, 104) == env.unwrapped.backend.predictions[-1]
