"""The BEPA trainer: LEVEL-2 as the loop's mixer, plans from a task or from a judge reading
the expert's trajectory, and LEVEL-1 + LEVEL-2 end to end on GUI/Demo-v0."""

from __future__ import annotations

import base64

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.policies.element import ElementPolicy
from gui_gym.errors import InfraError, JudgeFormatError, MissingResourceError
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.records import Trajectory, TrajectoryStep
from tests.fakes.chat_server import ChatServer
from gui_gym.trainers import grpo
from gui_gym.trainers.bepa import BEPAConfig, TaskCache, level1, level2, parse_plan, plan_from_trajectory, task_plan, train
from gui_gym.trainers.rollout import Rollout, Step


def rollout(name: str, score: float, task: str = "t") -> Rollout:
    return Rollout(task_id=task, seed=0, instruction=name,
                   steps=[Step(text=name, token_ids=(0,), logprobs=(0.0,), info={"score": score, "success": score >= 1.0})])


def test_level2_injects_into_all_fail_groups_and_refreshes_on_success():
    cache: TaskCache[Rollout] = TaskCache()
    mix = level2(cache, inject_index=5)
    group = [rollout("a", 0.0), rollout("b", 0.0)]
    assert mix(group) == (group, [False, False], {"bepa/all_fail_groups": 1.0, "bepa/injections": 0.0})
    expert = rollout("expert", 1.0)
    cache.put(("t", 1), expert, "level1")  # another instance's trajectory is never injected
    assert mix(group)[1] == [False, False]
    cache.put(("t", 0), expert, "level1")
    mixed, injected, counters = mix(group)
    assert mixed == [group[0], expert] and injected == [False, True]  # index 5 clipped to the last rollout
    assert counters == {"bepa/all_fail_groups": 1.0, "bepa/injections": 1.0}
    won = [rollout("c", 1.0), rollout("d", 0.0)]
    assert mix(won) == (won, [False, False], {"bepa/all_fail_groups": 0.0, "bepa/injections": 0.0})
    assert cache.get(("t", 0)).trajectory is won[0] and cache.get(("t", 0)).source == "on_policy"


def test_plans_are_parsed_strictly():
    assert parse_plan('Sure. {"plan": ["Open Users", " Press Invite "]}') == ["Open Users", "Press Invite"]
    for text in ('{"plan": []}', '{"plan": ["ok", ""]}', '{"steps": ["x"]}'):
        with pytest.raises(JudgeFormatError, match="expected 'plan' as a non-empty list"):
            parse_plan(text)


def test_a_judge_abstracts_the_expert_trajectory_into_a_plan():
    screen = np.full((20, 30, 3), 200, np.uint8)
    trajectory = Trajectory("t", "Invite Ann", steps=[TrajectoryStep({"kind": "click", "x": 5.0, "y": 6.0}),
                                                       TrajectoryStep({"kind": "done"}, screenshot=screen)])
    with ChatServer(['not json', '{"plan": ["Open Users", "Invite Ann"]}']) as server:
        with OpenAIClient("judge", server.base_url) as judge:
            assert plan_from_trajectory(judge, trajectory, seed=4) == ["Open Users", "Invite Ann"]
    text = "".join(p["text"] for p in server.requests[0].messages[1]["content"] if p["type"] == "text")
    assert 'Task: Invite Ann' in text and '0. {"kind": "click", "x": 5.0, "y": 6.0}' in text and '1. {"kind": "done"}' in text
    (image,) = server.requests[0].images()
    assert base64.b64decode(image.split(",", 1)[1]).startswith(b"\x89PNG")
    assert len(server.requests) == 2  # the off-format answer was asked again


def test_task_plans_come_from_the_task_or_are_named_missing():
    localweb = gym.make("GUI/LocalWeb-v0", apps=["admin"])  # no browser starts: the task is built, not run
    try:
        plan = task_plan(localweb, "admin.invite-user", 3)
        assert plan == localweb.unwrapped.suite.make_task("admin.invite-user", 3).metadata["expert_plan"]
        assert plan[0] == "Open the Users tab"
    finally:
        localweb.close()
    demo = gym.make("GUI/Demo-v0")
    try:
        with pytest.raises(MissingResourceError, match="task 'demo.press-button' carries no expert plan; use plan_source"):
            task_plan(demo, "demo.press-button", 0)
    finally:
        demo.close()


