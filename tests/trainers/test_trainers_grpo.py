"""The shared trainer: per-step outcome advantages, the update (hand-computed losses, LUFFY,
KL to the reference, direction of the step), and the loop on GUI/Demo-v0 (metrics, budget,
checkpoints, crashed groups)."""

from __future__ import annotations

import json
import math

import gymnasium as gym
import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.agents.base import Context, TrainableAgent
from gui_gym.agents.policies.element import ElementPolicy
from gui_gym.errors import InfraError
from gui_gym.trainers.bepa import cache_stats, luffy_loss
from gui_gym.trainers.grpo import GRPOConfig, TrainItem, outcome_advantages, run, seed_everything, train, update
from gui_gym.trainers.rollout import EnvPool, Rollout, Step
from gui_gym.trainers.runs import load_checkpoint


class TablePolicy(TrainableAgent, torch.nn.Module):
    """A policy over `n` tokens per prompt whose logits are one learnable row per prompt."""

    def __init__(self, prompts: int = 2, n: int = 2):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.zeros(prompts, n))

    def logprobs(self, prompts, token_ids):
        return [torch.log_softmax(self.logits[p], 0)[list(t)] for p, t in zip(prompts, token_ids)]

    def reference(self):
        frozen = TablePolicy(*self.logits.shape)
        frozen.logits.data.copy_(self.logits.data)
        return frozen


def rollout(prompt: int, token: int, steps: int = 1, score: float = 0.0) -> Rollout:
    info = {"success": score >= 1.0, "score": score}
    return Rollout(task_id="t", seed=0, instruction="i",
                   steps=[Step(prompt=prompt, token_ids=(token,), logprobs=(math.log(0.5),), info=info) for _ in range(steps)])


def test_outcome_advantages_spread_over_steps_by_hand():
    group = [rollout(0, 0, 2, 1.0), rollout(0, 0, 1), rollout(0, 0, 3), rollout(0, 0, 1)]
    # scores [1,0,0,0]: mean .25, unbiased std .5 -> +1.5 and -0.5
    adv = outcome_advantages(group)
    assert adv[0] == pytest.approx([1.5, 1.5], rel=1e-5) and adv[2] == pytest.approx([-0.5] * 3, rel=1e-5)
    assert outcome_advantages(group, norm_std=False)[0] == [0.75, 0.75]


def test_update_losses_by_hand():
    cfg = GRPOConfig(minibatch_rollouts=2, learning_rate=1e-3)
    policy = TablePolicy()
    # one on-policy token with A = +1 and p = .5: ratio 1, loss -1; token-mean over one token
    stats = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0), [TrainItem(rollout(0, 0), [1.0])], cfg)
    assert stats["losses/policy_loss"] == pytest.approx(-1.0)
    assert stats["losses/approx_kl"] == 0.0 and stats["losses/clipfrac"] == 0.0
    # LUFFY on an off-policy token: -A p / (p + .1) = -.5 / .6
    stats = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0),
                   [TrainItem(rollout(0, 0), [1.0], off_policy=True)], cfg, off_policy_loss=luffy_loss(0.1),
                   update_stats=cache_stats)
    assert stats["losses/policy_loss"] == pytest.approx(-0.5 / 0.6)
    assert stats["bepa/cached_logp"] == pytest.approx(math.log(0.5)) and "bepa/on_policy_logp" not in stats
    plain = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0),
                   [TrainItem(rollout(0, 0), [1.0], off_policy=True)], cfg)  # the core alone: the clip, no bepa/
    assert plain["losses/policy_loss"] == pytest.approx(-1.0) and not [k for k in plain if k.startswith("bepa/")]
    # token-mean over a 2-step rollout (A=+1) and a 1-step one (A=-1): (-1 -1 +1) / 3
    items = [TrainItem(rollout(0, 0, 2), [1.0, 1.0]), TrainItem(rollout(1, 1), [-1.0])]
    stats = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0), items, cfg)
    assert stats["losses/policy_loss"] == pytest.approx(-1 / 3)
    stats = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0), items,
                   GRPOConfig(minibatch_rollouts=2, aggregation="seq-mean-token-sum"))
    assert stats["losses/policy_loss"] == pytest.approx((-2 + 1) / 2)


