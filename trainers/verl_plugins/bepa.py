"""BEPA on verl: LEVEL-2's cache as a batch hook, and LUFFY's shaping as verl's
``bepa_luffy`` policy loss.

`level2_hook` applies `gui_gym.trainers.bepa.mix_group` (the same rules as our trainer: inject the
task's cached success into a group only when every rollout of it failed, refresh the cache
with the group's successes) to a verl `DataProto` after the reward and before the
advantages: groups are the samples sharing a ``uid``, a task is ``non_tensor_batch["task_id"]``,
a sample's score its ``token_level_scores`` summed. A cached sample is one row of an earlier
batch (verl pads every batch to the same prompt and response lengths); an injected row takes
its group's ``uid`` and is marked ``batch["off_policy"]``. Its old log-probs are then
recomputed under the current weights like every row's, as in our trainer.

The loss: verl 0.9.1 calls a registered policy loss with old and new log-probs, advantages,
response mask, aggregation mode, config and rollout-correction weights only
(``verl/workers/utils/losses.py``, ``ppo_loss``), no per-sample field, so the off-policy mask
cannot reach it from a verl config; ``bepa_luffy`` takes it as ``off_policy`` and refuses to
run without it rather than silently clip every token. BEPA without LUFFY (the papers'
default) needs no loss of its own: verl's ``vanilla`` on the mixed batch is it.
"""

from __future__ import annotations

from typing import Any, Hashable

import torch
from verl.trainer.ppo.core_algos import agg_loss, register_policy_loss

from gui_gym.trainers.bepa import TaskCache, luffy_weight, mix_group
from gui_gym.trainers.grpo import clipped_policy_losses

LOSS = "bepa_luffy"


def level2_hook(data: Any, cache: TaskCache, *, inject_index: int = 0, cached_score: float = 1.0,
                success_threshold: float = 1.0) -> tuple[Any, dict[str, float]]:
    """LEVEL-2 on a verl batch: the mixed batch (rows in their order, an injected row in
    place of the group's `inject_index`-th) and the counters the paper logs."""
    from verl import DataProto

    scores = data.batch["token_level_scores"].sum(dim=-1).tolist()
    uids, tasks = data.non_tensor_batch["uid"], data.non_tensor_batch["task_id"]
    groups: dict[Hashable, list[int]] = {}
    for row, uid in enumerate(uids):
        groups.setdefault(uid, []).append(row)
    rows: list[Any] = [data[row:row + 1] for row in range(len(data))]
    off_policy = [False] * len(data)
    counters = {"bepa/all_fail_groups": 0.0, "bepa/injections": 0.0}
    for uid, members in groups.items():
        index = min(inject_index, len(members) - 1)
        candidates = [_copy_row(rows[r]) if scores[r] >= success_threshold else rows[r] for r in members]
        result = mix_group(tasks[members[0]], candidates, [scores[r] for r in members], cache,
                           cached_score=cached_score, inject_index=index, success_threshold=success_threshold)
        counters["bepa/all_fail_groups"] += float(result.all_failed)
        if result.injected:
            counters["bepa/injections"] += 1.0
            target = members[index]
            injected = _copy_row(result.rollouts[index])
            injected.non_tensor_batch["uid"][0] = uid
            rows[target], off_policy[target] = injected, True
    mixed = DataProto.concat(rows)
    mixed.batch["off_policy"] = torch.tensor(off_policy)
    return mixed, counters


@register_policy_loss(LOSS)
def compute_policy_loss_bepa_luffy(old_log_prob: torch.Tensor, log_prob: torch.Tensor, advantages: torch.Tensor,
                                   response_mask: torch.Tensor, loss_agg_mode: str = "token-mean",
                                   config: Any = None, rollout_is_weights: torch.Tensor | None = None,
                                   off_policy: torch.Tensor | None = None,
                                   luffy_gamma: float = 0.1) -> tuple[torch.Tensor, dict[str, Any]]:
    """verl's clipped loss (dual clip at the config's ``clip_ratio_c``) on the policy's own
    tokens and LUFFY's -A p / (p + gamma) on the rows `off_policy` marks ([batch] or [batch,
    tokens] bools), aggregated by verl's `agg_loss`."""
    if off_policy is None:
        raise ValueError(f"{LOSS} needs the off-policy mask (batch['off_policy'] from level2_hook); verl 0.9.1's "
                         "ppo_loss does not forward it, so call this loss with off_policy=... (or use 'vanilla')")
    clip_low = config.clip_ratio_low if config.clip_ratio_low is not None else config.clip_ratio
    clip_high = config.clip_ratio_high if config.clip_ratio_high is not None else config.clip_ratio
    losses = clipped_policy_losses(log_prob, old_log_prob, advantages, clip_low, clip_high,
                                   dual_clip=config.get("clip_ratio_c", 3.0))
    if off_policy.dim() == 1:
        off_policy = off_policy.unsqueeze(-1)
    losses = torch.where(off_policy.expand_as(losses), -advantages * luffy_weight(log_prob.exp(), luffy_gamma), losses)
    if rollout_is_weights is not None:
        losses = losses * rollout_is_weights
    loss = agg_loss(loss_mat=losses, loss_mask=response_mask, loss_agg_mode=loss_agg_mode,
                    **getattr(config, "global_batch_info", {}))
    return loss, {"bepa/off_policy_tokens": float((off_policy.expand_as(losses) & response_mask.bool()).sum())}


def _copy_row(row: Any) -> Any:
    """A one-row `DataProto` that shares no storage with `row`: the cache keeps successes
    without holding their whole batch, and an injected row is the cache's copy."""
    from verl import DataProto

    return DataProto(batch=row.batch.clone(), non_tensor_batch={k: v.copy() for k, v in row.non_tensor_batch.items()},
                     meta_info=dict(row.meta_info))