def test_options_are_checked():
    with pytest.raises(ValueError, match="plan_source must be 'task' or 'judge'"):
        BEPAConfig(plan_source="expert")
    with pytest.raises(ValueError, match="expected level1_groups >= 0, cache_capacity >= 1"):
        BEPAConfig(cache_capacity=0)
    with pytest.raises(ValueError, match="seed_source must be 'level1' or 'expert'"):
        BEPAConfig(mixing="always")
    with pytest.raises(ValueError, match="level1_every_instance needs instance_seeds"):
        BEPAConfig(level1_every_instance=True)


def test_the_ablations_seeding_covers_every_instance_of_the_expert_tasks():
    """On TextWeb (no browser): the expert's own trajectories seed one cache entry per covered
    instance (task and instance seed) at no episode's cost, LEVEL-1 one group per covered
    instance; the tasks outside `expert_tasks` get nothing; static mixing injects into every
    group of a covered instance, dynamic only into all-fail ones."""
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
    from gui_gym.agents.policies.element.policy import DENSE
    from gui_gym.trainers.bepa import covered_instances, train_on
    from gui_gym.trainers.rollout import EnvPool

    templates = make_templates(2, seed=7, hidden=(1,), conventions=CONVENTIONS[8:])
    tasks = tuple(t.task_id for t in templates)
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 10, hidden=0)
    policy.prior.weight.data[0, DENSE.index("plan_next")] = 30.0  # follows a plan's next line: LEVEL-1 succeeds
    common = dict(tasks=tasks, expert_tasks=tasks[:1], instance_seeds=2, level1_every_instance=True, group_size=2,
                  minibatch_rollouts=2, episode_budget=8, tensorboard=False)
    assert covered_instances(BEPAConfig(**common, level1_groups=2), tasks[:1]) == {tasks[0]: [0, 0, 1, 1]}
    with EnvPool(lambda: TextWebEnv(templates), 1) as pool:
        expert = train_on(BEPAConfig(**common, seed_source="expert", mixing="static"), policy, pool)
        level1_run = train_on(BEPAConfig(**common, level1_group_size=1), ElementPolicy(prior_scale=0.0, buckets=1 << 10,
                                                                                        hidden=0), pool)
    seeding, *loop = expert
    assert seeding["charts/episodes"] == 0 and seeding["bepa/cache_tasks"] == 2  # 2 instances of one task
    covered = [r for r in loop if f"tasks/{tasks[0]}/success_rate" in r]
    assert covered and all(r["bepa/injections"] == 1 for r in covered)  # static: every covered group
    assert all(r["bepa/injections"] == 0 for r in loop if r not in covered)
    assert all("bepa/cached_logp" in r for r in covered)
    seeding, *loop = level1_run
    assert seeding["charts/episodes"] == 2 and seeding["bepa/level1_episodes"] == 2  # one rollout per instance


class PlanPool:
    """Answers LEVEL-1's plan requests (``pool.run``) without an env."""

    def run(self, calls):
        return [fn(None) for _, fn in calls]


def scripted_groups(monkeypatch, outcomes):
    """LEVEL-1's groups, in order: "crash" raises like an all-crashed group, a float is every
    episode's score."""
    calls = []

    def fake_rollout_group(pool, policy, task_id, seed, group_size, plan=None, snapshots=False):
        calls.append((task_id, plan))
        outcome = outcomes[len(calls) - 1]
        if outcome == "crash":
            raise InfraError("every episode of the group crashed")
        return [rollout(f"{task_id}-{i}", outcome, task_id) for i in range(group_size)]

    monkeypatch.setattr(grpo, "rollout_group", fake_rollout_group)
    return calls


def test_level1_stays_inside_the_episode_budget(monkeypatch):
    calls = scripted_groups(monkeypatch, [1.0, 0.0, 1.0])
    cfg = BEPAConfig(level1_groups=2, group_size=2, episode_budget=5, tensorboard=False)
    cache = TaskCache(1)
    episodes, stats = level1(cfg, None, PlanPool(), cache, ["a", "b"], lambda env, task, seed: [f"plan of {task}"])
    assert episodes == 4 and len(calls) == 2 and calls[0] == ("a", ["plan of a"])  # a third group would cost 6
    assert stats["bepa/level1_successes"] == 2 and stats["bepa/cache_tasks"] == 1


