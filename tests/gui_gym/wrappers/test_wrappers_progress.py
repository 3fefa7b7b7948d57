"""`ProgressReward` on GUI/Demo-v0: oracle progress along the oracle's prefixes, delta
rewards, LVLM judging through a loopback chat server, judge errors never becoming reward,
criteria from the store, check_env."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401 - registers the ids
from gui_gym import Action
from gui_gym.env import GUIEnv
from gui_gym.errors import MissingResourceError
from gui_gym.judges import CriteriaStore, NoisyOracleJudge, OracleJudge
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.wrappers.progress import ProgressReward
from gui_gym.wrappers.subtasks import SubtaskAnnotation
from tests.fakes.chat_server import ChatServer

FORM = "demo.fill-form"
CRITERIA = ["the name is typed", "the colour is chosen", "the form is sent"]


@pytest.fixture(scope="module")
def base():
    env = gym.make("GUI/Demo-v0")
    yield env
    env.close()


def run(env, actions, task_id=FORM, seed=0):
    """Reset, then step through `actions` (callables of the env give live oracle actions)
    until the episode ends; returns every step's (reward, info)."""
    env.reset(seed=seed, options={"task_id": task_id})
    out = []
    for action in actions:
        *_, reward, terminated, truncated, info = env.step(action(env) if callable(action) else action)
        out.append((reward, info))
        if terminated or truncated:
            return out
    raise AssertionError("the episode did not end")


def oracle(env):
    return env.unwrapped.oracle_action()


def wrong_name_submission(env):
    backend = env.unwrapped.backend
    x, y, w, h = backend.locate("#name")
    yield Action.click(x + w / 2, y + h / 2)
    yield Action.type("Nobody")
    x, y, w, h = backend.locate("#send")
    yield Action.click(x + w / 2, y + h / 2)
    yield Action.done()


@pytest.mark.slow
def test_oracle_progress_rises_monotonically_along_the_oracle_prefixes_of_every_task(base):
    # the oracle judge reads the page's state, not pixels: the module's browser runs text-only
    text_only = GUIEnv(base.unwrapped.backend, base.unwrapped.suite, observe_screenshot=False)
    env = ProgressReward(SubtaskAnnotation(text_only), OracleJudge())
    for task_id in base.unwrapped.task_ids:
        length = len(run(env, [oracle] * 50, task_id)) - 1  # the oracle's actions before its terminal one
        finals = []
        for k in range(length + 2):  # k oracle actions then giving up; last, the whole solution
            steps = run(env, [oracle] * k + [Action.fail()] if k <= length else [oracle] * 50, task_id)
            reward, info = steps[-1]
            assert info["progress"] == reward and info["progress_errors"] == []
            finals.append(info["progress"])
        assert all(a <= b for a, b in zip(finals, finals[1:])), (task_id, finals)
        assert finals[0] == 0.0 and finals[-1] == 1.0 and steps[-1][1]["success"], (task_id, finals)


def test_progress_counts_the_milestones_reached_by_a_failed_episode(base):
    env = ProgressReward(base, OracleJudge())
    env.reset(seed=0, options={"task_id": FORM})
    actions = wrong_name_submission(base)
    steps = [env.step(next(actions)) for _ in range(4)]
    assert [s[1] for s in steps] == [0.0, 0.0, 0.0, 0.5]
    info = steps[-1][4]
    assert not info["success"] and info["env_reward"] == 0.0
    assert info["progress"] == 0.5 and info["progress_per_criterion"] == [1.0, 0.0]
    assert "progress" not in steps[0][4]


def test_delta_mode_rewards_the_change_and_sums_to_the_final_progress(base):
    plain = run(base, [oracle] * 50)
    env = ProgressReward(base, OracleJudge(), mode="delta")
    steps = run(env, [oracle] * 50)
    progress = [info["progress"] for _, info in steps]
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert [reward for reward, _ in steps] == [b - a for a, b in zip([0.0] + progress, progress)]
    assert sum(reward for reward, _ in steps) == 1.0
    for (_, wrapped), (_, bare) in zip(steps, plain):
        assert set(bare) <= set(wrapped) and wrapped["parsed_action"] == bare["parsed_action"]
    assert steps[-1][1]["env_reward"] == plain[-1][0] == 1.0


