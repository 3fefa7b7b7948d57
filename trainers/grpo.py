"""GRPO, the core PAGE and BEPA share: group advantages (verl semantics), the clipped
token-level policy loss with its aggregation modes, and the k3 KL to a reference.

The math sits at the top as small pure functions named after the paper's symbols, each
checked against hand-computed values in tests/test_grpo.py. A *group* is G rollouts of one task
(same task id and seed); only the policy's own output tokens are trained (``mask``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import torch

EPS = 1e-6


def group_advantages(scores: Sequence[float], norm_std: bool = True, eps: float = EPS) -> list[float]:
    """GRPO (verl semantics): A_i = (s_i - mean) / (std + eps), std unbiased; a group of one
    has mean 0 and std 1 (verl's convention); ``norm_std=False`` gives s_i - mean (Dr.GRPO).

    >>> [round(a, 3) for a in group_advantages([1, 0, 0, 0, 0, 0, 0, 0])][:2]
    [2.475, -0.354]
    """
    n = len(scores)
    if n == 0:
        return []
    if n == 1:
        mean, std = 0.0, 1.0
    else:
        mean = sum(scores) / n
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    if not norm_std:
        return [s - mean for s in scores]
    return [(s - mean) / (std + eps) for s in scores]


def all_equal(scores: Sequence[float], tol: float = 0.0) -> bool:
    """Whether a group carries no GRPO signal (every score the same, e.g. all fail)."""
    return len(scores) > 0 and max(scores) - min(scores) <= tol




AGGREGATIONS = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum")


def clipped_policy_loss(logp: "torch.Tensor", old_logp: "torch.Tensor", advantages: "torch.Tensor",
                        mask: "torch.Tensor", clip_low: float = 0.2, clip_high: float = 0.2,
                        dual_clip: float | None = None, aggregation: str = "token-mean") -> "torch.Tensor":
    """PPO-clip on tokens: r = exp(clamp(logp - old_logp, -20, 20)),
    L = max(-A r, -A clip(r, 1 - e_low, 1 + e_high)); with `dual_clip` c (verl's clip_ratio_c,
    3.0 in the papers) the loss of A < 0 tokens is capped at -A c. Tensors are [batch, tokens]
    (advantages broadcast from [batch, 1] or [batch, tokens]); `mask` marks trained tokens."""
    import torch

    ratio = torch.exp(torch.clamp(logp - old_logp, -20.0, 20.0))
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    losses = torch.maximum(unclipped, clipped)
    if dual_clip is not None:
        if dual_clip <= 1.0:
            raise ValueError(f"dual_clip must be > 1, received {dual_clip}")
        losses = torch.where(advantages < 0, torch.minimum(losses, -advantages * dual_clip), losses)
    return aggregate(losses, mask, aggregation)


def kl_k3(logp: "torch.Tensor", ref_logp: "torch.Tensor") -> "torch.Tensor":
    """Per-token k3 estimator of KL(pi || ref): exp(ref - logp) - (ref - logp) - 1 (>= 0)."""
    import torch

    log_ratio = torch.clamp(ref_logp - logp, -20.0, 20.0)
    return torch.exp(log_ratio) - log_ratio - 1.0


def aggregate(values: "torch.Tensor", mask: "torch.Tensor", mode: str = "token-mean") -> "torch.Tensor":
    """verl's loss aggregation over a [batch, tokens] tensor: `token-mean` (every trained token
    weighs the same), `seq-mean-token-mean` (every sequence weighs the same),
    `seq-mean-token-sum` (sequence sums, averaged)."""
    mask = mask.to(values.dtype)
    if mode == "token-mean":
        return (values * mask).sum() / mask.sum().clamp(min=1.0)
    per_seq = (values * mask).sum(dim=-1)
    if mode == "seq-mean-token-mean":
        per_seq = per_seq / mask.sum(dim=-1).clamp(min=1.0)
    elif mode != "seq-mean-token-sum":
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, received {mode!r}")
    return per_seq.mean()