def test_level1_skips_a_crashed_group_and_gives_up_after_three_in_a_row(monkeypatch):
    scripted_groups(monkeypatch, ["crash", 1.0, 0.0])
    cfg = BEPAConfig(level1_groups=3, group_size=2, tensorboard=False)
    episodes, stats = level1(cfg, None, PlanPool(), TaskCache(1), ["a"], lambda env, task, seed: ["plan"])
    assert episodes == 4 and stats["bepa/level1_crashed_groups"] == 1 and stats["bepa/level1_successes"] == 2
    scripted_groups(monkeypatch, ["crash"] * 3)
    with pytest.raises(InfraError):
        level1(cfg, None, PlanPool(), TaskCache(1), ["a"], lambda env, task, seed: ["plan"])


@pytest.mark.slow
def test_level1_from_a_judged_plan_then_training_with_the_cache():
    make_env = lambda: gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2)  # noqa: E731
    with ChatServer(['{"plan": ["Click Subscribe"]}'] * 4) as server:
        cfg = BEPAConfig(tasks=("demo.press-button",), iterations=2, group_size=2, pool_size=2, plan_source="judge",
                         judge_base_url=server.base_url, judge_model="judge", tensorboard=False)
        records = train(cfg, ElementPolicy(), make_env)
    level1, *loop = records
    assert level1["iteration"] == 0 and level1["bepa/level1_successes"] == 2 and level1["bepa/cache_tasks"] == 1
    assert level1["charts/episodes"] == 3  # the expert's episode and the plan-conditioned group
    assert [r["charts/episodes"] for r in loop] == [5, 7]
    assert all(r["bepa/all_fail_groups"] == 0 and r["bepa/injections"] == 0 for r in loop)  # the policy succeeds
    assert "Click Subscribe" not in repr(server.requests[-1].body)  # the judge saw the trajectory, not the plan


def keyboard_trace(env, task, seed):
    """An expert of another action space on TextWeb: Tab until the oracle's element has the
    focus, then Enter (keys the element policy has no Tab for)."""
    from gui_gym.a11y_text import parse_elements
    from gui_gym.actions import Action
    from gui_gym.trainers.bepa import ExpertTrace

    obs, info = env.reset(options={"task_id": task, "instance_seed": seed, "max_steps": 100})
    trace = ExpertTrace(task, seed, info["instruction"], [], [], {})
    for _ in range(100):
        focused = next((e.index for e in parse_elements(obs["a11y_tree"]) if "focused" in e.flags), None)
        action = Action.key("enter") if focused == env.oracle_action().element else Action.key("tab")
        trace.observations.append(obs)
        trace.actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            trace.final_info = dict(info)
            return trace


def test_an_off_distribution_experts_trace_is_converted_into_the_policys_action_space():
    """A keyboard expert's Tabs have no candidate and are dropped; each Enter becomes the
    policy's ``enter`` candidate, prompted with the page the expert saw (one element flagged
    focused); the rollout keeps the trace's success. Under a policy that rarely presses Enter
    its tokens are all low-probability, the oracle's (clicks, same instance) none."""
    import torch

    from gui_gym.actions import Action
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
    from gui_gym.trainers.bepa import rollout_from_trace, token_profile
    from gui_gym.trainers.sft import expert_rollout

    templates = make_templates(1, seed=8, hidden=(1,), conventions=CONVENTIONS[8:])
    task = templates[0].task_id
    env = TextWebEnv(templates)
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 12, hidden=0)
    trace = keyboard_trace(env, task, 1)
    converted = rollout_from_trace(trace, policy)
    enters = trace.actions.count(Action.key("enter"))
    assert converted.success and converted.source == "expert" and len(converted) == enters == len(templates[0].stages) + 1
    assert all(s.prompt.candidates[s.token_ids[0]].kind == "enter" for s in converted.steps)
    assert all(any(c.element is not None and "focused" in c.element.flags for c in s.prompt.candidates)
               for s in converted.steps)
    assert [s.info for s in converted.steps[:-1]] == [{}] * (enters - 1) and converted.steps[-1].reward == 1.0
    oracle = expert_rollout(env, policy, task, 1)
    uniform = token_profile(policy, [converted])  # every weight 0: each step uniform over its candidates
    expected = -sum(torch.log(torch.tensor(float(len(s.prompt.candidates)))).item() for s in converted.steps) / enters
    assert uniform["mean_logp"] == pytest.approx(expected, rel=1e-5) and uniform["tokens"] == enters
    with torch.no_grad():
        policy.linear.weight[policy._bucket("k:enter")] = -5.0  # this policy almost never presses Enter
    far, near = token_profile(policy, [converted]), token_profile(policy, [oracle])
    assert far["low_prob_share"] == 1.0 and near["low_prob_share"] == 0.0
    assert far["mean_logp"] < near["mean_logp"] - 4


