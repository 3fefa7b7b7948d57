"""Group rollouts on GUI/Demo-v0 with the element policy: G episodes of one instance in waves
over a pool of envs on their own threads, tokens and log-probs recorded, plan-conditioned
rollouts stored with plain prompts, a crashing env voiding only its own episode; the
asynchronous mode handing over a fast group while a slow env's episode is still running."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.base import Context
from gui_gym.agents.policies.element.policy import DENSE, ElementPolicy
from gui_gym.errors import InfraError
from gui_gym.trainers.rollout import EnvPool, evaluate, held_out_seeds, rollout_group, rollout_groups

PRESS = "demo.press-button"


class Exploding(gym.Wrapper):
    """Raises from step() while `explode` is set: an env that breaks its contract."""

    explode = False

    def step(self, action):
        if self.explode:
            raise RuntimeError("the env broke")
        return self.env.step(action)


@pytest.fixture(scope="module")
def pool():
    with EnvPool(lambda: Exploding(gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2)), size=2) as envs:
        yield envs


def set_exploding(pool: EnvPool, slot: int, value: bool) -> None:
    pool.run([(slot, lambda env: setattr(env, "explode", value))])


def test_a_group_runs_in_waves_and_records_tokens_and_log_probs(pool):
    torch.manual_seed(0)
    policy = ElementPolicy()
    group = rollout_group(pool, policy, PRESS, seed=7, group_size=3)
    assert len(group) == 3 and {r.seed for r in group} == {7} and {r.task_id for r in group} == {PRESS}
    assert {r.instruction for r in group} == {"Press the Subscribe button once."}
    for rollout in group:
        assert 1 <= len(rollout) <= 2 and rollout.source == "on_policy" and rollout.infra_error is None
        assert "success" in rollout.final_info and rollout.score == float(rollout.success)
        step = rollout.steps[0]
        (recomputed,) = policy.logprobs([step.prompt], [step.token_ids])
        assert recomputed.item() == pytest.approx(step.logprobs[0], abs=1e-5)
        assert step.text == step.prompt.candidates[step.token_ids[0]].describe()
    greedy = rollout_group(pool, policy, PRESS, seed=7, group_size=2, greedy=True)
    assert greedy[0].steps[0].text == 'click [1] button "Subscribe"' and greedy[0].success
    assert [s.text for s in greedy[0].steps] == [s.text for s in greedy[1].steps]


def test_plan_conditioned_rollouts_store_the_plain_prompt(pool):
    policy = ElementPolicy()
    plan = ("Click Subscribe", "Stop")
    group = rollout_group(pool, policy, PRESS, seed=3, group_size=2, plan=plan)
    plan_columns = [DENSE.index(name) for name in ("plan_next", "plan_here", "plan_any")]
    for rollout in group:
        assert rollout.source == "level1" and rollout.plan == plan
        for step in rollout.steps:
            assert not np.any(step.prompt.dense[:, plan_columns])
    first = rollout_group(pool, policy, PRESS, seed=3, group_size=1)[0]
    prompt = policy.prompt({"a11y_tree": '[0] heading "Subscribe"\n[1] button "Subscribe"'},
                           Context(first.instruction, plan))
    assert np.any(prompt.dense[:, plan_columns])  # the acting prompt did see the plan


def test_a_crashing_env_voids_its_episode_only_and_a_fully_crashed_group_raises(pool):
    policy = ElementPolicy()
    set_exploding(pool, 1, True)
    try:
        group = rollout_group(pool, policy, PRESS, seed=1, group_size=2)
        assert group[0].infra_error is None and group[0].crash is None
        assert group[1].crash == "RuntimeError: the env broke" and group[1].infra_error == group[1].crash
        set_exploding(pool, 0, True)
        with pytest.raises(InfraError, match=r"every episode of the group of 'demo.press-button' \(seed 1\) crashed"):
            rollout_group(pool, policy, PRESS, seed=1, group_size=2)
    finally:
        set_exploding(pool, 0, False)
        set_exploding(pool, 1, False)


def test_envs_live_on_their_own_threads_and_evaluate_reports_per_task(pool):
    names = pool.run([(0, lambda env: threading.current_thread().name), (1, lambda env: threading.current_thread().name)])
    assert names[0] != names[1] and all(name.startswith("env-") for name in names)
    rates = evaluate(pool, ElementPolicy(), [PRESS, "demo.read-code"], held_out_seeds(2, seed=0, training=4))
    assert set(rates) == {PRESS, "demo.read-code"} and rates[PRESS] == 1.0 and rates["demo.read-code"] == 0.0
    assert min(held_out_seeds(200, seed=1, training=1000)) >= 1000 and held_out_seeds(3, 5) == held_out_seeds(3, 5)
    with pytest.raises(ValueError, match="size must be >= 1"):
        EnvPool(lambda: None, size=0)
    with pytest.raises(ValueError, match="group_size must be >= 1"):
        rollout_group(pool, ElementPolicy(), PRESS, 0, 0)


class Gated(gym.Wrapper):
    """Holds every step of task `slow` until `release` is set (a slow env, with no clock in
    it); `entered` tells that such a step has begun."""

    def __init__(self, env, slow: str, release: threading.Event, entered: threading.Event):
        super().__init__(env)
        self.slow, self.release, self.entered, self.task_id = slow, release, entered, None

    def reset(self, **kwargs):
        self.task_id = kwargs["options"]["task_id"]
        return self.env.reset(**kwargs)

    def step(self, action):
        if self.task_id == self.slow:
            self.entered.set()
            self.release.wait(timeout=120)  # only a bound against a hang: the test releases it
        return self.env.step(action)


class Batching(ElementPolicy):
    """The element policy with a served policy's ``generate_many``, recording each batch's size."""

    def __init__(self):
        super().__init__()
        self.batches = []

    def generate_many(self, prompts, *, greedy=False):
        self.batches.append(len(prompts))
        return [self.generate(prompt, greedy=greedy) for prompt in prompts]


def test_async_groups_come_as_they_finish_while_a_slow_episode_still_runs():
    slow, release, entered = "demo.read-code", threading.Event(), threading.Event()
    policy = Batching()
    with EnvPool(lambda: Gated(gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2), slow, release, entered),
                 size=3) as pool:
        # 4 episodes on 3 envs: both slow ones hold an env each; the third env plays both fast ones in turn
        groups = rollout_groups(pool, policy, [(slow, 1), (PRESS, 2)], 2, asynchronous=True)
        task_id, seed, fast = next(groups)
        assert (task_id, seed) == (PRESS, 2) and entered.is_set() and not release.is_set()
        assert len(fast) == 2 and {(r.task_id, r.seed) for r in fast} == {(PRESS, 2)}
        assert {r.instruction for r in fast} == {"Press the Subscribe button once."}
        assert all(r.infra_error is None and 1 <= len(r) <= 2 and r.steps[0].token_ids for r in fast)
        release.set()
        task_id, seed, held = next(groups)
        assert (task_id, seed) == (slow, 1) and len(held) == 2 and {(r.task_id, r.seed) for r in held} == {(slow, 1)}
        assert all(r.infra_error is None and len(r) == 2 and not r.success for r in held)  # read-code: no way to win
        with pytest.raises(StopIteration):
            next(groups)
        # every action came from generate_many, over the episodes waiting at that moment
        assert sum(policy.batches) == sum(len(r) for r in fast + held) and max(policy.batches) <= 3

        stopped = rollout_groups(pool, policy, [(PRESS, 3)] * 3, 2, asynchronous=True)
        next(stopped)
        stopped.close()  # a caller that stops early: the episodes in flight end, the envs are free again
        assert [len(g) for _, _, g in rollout_groups(pool, policy, [(PRESS, 4)], 3, asynchronous=True)] == [3]
        assert [len(g) for _, _, g in rollout_groups(pool, policy, [(PRESS, 4)], 2)] == [2]  # lockstep, same call
