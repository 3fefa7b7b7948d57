"""PAGE's hierarchical advantage against hand-computed values."""

from __future__ import annotations

import pytest

from gui_gym.trainers.grpo import group_advantages
from gui_gym.trainers.page import group_normalized_span_advantages, hierarchical_advantages, intra_rollout_advantages


def test_intra_rollout_centered_and_signed():
    # spans: [done, not done, done] -> mean u = 2/3
    steps = [0, 0, 1, 2, -1]
    assert intra_rollout_advantages([True, False, True], steps) == pytest.approx([1 / 3, 1 / 3, -2 / 3, 1 / 3, 0.0])
    assert intra_rollout_advantages([True, False, True], steps, mode="signed") == [1, 1, -1, 1, 0]
    assert intra_rollout_advantages([], [-1, -1]) == [0.0, 0.0]
    with pytest.raises(ValueError, match="outside the 1 spans"):
        intra_rollout_advantages([True], [1])


def test_all_fail_group_still_learns_from_progress():
    progress = [0.0, 0.25, 0.5, 0.25]
    adv = hierarchical_advantages(progress, [[0.0], [0.0], [0.0], [0.0]], norm_std=True)
    assert [a[0] for a in adv] == pytest.approx(group_advantages(progress))
    assert adv[2][0] > adv[1][0] > adv[0][0]


def test_hierarchical_sum_by_hand():
    # progress [1, 0]: mean .5, std sqrt(.5) -> inter = +-0.7071; lambda .5
    adv = hierarchical_advantages([1.0, 0.0], [[0.5, -0.5], [0.0]], lam=0.5, norm_std=True)
    assert adv[0] == pytest.approx([0.70711 + 0.25, 0.70711 - 0.25], abs=1e-4)
    assert adv[1] == pytest.approx([-0.70711], abs=1e-4)
    # the default (PAGEConfig.inter_norm_std off): p - mean; the intra-only ablation drops it
    assert hierarchical_advantages([1.0, 0.0], [[0.5, -0.5], [0.0]], lam=0.5) == [[0.75, 0.25], [-0.5]]
    assert hierarchical_advantages([1.0, 0.0], [[0.5, -0.5], [0.0]], inter_weight=0.0) == [[0.25, -0.25], [0.0]]
    with pytest.raises(ValueError, match="one intra-advantage list per rollout"):
        hierarchical_advantages([1.0], [])


def test_group_normalized_spans():
    out = group_normalized_span_advantages([[("open", True), ("pay", False)], [("open", True), ("pay", True)]])
    assert out == [[0.0, -0.5], [0.0, 0.5]]
