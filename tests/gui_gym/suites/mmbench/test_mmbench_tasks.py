"""The L1 and L2 envs end to end on the bundled sample: oracle 100%, random at chance, the
env contract, unparseable answers, and hand-computed edge cases through the env."""

from __future__ import annotations

import json
import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

import gui_gym  # noqa: F401
from gui_gym.actions import Action
from gui_gym.suites.mmbench.answers import EDGE_TOLERANCE, normalize_box

L1_ID, L2_ID = "GUI/MMBench-GUI-L1-v0", "GUI/MMBench-GUI-L2-v0"


@pytest.fixture(scope="module")
def l1_env():
    env = gym.make(L1_ID, data_root="sample", cache_size=32)
    yield env
    env.close()


@pytest.fixture(scope="module")
def l2_env():
    env = gym.make(L2_ID, data_root="sample", cache_size=32)
    yield env
    env.close()


def _run(env, task_id, action):
    env.reset(options={"task_id": task_id})
    return env.step(env.unwrapped.oracle_action() if action == "oracle" else action)


@pytest.mark.parametrize("env_name", ["l1_env", "l2_env"])
def test_oracle_scores_100_percent(env_name, request):
    env = request.getfixturevalue(env_name)
    task_ids = env.unwrapped.task_ids
    for task_id in task_ids:
        _, reward, terminated, truncated, info = _run(env, task_id, "oracle")
        assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True), task_id


def test_random_answers_score_at_chance(l1_env):
    base = l1_env.unwrapped
    l1_env.action_space.seed(0)
    questions = {t: base.suite.describe(t)["options_num"] for t in base.task_ids}
    rounds = 20
    hits = 0
    for _ in range(rounds):
        for task_id in questions:
            l1_env.reset(options={"task_id": task_id})
            action = l1_env.action_space.sample()
            assert action.kind == "answer" and action.text in "ABCDEF"
            hits += l1_env.step(action)[1]
    n = rounds * len(questions)
    chance = np.mean([1 / k for k in questions.values()])
    assert abs(hits / n - chance) <= 4 * math.sqrt(chance * (1 - chance) / n)


def _chance_of_box(box, size):
    """Share of whole-pixel clicks (what the action space samples) inside a normalized box."""
    width, height = size
    xs, ys = np.arange(width) / width, np.arange(height) / height
    inside_x = np.count_nonzero((xs >= box[0] - EDGE_TOLERANCE) & (xs <= box[2] + EDGE_TOLERANCE))
    inside_y = np.count_nonzero((ys >= box[1] - EDGE_TOLERANCE) & (ys <= box[3] + EDGE_TOLERANCE))
    return inside_x * inside_y / (width * height)


def test_random_clicks_score_at_chance(l2_env):
    base = l2_env.unwrapped
    l2_env.action_space.seed(0)
    chances, hits, rounds = [], 0, 20
    for task_id in base.task_ids:
        obs, _ = l2_env.reset(options={"task_id": task_id})
        height, width = obs["screenshot"].shape[:2]
        chances.append(_chance_of_box(normalize_box(base.task.target.bbox, (width, height)), (width, height)))
    for _ in range(rounds):
        for task_id in base.task_ids:
            l2_env.reset(options={"task_id": task_id})
            action = l2_env.action_space.sample()
            assert action.kind == "click"
            hits += l2_env.step(action)[1]
    n = rounds * len(chances)
    chance = float(np.mean(chances))
    assert 0 < chance < 0.2
    assert abs(hits / n - chance) <= 4 * math.sqrt(chance * (1 - chance) / n) + 1 / n


@pytest.mark.parametrize("env_id", [L1_ID, L2_ID])
def test_envs_pass_check_env(env_id):
    env = gym.make(env_id, data_root="sample")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_l1_observation_and_answers(l1_env):
    base = l1_env.unwrapped
    task_id = base.task_ids[0]
    obs, info = l1_env.reset(options={"task_id": task_id})
    question = base.task.question
    assert obs["screenshot"].shape == (720, 1280, 3)
    assert obs["instruction"].startswith(f"Question: {question.question}\nOptions:\nA. {question.options['A']}\n")
    assert obs["instruction"].endswith("Please select the correct answer from the options above.")
    assert info["domain"] == "os_web"
    right, wrong = question.answer, next(letter for letter in question.options if letter != question.answer)
    for output, reward in ((f"The answer is {right}.", 1.0), (right.lower(), 1.0), (f"Answer: {wrong}", 0.0),
                           (Action.answer(right), 1.0),
                           (f"Thought: easy.\nAction: finished(content='{right}')", 1.0)):
        _, got, terminated, _, info = _run(l1_env, task_id, output)
        assert (got, terminated, info["action_error"]) == (reward, True, None), output
    assert base.suite.describe(task_id) == {
        "task_id": task_id, "level": "L1", "domain": "os_web", "platform": "os_web", "app_name": question.app_name,
        "difficulty": question.difficulty, "options_num": len(question.options)}


@pytest.mark.parametrize("output, error", [
    ("I cannot tell", "found no option letter A-F in the answer 'I cannot tell'"),
    (Action.answer("no idea"), "found no option letter A-F in the answer 'no idea'"),
    (Action.click(10, 10), "this is a multiple-choice question"),
])
def test_unparseable_answers_are_misses_reported_in_info(l1_env, output, error):
    _, reward, terminated, truncated, info = _run(l1_env, l1_env.unwrapped.task_ids[0], output)
    assert (reward, terminated, truncated, info["score"]) == (0.0, True, False, 0.0)
    assert info["action_error"].startswith(error)


