"""The static backend, and GUIEnv over it: screens of changing size, actions recorded not
executed, one-step tasks ended by `Task.ended`."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env
from PIL import Image

from gui_gym.actions import Action
from gui_gym.backends.base import Backend
from gui_gym.backends.static import ScreenshotSpace, StaticBackend, load_screenshot
from gui_gym.env import GUIEnv
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.base import Episode, Task, TaskSuite


def _png(path, width: int, height: int, colour=(10, 20, 30)):
    Image.new("RGB", (width, height), colour).save(path)
    return path


def test_show_array_sets_screen_and_observation():
    backend = StaticBackend(screen_size=(64, 48))
    backend.start()
    backend.new_episode()
    assert backend.screen_size == (64, 48)
    assert backend.observe().screenshot.shape == (48, 64, 3)  # blank screen before anything is shown
    image = np.full((20, 30, 3), 7, np.uint8)
    backend.show(image, a11y_tree="[0] button \"OK\"")
    assert backend.screen_size == (30, 20)
    observation = backend.observe(a11y=True)
    assert observation.screenshot is image and observation.a11y_tree == "[0] button \"OK\""
    assert backend.observe(a11y=False).a11y_tree is None


def test_actions_are_recorded_not_executed_and_cleared_per_episode():
    backend = StaticBackend()
    backend.new_episode()
    backend.execute(Action.click(3, 4))
    backend.execute(Action.type("hello"))
    assert backend.actions == [Action.click(3, 4), Action.type("hello")]
    backend.new_episode()
    assert backend.actions == [] and backend.source is None


def test_show_file_caches_decoded_screens(tmp_path):
    first, second = _png(tmp_path / "a.png", 40, 30), _png(tmp_path / "b.png", 50, 20, (200, 0, 0))
    backend = StaticBackend(cache_size=1)
    backend.new_episode()
    backend.show(first)
    shown = backend.observe().screenshot
    assert backend.screen_size == (40, 30) and backend.source == str(first)
    assert tuple(shown[0, 0]) == (10, 20, 30) and not shown.flags.writeable
    backend.show(first)
    assert backend.observe().screenshot is shown  # decoded once
    backend.show(second)
    assert backend.screen_size == (50, 20)
    backend.show(first)
    assert backend.observe().screenshot is not shown  # evicted by the second file (cache of one)


def test_bad_screens_fail_precisely(tmp_path):
    backend = StaticBackend()
    with pytest.raises(MissingResourceError, match=r"screenshot .*missing\.png does not exist"):
        backend.show(tmp_path / "missing.png")
    (tmp_path / "bad.png").write_text("not an image")
    with pytest.raises(TaskConfigError, match=r"bad\.png is not a readable image"):
        load_screenshot(tmp_path / "bad.png")
    with pytest.raises(TaskConfigError, match=r"expected a screenshot as an HxWx3 uint8 array or an image path, "
                                              r"received ndarray of shape \(4, 4\)"):
        backend.show(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match=r"screen_size must be positive"):
        StaticBackend(screen_size=(0, 10))


def test_screenshot_space_admits_any_size():
    space = ScreenshotSpace(sample_size=(8, 6), seed=1)
    assert space.contains(np.zeros((1080, 1920, 3), np.uint8))
    assert space.contains(np.zeros((2556, 1179, 3), np.uint8))
    assert not space.contains(np.zeros((10, 10, 3), np.float32))
    assert not space.contains(np.zeros((10, 10, 4), np.uint8))
    assert not space.contains([[0, 0, 0]])
    sample = space.sample()
    assert sample.shape == (6, 8, 3) and space.contains(sample)


class _Recorded(Task):
    """Point at the red square of a recorded screen; the first output ends the episode."""

    def __init__(self, task_id: str, path):
        self.task_id, self.path, self.instruction, self.domain = task_id, path, "Click the square.", "test"
        self.max_steps, self.metadata = 5, {}

    def setup(self, backend: Backend) -> None:
        backend.show(self.path)

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        width, _ = backend.screen_size
        points = [a.point for a in episode.actions if a.point is not None]
        return float(bool(points) and points[-1][0] < width / 2)

    def oracle(self, backend: Backend) -> Iterator[Action]:
        yield Action.click(1, 1)

    def ended(self, backend: Backend, episode: Episode) -> bool:
        return True


class _Suite(TaskSuite):
    name = "recorded"

    def __init__(self, paths):
        self.paths = paths

    @property
    def task_ids(self):
        return list(self.paths)

    def make_task(self, task_id: str, seed: int) -> Task:
        self.check_task_id(task_id)
        return _Recorded(task_id, self.paths[task_id])


@pytest.fixture
def recorded_env(tmp_path):
    paths = {"wide": _png(tmp_path / "wide.png", 200, 100), "tall": _png(tmp_path / "tall.png", 100, 300)}

    def make(**kwargs) -> GUIEnv:
        return GUIEnv(StaticBackend(), _Suite(paths), action_format="uitars",
                      format_context={"coordinates": "relative1000"}, **kwargs)

    env = make()
    # as the registered ids are: info carries wall-clock timings (see gui_gym/env.py)
    env.spec = EnvSpec("Test/Recorded-v0", entry_point=make, nondeterministic=True)
    yield env
    env.close()


def test_env_follows_the_size_of_each_recording(recorded_env):
    obs, _ = recorded_env.reset(options={"task_id": "wide"})
    assert obs["screenshot"].shape == (100, 200, 3)
    assert recorded_env.observation_space.contains(obs)
    assert recorded_env.action_space.screen_size == (200, 100)
    _, reward, terminated, truncated, info = recorded_env.step("Action: click(start_box='(500,500)')")
    assert info["parsed_action"] == {"kind": "click", "x": 100.0, "y": 50.0}  # 0-1000 mapped on 200x100
    assert (reward, terminated, truncated) == (0.0, True, False)  # ended by the task after one output
    assert recorded_env.backend.actions == [Action.click(100, 50)]
    obs, _ = recorded_env.reset(options={"task_id": "tall"})
    assert obs["screenshot"].shape == (300, 100, 3)
    _, reward, terminated, _, info = recorded_env.step("Action: click(start_box='(100,500)')")
    assert info["parsed_action"] == {"kind": "click", "x": 10.0, "y": 150.0}  # same grid, the new size
    assert (reward, terminated) == (1.0, True)


def test_unparseable_output_still_ends_a_one_step_task(recorded_env):
    recorded_env.reset(options={"task_id": "wide"})
    _, reward, terminated, truncated, info = recorded_env.step("no action here")
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert "expected an action call" in info["action_error"] and info["score"] == 0.0


def test_a_fixed_screen_size_in_format_context_is_kept(tmp_path):
    env = GUIEnv(StaticBackend(), _Suite({"wide": _png(tmp_path / "w.png", 200, 100)}), action_format="uitars",
                 format_context={"coordinates": "relative1000", "screen_size": (1000, 1000)})
    env.reset(options={"task_id": "wide"})
    _, _, _, _, info = env.step("Action: click(start_box='(500,500)')")
    assert info["parsed_action"] == {"kind": "click", "x": 500.0, "y": 500.0}
    env.close()


def test_env_over_static_backend_passes_check_env(recorded_env):
    check_env(recorded_env, skip_render_check=True)


def test_text_only_observations_capture_nothing_and_the_space_says_so(tmp_path):
    paths = {"wide": _png(tmp_path / "wide.png", 200, 100)}
    env = GUIEnv(StaticBackend(), _Suite(paths), observe_a11y=True, observe_screenshot=False, render_mode="rgb_array")
    obs, _ = env.reset(seed=0, options={"task_id": "wide"})
    assert "screenshot" not in env.observation_space.spaces and "screenshot" not in obs
    assert obs in env.observation_space and env.render() is None
    assert env.backend.observe(screenshot=False).screenshot is None
    obs, *_ = env.step(Action.click(1, 1))
    assert obs in env.observation_space and "screenshot" not in obs