def test_an_update_moves_positive_advantage_tokens_up_and_negative_down_with_kl_to_the_reference():
    policy = TablePolicy()
    reference = policy.reference()
    items = [TrainItem(rollout(0, 0), [1.0]), TrainItem(rollout(1, 1), [-1.0])]
    cfg = GRPOConfig(minibatch_rollouts=2, update_epochs=3, kl_coef=0.1)
    stats = update(policy, torch.optim.Adam(policy.parameters(), lr=0.1), items, cfg, reference=reference)
    after = policy.logprobs([0, 1], [[0], [1]])
    assert after[0].item() > math.log(0.5) > after[1].item()
    assert "losses/kl_ref" in stats and stats["losses/kl_ref"] >= 0.0
    assert torch.equal(reference.logits, torch.zeros(2, 2))
    assert update(policy, torch.optim.Adam(policy.parameters()), [], cfg) == {}


def test_the_entropy_bonus_flattens_a_policy_where_advantages_are_zero():
    class Entropic(TablePolicy):
        def entropies(self, prompts, token_ids):
            out = []
            for p, t in zip(prompts, token_ids):
                logp = torch.log_softmax(self.logits[p], 0)
                out.append(-(logp.exp() * logp).sum().expand(len(t)))
            return out

    policy = Entropic()
    policy.logits.data.copy_(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    items = [TrainItem(rollout(0, 0), [0.0]), TrainItem(rollout(1, 1), [0.0])]
    stats = update(policy, torch.optim.SGD(policy.parameters(), lr=0.0), items,
                   GRPOConfig(minibatch_rollouts=2, entropy_coef=0.1))
    p = torch.softmax(torch.tensor([2.0, 0.0]), 0)
    assert stats["losses/entropy"] == pytest.approx((-(p * p.log()).sum().item() + math.log(2)) / 2, rel=1e-5)
    update(policy, torch.optim.SGD(policy.parameters(), lr=1.0), items, GRPOConfig(minibatch_rollouts=2, entropy_coef=0.1))
    assert 0.0 < policy.logits[0, 0] - policy.logits[0, 1] < 2.0  # flatter, zero advantages notwithstanding
    assert torch.equal(policy.logits[1], torch.zeros(2))  # already at the most entropy
    with pytest.raises(ValueError, match="entropy_coef needs a policy that reports its entropies; TablePolicy"):
        with EnvPool(make_demo) as pool:
            run(GRPOConfig(entropy_coef=0.1, tensorboard=False), TablePolicy(), pool)


def test_config_is_checked_at_the_door():
    with pytest.raises(ValueError, match="group_size must be an integer >= 1, received 0"):
        GRPOConfig(group_size=0)
    with pytest.raises(ValueError, match="aggregation must be one of"):
        GRPOConfig(aggregation="mean")
    with pytest.raises(ValueError, match="expected learning_rate > 0"):
        GRPOConfig(learning_rate=0)
    with pytest.raises(ValueError, match="entropy_coef >= 0, received .*-0.1"):
        GRPOConfig(entropy_coef=-0.1)
    with pytest.raises(ValueError, match="instance_seeds must be None or an integer >= 1, received 0"):
        GRPOConfig(instance_seeds=0)
    with pytest.raises(ValueError, match="async_rollouts needs branching='off'"):
        GRPOConfig(async_rollouts=True, branching="unreached_milestone")
    rng = np.random.default_rng(0)
    assert {GRPOConfig(instance_seeds=2).draw_instance(rng) for _ in range(50)} == {0, 1}
    assert GRPOConfig().draw_instance(rng) >= 0
    with pytest.raises(ValueError, match="one advantage per step"):
        update(TablePolicy(), torch.optim.SGD(TablePolicy().parameters(), lr=0.1),
               [TrainItem(rollout(0, 0, 2), [1.0])], GRPOConfig())


def test_seeded_sampling_repeats():
    policy = ElementPolicy()
    prompt = policy.prompt({"a11y_tree": "\n".join(f'[{i}] link "L{i}"' for i in range(20))},
                           Context("x"))
    draws = []
    for _ in range(2):
        seed_everything(3)
        draws.append([policy.generate(prompt).token_ids for _ in range(5)])
    assert draws[0] == draws[1]


def make_demo():
    return gym.make("GUI/Demo-v0", observe_a11y=True, max_steps=2)


@pytest.mark.slow
def test_the_loop_logs_checkpoints_and_respects_the_budget(tmp_path):
    cfg = GRPOConfig(tasks=("demo.press-button", "demo.read-code"), iterations=5, episode_budget=4, group_size=2,
                     pool_size=2, run_dir=str(tmp_path), checkpoint_every=1, tensorboard=False, entropy_coef=0.01)
    policy = ElementPolicy()
    records = train(cfg, policy, make_demo)
    assert [r["charts/episodes"] for r in records] == [2, 4]
    lines = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert lines == records
    assert {"charts/success_rate", "charts/score", "charts/episode_length", "charts/rollout_time_s",
            "charts/update_time_s", "charts/no_signal_groups", "losses/entropy"} <= set(records[0])
    assert {r["charts/success_rate"] for r in records} <= {0.0, 1.0}  # press-button succeeds, read-code cannot
    for record in records:  # one group per iteration: its task's own success rate is the overall one
        (task_key,) = [k for k in record if k.startswith("tasks/")]
        assert task_key in ("tasks/demo.press-button/success_rate", "tasks/demo.read-code/success_rate")
        assert record[task_key] == record["charts/success_rate"]
    assert {k for r in records for k in r if k.startswith("tasks/")} == {
        "tasks/demo.press-button/success_rate", "tasks/demo.read-code/success_rate"}
    assert json.loads((tmp_path / "config.json").read_text())["group_size"] == 2
    state = load_checkpoint(tmp_path / "checkpoints" / "final", ElementPolicy())
    assert state["episodes"] == 4 and (tmp_path / "checkpoints" / "iter_00002" / "optimizer.pt").is_file()


class CrashFirst(gym.Wrapper):
    """Raises from its first `crashes` steps, then behaves."""

    crashes = 1

    def step(self, action):
        if self.crashes:
            self.crashes -= 1
            raise RuntimeError("flaky")
        return self.env.step(action)


@pytest.mark.slow
def test_a_crashed_group_is_counted_and_three_in_a_row_stop_the_run():
    cfg = GRPOConfig(tasks=("demo.press-button",), iterations=2, group_size=1, tensorboard=False)
    with EnvPool(lambda: CrashFirst(make_demo())) as pool:
        records = run(cfg, ElementPolicy(), pool)
        assert records[0]["charts/crashed_groups"] == 1 and records[1]["charts/episodes"] == 1
        pool.run([(0, lambda env: setattr(env, "crashes", 10))])
        with pytest.raises(InfraError, match="crashed"):
            run(GRPOConfig(tasks=("demo.press-button",), iterations=3, group_size=1, tensorboard=False),
                ElementPolicy(), pool)


@pytest.mark.slow
def test_the_loop_runs_asynchronous_rollouts_and_stops_cleanly_on_crashed_groups():
    cfg = GRPOConfig(tasks=("demo.press-button", "demo.read-code"), iterations=2, groups_per_iteration=2,
                     group_size=2, pool_size=3, async_rollouts=True, tensorboard=False)
    records = train(cfg, ElementPolicy(), make_demo)
    assert [r["charts/episodes"] for r in records] == [4, 8]
    for record in records:  # both tasks' groups came in whole, whichever finished first
        assert record["tasks/demo.read-code/success_rate"] == 0.0 and "tasks/demo.press-button/success_rate" in record
        assert "losses/policy_loss" in record and record.get("charts/infra_errors", 0) == 0
    with EnvPool(lambda: CrashFirst(make_demo()), size=2) as pool:
        pool.run([(i, lambda env: setattr(env, "crashes", 100)) for i in range(2)])
        with pytest.raises(InfraError, match="crashed"):  # the third crashed group in a row, mid-stream
            run(GRPOConfig(tasks=("demo.press-button",), iterations=1, groups_per_iteration=4, group_size=1,
                           pool_size=2, async_rollouts=True, tensorboard=False), ElementPolicy(), pool)
        pool.run([(i, lambda env: setattr(env, "crashes", 0)) for i in range(2)])
        assert len(run(GRPOConfig(tasks=("demo.press-button",), iterations=1, group_size=2, async_rollouts=True,
                                  tensorboard=False), ElementPolicy(), pool)) == 1  # the envs were left free
