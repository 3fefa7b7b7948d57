"""GRPO advantages and losses against hand-computed values (docs/algorithms.md, GRPO)."""

from __future__ import annotations

import math

import pytest
import torch

from gui_gym.trainers.grpo import aggregate, all_equal, clipped_policy_loss, group_advantages, kl_k3


def test_worked_example_g8_one_success():
    adv = group_advantages([1, 0, 0, 0, 0, 0, 0, 0])
    assert adv[0] == pytest.approx(2.4749, abs=1e-4)
    assert adv[1:] == pytest.approx([-0.35355] * 7, abs=1e-4)


def test_equal_scores_give_zero_advantage():
    assert group_advantages([0.0] * 8) == [0.0] * 8
    assert group_advantages([1.0] * 4) == [0.0] * 4
    assert all_equal([0, 0, 0]) and not all_equal([0, 1])


def test_group_of_one_and_dr_grpo():
    assert group_advantages([0.7]) == pytest.approx([0.7 / (1 + 1e-6)])
    assert group_advantages([1, 0, 0, 1], norm_std=False) == [0.5, -0.5, -0.5, 0.5]
    # std of [1,0,0,1] (unbiased) = sqrt(1/3)
    assert group_advantages([1, 0, 0, 1])[0] == pytest.approx(0.5 / math.sqrt(1 / 3), rel=1e-5)


def test_clipped_loss_by_hand():
    logp = torch.log(torch.tensor([[1.5, 0.5]]))
    old = torch.zeros(1, 2)
    mask = torch.ones(1, 2)
    # A = +1: token 1 ratio 1.5 clipped to 1.2 -> max(-1.5, -1.2) = -1.2; token 2 ratio .5 -> max(-.5, -.8) = -.5
    assert clipped_policy_loss(logp, old, torch.tensor([[1.0]]), mask).item() == pytest.approx((-1.2 - 0.5) / 2)
    # A = -1: token 1 -> max(1.5, 1.2) = 1.5; token 2 -> max(.5, .8) = .8
    assert clipped_policy_loss(logp, old, torch.tensor([[-1.0]]), mask).item() == pytest.approx((1.5 + 0.8) / 2)
    # clip-higher (DAPO) lets the positive token rise to 1.28
    assert clipped_policy_loss(logp, old, torch.tensor([[1.0]]), mask, clip_high=0.28).item() == pytest.approx((-1.28 - 0.5) / 2)


def test_dual_clip_caps_negative_advantage_losses():
    logp = torch.log(torch.tensor([[5.0]]))
    old = torch.zeros(1, 1)
    loss = clipped_policy_loss(logp, old, torch.tensor([[-1.0]]), torch.ones(1, 1), dual_clip=3.0)
    assert loss.item() == pytest.approx(3.0)
    assert clipped_policy_loss(logp, old, torch.tensor([[-1.0]]), torch.ones(1, 1)).item() == pytest.approx(5.0)
    with pytest.raises(ValueError, match="dual_clip must be > 1"):
        clipped_policy_loss(logp, old, torch.tensor([[-1.0]]), torch.ones(1, 1), dual_clip=0.5)


def test_aggregation_modes_by_hand():
    values = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    assert aggregate(values, mask, "token-mean").item() == pytest.approx(10 / 4)
    assert aggregate(values, mask, "seq-mean-token-mean").item() == pytest.approx((2 + 4) / 2)
    assert aggregate(values, mask, "seq-mean-token-sum").item() == pytest.approx((6 + 4) / 2)
    with pytest.raises(ValueError, match="aggregation must be one of"):
        aggregate(values, mask, "mean")


def test_k3_kl_is_zero_at_equality_and_positive_otherwise():
    logp = torch.tensor([-1.0, -2.0])
    assert kl_k3(logp, logp).tolist() == [0.0, 0.0]
    ref = torch.tensor([-1.5, -1.0])
    expected = [math.exp(-0.5) + 0.5 - 1, math.exp(1.0) - 1.0 - 1]
    assert kl_k3(logp, ref).tolist() == pytest.approx(expected)


def test_masked_tokens_do_not_count():
    logp = torch.tensor([[0.1, 5.0]])
    loss = clipped_policy_loss(logp, logp.clone(), torch.tensor([[1.0]]), torch.tensor([[1, 0]]))
    assert loss.item() == pytest.approx(-1.0)
