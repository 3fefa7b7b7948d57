"""The PAGE trainer: hierarchical advantages from the wrappers' info (hand-computed), and the
loop on GUI/Demo-v0 with the oracle judge and with an LVLM judge behind a loopback chat
server."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.policies.element import ElementPolicy
from gui_gym.judges import CriteriaStore
from tests.fakes.chat_server import ChatServer
from gui_gym.trainers.page import PAGEConfig, page_advantages, train
from gui_gym.trainers.rollout import Rollout, Step

R2 = 0.5**0.5


def rollout(progress, subtasks, owner, score=0.0) -> Rollout:
    final = {"progress": progress, "subtasks": subtasks, "subtask_of_step": owner, "score": score,
             "success": score >= 1.0}
    steps = [Step(token_ids=(0,), logprobs=(0.0,)) for _ in range(len(owner) - 1)]
    return Rollout(task_id="t", seed=0, instruction="i", steps=steps + [Step(token_ids=(0,), logprobs=(0.0,), info=final)])


def span(description, start, end, completed):
    return {"description": description, "start": start, "end": end, "completed": completed}


GROUP = [rollout(1.0, [span("A", 0, 1, True), span("B", 2, 2, True)], [0, 0, 1], score=1.0),
         rollout(0.5, [span("A", 0, 0, True), span("B", 1, 2, False)], [0, 1, 1])]


def test_hierarchical_advantages_from_info_by_hand():
    # progress [1, .5]: inter +-0.7071; rollout 0 completes both spans (intra 0); rollout 1: u = [1, 0], mean .5
    adv = page_advantages(GROUP, lam=0.5, norm_std=True)  # docs/algorithms.md, PAGE definition 3
    assert adv[0] == pytest.approx([R2] * 3, abs=1e-4)
    assert adv[1] == pytest.approx([-R2 + 0.25, -R2 - 0.25, -R2 - 0.25], abs=1e-4)
    signed = page_advantages(GROUP, lam=0.5, intra_mode="signed", norm_std=True)
    assert signed[0] == pytest.approx([R2 + 0.5] * 3, abs=1e-4)
    assert signed[1] == pytest.approx([-R2 + 0.5, -R2 - 0.5, -R2 - 0.5], abs=1e-4)
    # across the group: span A is always completed (0), B once in two (+.5 / -.5)
    normed = page_advantages(GROUP, lam=1.0, group_norm_spans=True, norm_std=True)
    assert normed[0] == pytest.approx([R2, R2, R2 + 0.5], abs=1e-4)
    assert normed[1] == pytest.approx([-R2, -R2 - 0.5, -R2 - 0.5], abs=1e-4)


def test_a_missing_judgement_falls_back_to_the_score_and_no_intra_term():
    group = [rollout(None, None, [0, 0], score=1.0), rollout(0.0, None, [0])]
    adv = page_advantages(group, norm_std=True)
    assert adv[0] == pytest.approx([R2, R2], abs=1e-4) and adv[1] == pytest.approx([-R2], abs=1e-4)
    assert page_advantages([rollout(0.25, [], [-1, -1]), rollout(0.25, [], [-1])]) == [[0.0, 0.0], [0.0]]


def test_options_are_checked():
    with pytest.raises(ValueError, match="intra_mode must be 'centered' or 'signed'"):
        PAGEConfig(intra_mode="both")
    with pytest.raises(ValueError, match="judge must be one of"):
        PAGEConfig(judge="gpt")


def make_demo():
    return gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2)


@pytest.mark.slow
def test_page_trains_on_oracle_progress():
    cfg = PAGEConfig(tasks=("demo.fill-form",), iterations=1, group_size=2, pool_size=2, tensorboard=False)
    (record,) = train(cfg, ElementPolicy(), make_demo)
    assert 0.0 <= record["charts/progress"] <= 1.0 and "losses/policy_loss" in record
    assert record["tasks/demo.fill-form/progress"] == record["charts/progress"]


def lvlm_judge(request) -> str:
    """Answers PAGE's questions as an LVLM judge would: spans covering every step, and every
    listed claim or criterion marked, the first met and the rest not."""
    text = "".join(p.get("text", "") for m in request.messages for p in
                   (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]))
    if "Split the agent's steps" in text:
        last = int(re.search(r"steps 0\.\.(\d+)", text).group(1))
        return '{"subtasks": [{"description": "work", "start": 0, "end": %d}]}' % last
    count = len(re.findall(r"^\d+\. ", text.split("Criteria:")[-1], flags=re.M))
    return '{"met": [%s]}' % ", ".join(["true"] + ["false"] * (count - 1))


@pytest.mark.slow
def test_page_trains_with_an_lvlm_judge_over_http(tmp_path):
    CriteriaStore(tmp_path).put("demo.read-code", ["the code is visible", "the code was answered"])
    with ChatServer(lvlm_judge) as server:
        cfg = PAGEConfig(tasks=("demo.read-code",), iterations=1, group_size=2, judge="openai", rounds=1,
                         judge_base_url=server.base_url, judge_model="judge", criteria_store=str(tmp_path),
                         tensorboard=False)
        (record,) = train(cfg, ElementPolicy(), make_demo)
    assert record["charts/progress"] == 0.5  # one criterion of two, as the judge said
    assert record["charts/success_rate"] == 0.0 and len(server.requests) >= 4  # marks and segmentation, both rollouts


def test_an_lvlm_judges_rounds_sample_at_a_temperature_above_zero(caplog):
    from gui_gym.trainers.page import make_judge

    cfg = PAGEConfig(judge="openai", judge_base_url="http://127.0.0.1:9/v1", judge_model="judge")
    assert cfg.judge_temperature == 0.7 and make_judge(cfg).temperature == 0.7
    assert make_judge(PAGEConfig(judge="openai", judge_base_url="http://127.0.0.1:9/v1", judge_model="judge",
                                 judge_temperature=1.0)).temperature == 1.0
    with pytest.raises(ValueError, match="judge_temperature must be >= 0, received -0.5"):
        PAGEConfig(judge_temperature=-0.5)
    with caplog.at_level("WARNING"):
        PAGEConfig(judge="transformers", judge_model="m", judge_temperature=0.0, rounds=3)
    assert "the rounds are identical calls" in caplog.text


def test_default_weighting_keeps_every_steps_sign_with_its_subtask():
    """The issue's group: 2 rollouts reach milestone 2 of 4 (progress .5) and wander in the
    third span, 6 stop at milestone 1 (progress .25) after a correct first step. mean .3125,
    deviations +.1875 / -.0625, unbiased std sqrt(.09375 / 7) = .115728."""
    from gui_gym.trainers.page import advantage_fn

    leader = rollout(0.5, [span("A", 0, 0, True), span("B", 1, 1, True), span("C", 2, 3, False)], [0, 1, 2, 2])
    follower = rollout(0.25, [span("A", 0, 0, True), span("B", 1, 3, False)], [0, 1, 1, 1])
    group = [leader] * 2 + [follower] * 6
    literal = advantage_fn(PAGEConfig(inter_norm_std=True))(group)
    # A_inter / std outweighs lambda A_intra: the leaders' failed span gets +1.29, the followers' done one -0.29
    assert literal[0] == pytest.approx([1.62019 + 1 / 6] * 2 + [1.62019 - 1 / 3] * 2, abs=1e-4)
    assert literal[2] == pytest.approx([-0.54006 + 0.25] + [-0.54006 - 0.25] * 3, abs=1e-4)
    assert literal[0][2] == pytest.approx(1.29, abs=0.005) and literal[2][0] == pytest.approx(-0.29, abs=0.005)
    default = advantage_fn(PAGEConfig())(group)  # A_inter = p - mean, on the scale of lambda A_intra
    assert default[0] == pytest.approx([0.1875 + 1 / 6] * 2 + [0.1875 - 1 / 3] * 2)
    assert default[2] == pytest.approx([-0.0625 + 0.25] + [-0.0625 - 0.25] * 3)
    assert all((a > 0) == done for adv, owner, spans in ((default[0], [0, 1, 2, 2], [1, 1, 0]),
                                                          (default[2], [0, 1, 1, 1], [1, 0]))
               for a, done in zip(adv, (bool(spans[m]) for m in owner)))
    # a group whose progress is equal carries exactly no signal, not rounding error over eps
    equal = [rollout(1 / 7, [], [-1])] * 8
    assert advantage_fn(PAGEConfig(inter_norm_std=True))(equal) == [[0.0]] * 8