def test_unparseable_points_are_misses_reported_in_info(l2_env):
    _, reward, terminated, truncated, info = _run(l2_env, l2_env.unwrapped.task_ids[0], "the Send button")
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["action_error"].startswith("expected a point like '(x,y)'")


def test_modes_filter_like_the_official_loader():
    env = gym.make(L1_ID, data_root="sample", mode="hard")
    assert {env.unwrapped.suite.describe(t)["difficulty"] for t in env.unwrapped.task_ids} == {"hard"}
    env.close()
    env = gym.make(L2_ID, data_root="sample", mode="advanced")
    assert {env.unwrapped.suite.describe(t)["grounding_type"] for t in env.unwrapped.task_ids} == {"advanced"}
    env.close()
    with pytest.raises(ValueError, match=r"mode must be one of \('all', 'easy', 'medium', 'hard'\), received 'basic'"):
        gym.make(L1_ID, data_root="sample", mode="basic")


def test_report_hook_prints_the_official_tables(l1_env, l2_env):
    for env, heading in ((l1_env, "MMBench-GUI L1"), (l2_env, "MMBench-GUI L2")):
        suite = env.unwrapped.suite
        results = [{"task_id": t, "score": 1.0} for t in env.unwrapped.task_ids]  # facts filled in by the suite
        table = suite.report(results)
        assert table.startswith(heading) and "100.0" in table and " 0.0 " not in table


@pytest.fixture
def edge_root(tmp_path):
    """The official example screen (2560x1440) with its normalized box, and a pixel box."""
    folder = tmp_path / "MMBench-GUI"
    (folder / "offline_images" / "os_windows").mkdir(parents=True)
    Image.new("RGB", (2560, 1440), (255, 255, 255)).save(folder / "offline_images" / "os_windows" / "calendar.png")
    common = {"image_path": "calendar.png", "image_size": [2560, 1440], "platform": "os_windows",
              "app_name": "calendar", "data_type": "icon", "grounding_type": "basic"}
    records = [dict(common, index=0, instruction="The downward arrow button.", bbox=[0.3875, 0.1361, 0.3945, 0.1507]),
               dict(common, index=1, instruction="The year label.", bbox=[100, 200, 300, 260], data_type="text")]
    (folder / "L2_annotations.json").write_text(json.dumps(records))
    return tmp_path


# Box 0: normalized (0.3875, 0.1361, 0.3945, 0.1507) = pixels x 992..1009.92, y 195.984..217.008.
# Box 1: pixels (100, 200, 300, 260).
@pytest.mark.parametrize("task, output, context, reward", [
    (0, "(992, 196)", {}, 1.0),                            # left edge, pixels
    (0, "(991, 196)", {}, 0.0),
    (0, "(0.3875, 0.1361)", {}, 1.0),                      # top-left corner, normalized
    (0, "(0.3945, 0.1507)", {}, 1.0),                      # bottom-right corner, normalized
    (0, "(0.3946, 0.1507)", {}, 0.0),
    (0, "(388, 137)", {"coordinates": "relative1000"}, 1.0),   # (993.28, 197.28)
    (0, "(387, 137)", {"coordinates": "relative1000"}, 0.0),   # (990.72, 197.28)
    (1, "(300, 260)", {}, 1.0),                            # bottom-right corner of a pixel box
    (1, "(300.5, 260)", {}, 0.0),
    (1, "[100,200]", {}, 1.0),
    (1, "(1, 1)", {}, 0.0),                                # both <= 1: normalized, the bottom-right corner
    (1, "x: 0.05 y: 0.15", {}, 1.0),                       # normalized (128, 216)
    (1, "nothing", {}, 0.0),
])
def test_edge_cases_through_the_env(edge_root, task, output, context, reward):
    env = gym.make(L2_ID, data_root=edge_root, format_context=context)
    env.reset(options={"task_id": f"mmbench-l2.{task}"})
    assert env.step(output)[1] == reward
    env.close()


def test_answers_official_scores_what_the_official_parser_reads():
    """A UI-TARS answer naming the right letter: by default it scores; with answers="official"
    the letter read is the "A" opening its "Action:" line (open-compass/MMBench-GUI
    utils/misc.py:69-83 over the raw prediction, its l1_content_understanding.py:315-336),
    so it scores only where A is right. The report says which reading was used."""
    meant = gym.make(L1_ID, data_root="sample")
    official = gym.make(L1_ID, data_root="sample", answers="official")
    try:
        base = official.unwrapped
        answers = {t: base.suite.make_task(t, 0).question.answer for t in base.task_ids}
        task_a = next(t for t, letter in answers.items() if letter == "A")
        task_b = next(t for t, letter in answers.items() if letter != "A")
        for task_id, official_reward in ((task_a, 1.0), (task_b, 0.0)):
            output = f"Thought: I pick it.\nAction: finished(content='{answers[task_id]}')"
            assert _run(meant, task_id, output)[1] == 1.0
            _, reward, terminated, _, info = _run(official, task_id, output)
            assert (reward, terminated, info["action_error"]) == (official_reward, True, None)
        results = [{"task_id": task_b, "score": 0.0}]
        assert "answers read: official" in base.suite.report(results)
        assert "answers read: meant" in meant.unwrapped.suite.report(results)
    finally:
        meant.close()
        official.close()
    with pytest.raises(ValueError, match=r"answers='official' reads the whole output text, which only the 'choice' "
                                         r"action format keeps; received action_format='uitars'"):
        gym.make(L1_ID, data_root="sample", answers="official", action_format="uitars")
    with pytest.raises(ValueError, match=r"answers must be one of \('meant', 'official'\), received 'raw'"):
        gym.make(L1_ID, data_root="sample", answers="raw")
