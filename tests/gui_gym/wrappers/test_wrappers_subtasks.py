"""`SubtaskAnnotation` on GUI/Demo-v0: oracle spans from milestones, LVLM segmentation and
verification through a loopback chat server, failures recorded as such, check_env."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401 - registers the ids
from gui_gym import Action
from gui_gym.judges import OracleJudge
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.wrappers.progress import ProgressReward
from gui_gym.wrappers.subtasks import SubtaskAnnotation
from tests.fakes.chat_server import ChatServer

FORM = "demo.fill-form"


@pytest.fixture(scope="module")
def base():
    env = gym.make("GUI/Demo-v0")
    yield env
    env.close()


def episode(env, actions, task_id=FORM, seed=0):
    env.reset(seed=seed, options={"task_id": task_id})
    infos = []
    for action in actions:
        *_, terminated, truncated, info = env.step(action(env) if callable(action) else action)
        infos.append(info)
        if terminated or truncated:
            return infos
    raise AssertionError("the episode did not end")


def click(selector):
    def act(env):
        x, y, w, h = env.unwrapped.backend.locate(selector)
        return Action.click(x + w / 2, y + h / 2)
    return act


WRONG_NAME = [click("#name"), Action.type("Nobody"), Action.wait(0.0), click("#send"), Action.done()]


def test_oracle_spans_end_where_the_next_milestone_first_holds(base):
    infos = episode(SubtaskAnnotation(base), WRONG_NAME)
    assert all("subtasks" not in info for info in infos[:-1])
    last = infos[-1]
    assert last["subtasks"] == [
        {"description": "the form was submitted", "start": 0, "end": 3, "completed": True},
        {"description": "the submission is right", "start": 4, "end": 4, "completed": False}]
    assert last["subtask_of_step"] == [0, 0, 0, 0, 1] and last["subtask_error"] is None


def test_the_oracle_solution_completes_every_subtask(base):
    env = SubtaskAnnotation(base)
    infos = episode(env, [lambda e: e.unwrapped.oracle_action()] * 50)
    (span,) = infos[-1]["subtasks"]
    assert span == {"description": "the form was submitted; the submission is right", "start": 0,
                    "end": len(infos) - 1, "completed": True}
    assert infos[-1]["subtask_of_step"] == [0] * len(infos) and len(env.trajectory) == len(infos)
    (span,) = episode(env, [Action.answer("000000")], task_id="demo.read-code")[-1]["subtasks"]
    assert span["description"].startswith("What is the one-time code") and span["completed"] is False


def test_an_lvlm_annotator_segments_and_verifies(base):
    with ChatServer(['{"subtasks": [{"description": "type a name", "start": 0, "end": 2}, '
                      '{"description": "send the form", "start": 3, "end": 4}]}',
                      '{"met": [true, true]}']) as server:
        judge = OpenAIClient("m", server.base_url)
        info = episode(SubtaskAnnotation(base, judge), WRONG_NAME)[-1]
        judge.close()
    assert info["subtasks"] == [{"description": "type a name", "start": 0, "end": 2, "completed": True},
                                {"description": "send the form", "start": 3, "end": 4, "completed": True}]
    assert info["subtask_of_step"] == [0, 0, 0, 1, 1]
    assert len(server.requests[0].images()) == 6  # the start screen and one after each of the 5 steps


def test_an_annotator_that_answers_off_format_leaves_no_subtasks(base):
    with ChatServer(["Step 0-2: typing. Step 3-4: sending."] * 3) as server:
        judge = OpenAIClient("m", server.base_url)
        info = episode(SubtaskAnnotation(base, judge), WRONG_NAME)[-1]
        judge.close()
    assert info["subtasks"] is None and info["subtask_of_step"] is None
    assert "off-format 3 time(s)" in info["subtask_error"]


def test_wrappers_compose_and_keep_the_base_keys(base):
    bare = episode(base, WRONG_NAME)[-1]
    both = episode(ProgressReward(SubtaskAnnotation(base), OracleJudge()), WRONG_NAME)[-1]
    assert set(both) - set(bare) == {"subtasks", "subtask_of_step", "subtask_error", "progress",
                                     "progress_per_criterion", "progress_errors", "env_reward"}
    assert {k: both[k] for k in ("success", "score", "task_id", "parsed_action")} == {
        k: bare[k] for k in ("success", "score", "task_id", "parsed_action")}


class CountingOracle(OracleJudge):
    def __init__(self):
        super().__init__()
        self.probes = 0

    def probe(self, env):
        self.probes += 1
        return super().probe(env)


def test_one_judge_for_both_wrappers_records_the_episode_once(base):
    """PAGE's stack with one judge: `ProgressReward` reads `SubtaskAnnotation`'s record, so
    the env is probed once per step (and at reset), and the answers are those of two judges."""
    two = episode(ProgressReward(SubtaskAnnotation(base), OracleJudge()), WRONG_NAME)[-1]
    judge = CountingOracle()
    env = ProgressReward(SubtaskAnnotation(base, judge), judge)
    one = episode(env, WRONG_NAME)[-1]
    assert judge.probes == 1 + len(WRONG_NAME) and env.keeper is env.env.keeper
    assert {k: one[k] for k in ("progress", "subtasks", "subtask_of_step")} == {
        k: two[k] for k in ("progress", "subtasks", "subtask_of_step")}


def test_the_default_annotator_is_the_oracle_and_bad_ones_are_refused(base):
    assert isinstance(SubtaskAnnotation(base).annotator, OracleJudge)
    with pytest.raises(TypeError, match="expected a ChatModel .* or a TrajectoryJudge .*, received dict"):
        SubtaskAnnotation(base, {"model": "x"})


@pytest.mark.slow
def test_gymnasium_check_env_passes_on_the_wrapped_env():
    env = SubtaskAnnotation(gym.make("GUI/Demo-v0"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env's advice to check the unwrapped env
            check_env(env)
    finally:
        env.close()
