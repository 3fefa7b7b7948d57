"""Branching rollouts: the branch point of a stuck group, and the loop's continuation groups on
GUI/Demo-v0 (restored from a snapshot, only the steps after it trained, replays counted)."""

from __future__ import annotations

import math
import re

import gymnasium as gym
import pytest
import torch

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.base import Act, Context, TrainableAgent
from gui_gym.benchmarks.learning.group_tree import load_groups, render
from gui_gym.actions import Action
from gui_gym.trainers.branching import branch_point, continuation_steps
from gui_gym.trainers.grpo import GRPOConfig, outcome_advantages, run
from gui_gym.trainers.rollout import BranchPoint, EnvPool, Rollout, Step


def rollout(points: list[tuple[int, int]], score: float = 0.0, steps: int = 4) -> Rollout:
    info = {"success": score >= 1.0, "score": score}
    return Rollout(task_id="t", seed=0, instruction="i", steps=[Step(info=info) for _ in range(steps)],
                   branch_points=[BranchPoint({"at": step}, (), step, count) for step, count in points])


def test_the_branch_point_is_the_earliest_state_at_the_deepest_milestone_of_a_stuck_group():
    group = [rollout([(1, 1), (3, 2)]), rollout([(2, 1), (2, 2)]), rollout([])]
    assert branch_point(group).snapshot == {"at": 2}  # 2 milestones, reached first at step 2
    assert branch_point([rollout([]), rollout([])]) is None  # no milestone reached: nothing to branch from
    assert branch_point([rollout([(1, 1)]), rollout([], score=1.0)]) is None  # a success: the group has signal
    continuation = rollout([], steps=3)
    continuation.branch = BranchPoint({}, (), 5, 1)
    assert continuation_steps([continuation, rollout([], steps=4)]) == 3 + 5 + 4


class SubmitThenWait(TrainableAgent, torch.nn.Module):
    """Presses the demo form's Send at once (the submission is empty: one milestone of two),
    then waits; a trainable agent with one token per step."""

    action_format = "json"

    def __init__(self) -> None:
        super().__init__()
        self.logit = torch.nn.Parameter(torch.zeros(2))
        self.histories: list[int] = []

    def prompt(self, obs, context: Context):
        self.histories.append(context.step)
        send = re.search(r'\[(\d+)\] button "Send"', obs["a11y_tree"])
        return (context.step, int(send.group(1)) if send else None)

    def generate(self, prompt, *, greedy: bool = False) -> Act:
        step, send = prompt
        action = Action.click_element(send) if step == 0 and send is not None else Action.wait(0.0)
        return Act(action, "", (0,), (math.log(0.5),))

    def logprobs(self, prompts, token_ids):
        return [torch.log_softmax(self.logit, 0)[list(t)] for t in token_ids]

    def save(self, folder: str) -> None:
        torch.save(self.state_dict(), f"{folder}/weights.pt")


@pytest.mark.slow
def test_a_stuck_group_gets_a_group_of_continuations_from_its_deepest_milestone(tmp_path):
    groups: list[list[Rollout]] = []

    def advantages(group):
        groups.append(list(group))
        return outcome_advantages(group)

    policy = SubmitThenWait()
    cfg = GRPOConfig(tasks=("demo.fill-form",), iterations=3, episode_budget=4, group_size=2, pool_size=2,
                     tensorboard=False, branching="unreached_milestone", run_dir=str(tmp_path))
    with EnvPool(lambda: gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=3), 2) as pool:
        records = run(cfg, policy, pool, advantages=advantages)
    assert len(records) == 1 and records[0]["branch/groups"] == 1 and records[0]["charts/episodes"] == 4
    assert records[0]["branch/from_step"] == 1 and records[0]["branch/milestones"] == 1
    assert records[0]["charts/env_steps"] == 2 * 3 + 2 * (1 + 2)  # the continuations' replayed prefix counted
    whole, branched = groups
    assert [r.source for r in whole] == ["on_policy"] * 2 and [r.source for r in branched] == ["branch"] * 2
    assert [len(r) for r in branched] == [2, 2] and all(r.branch.step == 1 for r in branched)
    assert policy.histories.count(1) == 4  # step 1 prompted in both episodes and both continuations (history 1)
    assert [r.score for r in branched] == [0.0, 0.0] and "losses/policy_loss" in records[0]

    (tree,) = load_groups(tmp_path)  # the tree the viewer draws
    assert (tree["parent"], tree["from_step"], tree["milestones"]) == (0, 1, 1)
    assert [e["steps"] for e in tree["episodes"]] == [3, 3] and [c["steps"] for c in tree["continuations"]] == [2, 2]
    assert tree["episodes"][0]["actions"][0].startswith("click") and tree["continuations"][0]["actions"][0].startswith("wait")
    page = render([tree])
    assert page.count("continuation ") == 2 and "snapshot after step 1: 1 milestone(s)" in page