def test_an_lvlm_judge_marks_the_stored_criteria_in_independent_rounds(base, tmp_path):
    CriteriaStore(tmp_path).put(FORM, CRITERIA)
    answers = ['{"met": [true, true, false]}', '{"met": [true, false, false]}', '{"met": [true, true, true]}']
    with ChatServer(answers * 2) as server:
        judge = OpenAIClient("m", server.base_url)
        env = ProgressReward(base, judge, criteria_store=tmp_path, rounds=3)
        reward, info = run(env, wrong_name_submission(base), seed=5)[-1]
        assert env.criteria == CRITERIA
        assert info["progress_per_criterion"] == pytest.approx([1.0, 2 / 3, 1 / 3])
        assert reward == info["progress"] == pytest.approx(2 / 3)
        first_seeds = [request.body["seed"] for request in server.requests]
        run(env, wrong_name_submission(base), seed=5)
        judge.close()
    assert len(set(first_seeds)) == 3 and [r.body["seed"] for r in server.requests[3:]] == first_seeds
    text = "".join(p.get("text", "") for p in server.requests[0].body["messages"][1]["content"])
    assert "1. the name is typed\n2. the colour is chosen\n3. the form is sent" in text


def test_off_format_judging_is_recorded_and_never_becomes_reward(base, tmp_path):
    CriteriaStore(tmp_path).put(FORM, CRITERIA)
    with ChatServer(["All criteria are met!"] * 9) as server:
        judge = OpenAIClient("m", server.base_url)
        env = ProgressReward(base, judge, criteria_store=tmp_path, rounds=2)
        reward, info = run(env, wrong_name_submission(base))[-1]
        delta = ProgressReward(base, judge, criteria_store=tmp_path, rounds=1, mode="delta")
        delta.reset(seed=0, options={"task_id": FORM})
        _, delta_reward, *_, delta_info = delta.step(Action.wait(0.0))
        judge.close()
    assert info["progress"] is None and reward == info["env_reward"] == 0.0
    assert len(info["progress_errors"]) == 2 and "off-format 3 time(s)" in info["progress_errors"][0]
    assert delta_info["progress"] is None and delta_reward == 0.0
    assert len(server.requests) == 9  # each round asked 3 times, then recorded


def test_env_success_forces_full_progress_without_asking_the_judge(base, tmp_path):
    CriteriaStore(tmp_path).put(FORM, CRITERIA)
    with ChatServer() as server:
        judge = OpenAIClient("m", server.base_url)
        reward, info = run(ProgressReward(base, judge, criteria_store=tmp_path), [oracle] * 50)[-1]
        judge.close()
    assert info["success"] and reward == info["progress"] == 1.0 and server.requests == []


def test_a_task_without_criteria_fails_at_reset_saying_how_to_build_them(base, tmp_path):
    with ChatServer() as server:
        judge = OpenAIClient("m", server.base_url)
        with pytest.raises(MissingResourceError, match=r"no progress criteria for task 'demo.fill-form' in the criteria "
                                                       r"store .*; build them .* with `gui-bench criteria"):
            ProgressReward(base, judge, criteria_store=tmp_path).reset(seed=0, options={"task_id": FORM})
        with pytest.raises(MissingResourceError, match="in no criteria store"):
            ProgressReward(base, judge).reset(seed=0, options={"task_id": FORM})
        judge.close()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"rounds": 0}, ValueError, "rounds must be an integer >= 1, received 0"),
    ({"rounds": True}, ValueError, "rounds must be an integer >= 1, received True"),
    ({"aggregate": "median"}, ValueError, r"aggregate must be one of \('mean', 'majority'\), received 'median'"),
    ({"mode": "dense"}, ValueError, r"mode must be one of \('final', 'delta'\), received 'dense'"),
    ({"judge": "gpt-4o"}, TypeError, "expected a ChatModel .* or a TrajectoryJudge .*, received str"),
])
def test_bad_arguments_are_refused(base, kwargs, error, match):
    with pytest.raises(error, match=match):
        ProgressReward(base, **{"judge": OracleJudge(), **kwargs})


def test_noisy_rounds_average_out(base):
    env = ProgressReward(base, NoisyOracleJudge(0.3, seed=1), rounds=25, aggregate="majority")
    reward, info = run(env, wrong_name_submission(base), seed=3)[-1]
    assert info["progress_per_criterion"] == [1.0, 0.0] and reward == 0.5


@pytest.mark.slow
def test_gymnasium_check_env_passes_on_the_wrapped_env():
    env = ProgressReward(SubtaskAnnotation(gym.make("GUI/Demo-v0")), OracleJudge(), mode="delta")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env's advice to check the unwrapped env
            check_env(env)
    finally:
        env.close()
