"""PAGE: progress-aware RL with hierarchical advantages (see reference/algorithms.md).

GRPO's binary outcome gives no signal across rollouts that all fail and spreads one advantage
over every step. PAGE replaces the outcome by the progress p_i of each rollout (criteria met,
from `gui_gym.wrappers.ProgressReward`) for the inter-rollout term, and adds a subtask-level
intra-rollout term from `gui_gym.wrappers.SubtaskAnnotation`:
A_{i,t} = A_inter_i + lambda * A_intra_{i,t}.
"""

from __future__ import annotations

from typing import Sequence

from trainers.grpo import EPS, group_advantages


def intra_rollout_advantages(span_completed: Sequence[bool], step_span: Sequence[int],
                             mode: str = "centered") -> list[float]:
    """PAGE's subtask-level advantage within one rollout.

    `span_completed[m]` is u_m, the completion flag of subtask span m; `step_span[t]` the span
    index of step t (-1 for a step outside every span, which gets 0). ``mode="centered"``:
    A_intra_t = u_m - mean_m(u); ``mode="signed"``: +1 for a completed span, -1 otherwise.
    """
    if mode not in ("centered", "signed"):
        raise ValueError(f"mode must be 'centered' or 'signed', received {mode!r}")
    if not span_completed:
        return [0.0 for _ in step_span]
    flags = [1.0 if u else 0.0 for u in span_completed]
    mean_u = sum(flags) / len(flags)
    per_span = [u - mean_u for u in flags] if mode == "centered" else [1.0 if u else -1.0 for u in flags]
    out = []
    for m in step_span:
        if m < -1 or m >= len(per_span):
            raise ValueError(f"step span index {m} outside the {len(per_span)} spans")
        out.append(0.0 if m == -1 else per_span[m])
    return out


def group_normalized_span_advantages(group_spans: Sequence[Sequence[tuple[str, bool]]]) -> list[list[float]]:
    """PAGE option: normalize completion across the group's spans of the same subtask.

    `group_spans[i]` lists rollout i's spans as (subtask key, completed). Each span's advantage
    is u - mean(u over every span of that subtask in the group), so a subtask all rollouts
    complete teaches nothing and a rare completion stands out.
    """
    by_key: dict[str, list[float]] = {}
    for spans in group_spans:
        for key, done in spans:
            by_key.setdefault(key, []).append(1.0 if done else 0.0)
    means = {key: sum(v) / len(v) for key, v in by_key.items()}
    return [[(1.0 if done else 0.0) - means[key] for key, done in spans] for spans in group_spans]


def hierarchical_advantages(progress: Sequence[float], intra: Sequence[Sequence[float]],
                            lam: float = 0.5, norm_std: bool = True, eps: float = EPS) -> list[list[float]]:
    """PAGE: A_{i,t} = A_inter_i + lambda * A_intra_{i,t}, where A_inter is the group
    advantage of the progress rewards p_i (so an all-fail group still learns when progress
    differs), and `intra[i]` holds rollout i's per-step subtask advantages."""
    if len(progress) != len(intra):
        raise ValueError(f"expected one intra-advantage list per rollout, received {len(intra)} for {len(progress)} rollouts")
    inter = group_advantages(progress, norm_std=norm_std, eps=eps)
    return [[a + lam * b for b in steps] for a, steps in zip(inter, intra)]