def test_the_low_probability_share_and_the_update_diagnostics():
    """`logprob_profile`: the mean log-prob and the share of tokens with p < 0.1, by hand;
    `cache_stats` reports both for the injected and the on-policy tokens of an update."""
    import math

    import torch

    from gui_gym.trainers.bepa import cache_stats, logprob_profile

    logps = [torch.tensor([math.log(0.5), math.log(0.05)]), torch.tensor([math.log(0.2)])]
    profile = logprob_profile(logps)
    assert profile["mean_logp"] == pytest.approx((math.log(0.5) + math.log(0.05) + math.log(0.2)) / 3)
    assert profile["low_prob_share"] == pytest.approx(1 / 3) and profile["tokens"] == 3
    assert logprob_profile(logps, low_prob=0.3)["low_prob_share"] == pytest.approx(2 / 3)
    assert logprob_profile([]) == {"mean_logp": None, "low_prob_share": None, "tokens": 0}
    items = [grpo.TrainItem(rollout("a", 1.0), [1.0], off_policy=True), grpo.TrainItem(rollout("b", 0.0), [0.0])]
    stats = cache_stats(items, [torch.tensor([math.log(0.05)]), torch.tensor([math.log(0.5)])])
    assert stats == pytest.approx({"bepa/cached_logp": math.log(0.05), "bepa/cached_low_prob_share": 1.0,
                                   "bepa/on_policy_logp": math.log(0.5), "bepa/on_policy_low_prob_share": 0.0})
    assert cache_stats(items[1:], [torch.tensor([math.log(0.5)])]).keys() == {"bepa/on_policy_logp",
                                                                                "bepa/on_policy_low_prob_share"}


def test_an_expert_of_another_action_space_seeds_the_cache_converted_or_through_its_plans():
    """`train_on(..., expert=...)`: replacement seeds the cache with the expert's traces in the
    policy's action space (no episode spent), LEVEL-1 acts on the plans abstracted from them;
    the seeded cache's log-prob profile under the starting weights is logged with the seeding."""
    from gui_gym.agents.policies.element.policy import DENSE
    from gui_gym.benchmarks.learning.explorer import ExploringExpert
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
    from gui_gym.trainers.bepa import train_on
    from gui_gym.trainers.rollout import EnvPool

    templates = make_templates(2, seed=7, hidden=(1,), conventions=CONVENTIONS[8:], alternates=3)
    tasks = tuple(t.task_id for t in templates)
    common = dict(tasks=tasks, expert_tasks=tasks[:1], instance_seeds=2, level1_every_instance=True, group_size=2,
                  minibatch_rollouts=2, episode_budget=8, learning_rate=1e-2, tensorboard=False)

    def follower() -> ElementPolicy:
        policy = ElementPolicy(prior_scale=0.0, buckets=1 << 10, hidden=0)
        policy.prior.weight.data[0, DENSE.index("plan_next")] = 30.0  # follows a plan's next line
        return policy

    with EnvPool(lambda: TextWebEnv(templates), 1) as pool:
        replaced = train_on(BEPAConfig(**common, seed_source="expert", mixing="static"), follower(), pool,
                            expert=ExploringExpert())
        level1_run = train_on(BEPAConfig(**common, level1_group_size=1), follower(), pool, expert=ExploringExpert())
    seeding, *loop = replaced
    assert seeding["charts/episodes"] == 0 and seeding["bepa/cache_tasks"] == 2
    assert seeding["bepa/seeded_low_prob_share"] == 0.0 and seeding["bepa/seeded_logp"] < 0  # uniform over 7-9
    covered = [r for r in loop if f"tasks/{tasks[0]}/success_rate" in r]
    assert covered and all(r["bepa/injections"] == 1 and "bepa/cached_low_prob_share" in r for r in covered)
    seeding, *loop = level1_run
    assert seeding["bepa/level1_episodes"] == 2 and seeding["bepa/level1_successes"] == 2  # the plans are followed
    assert seeding["bepa/cache_tasks"] == 2 and seeding["bepa/seeded_logp"] < 0
