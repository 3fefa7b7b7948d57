"""BEPA on verl: LEVEL-2's cache on a verl batch, and LUFFY's shaping as the ``bepa_luffy``
policy loss.

`level2_injections` applies `gui_gym.trainers.bepa.mix_group` (the rules of our own trainer:
inject the instance's cached success into a group only when every rollout of it failed,
refresh the cache with the group's successes) to a batch's rows: groups are the rows sharing
a ``uid``, the cache's key is the task instance, `gui_gym.trainers.bepa.instance_key`'s
(``task_id``, ``instance_seed``): a LocalWeb template's instances differ in names, values and
world, so one instance's success is no expert for another's group. The cache holds whatever
the caller keeps of a row: `level2_hook` a one-row `DataProto` (verl's v0 batches), the
``gui_gym`` trainer the row's fields as verl's TransferQueue stores them. An injected row
takes its group's ``uid`` and is marked off-policy; its old log-probs are recomputed under the
current weights like every row's, as in our trainer.

The loss: verl 0.9.1's ``ppo_loss`` (``verl/workers/utils/losses.py``) calls a registered
policy loss with log-probs, advantages, mask, aggregation, config and rollout-correction
weights only. `bepa_ppo_loss` is the actor's loss function the ``gui_gym`` trainer installs
(``set_loss_fn``): it reads the micro-batch's ``off_policy`` field and calls verl's own
``ppo_loss``, whose ``bepa_luffy`` then finds the mask; ``bepa_luffy`` reached any other way
refuses to run rather than silently clip every token.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Hashable, Iterator, Sequence

import torch
from verl.trainer.ppo.core_algos import agg_loss, register_policy_loss

from gui_gym.errors import UsageError
from gui_gym.trainers import metrics
from gui_gym.trainers.bepa import TaskCache, luffy_weight, mix_group
from gui_gym.trainers.grpo import clipped_policy_losses
from gui_gym.trainers.verl_plugins.names import SELECT_TRAINER

LOSS = "bepa_luffy"
BEPA_OPTIONS = {"bepa_level2": False, "bepa_cache_capacity": 1, "bepa_inject_index": 0,
                "bepa_success_threshold": 1.0, "bepa_luffy_gamma": 0.1, "bepa_level1_groups": 1,
                "bepa_level1_group_size": None}
"""BEPA's keys in verl's ``algorithm`` section, with their defaults (`gui_gym.trainers.bepa.BEPAConfig`'s
names with a ``bepa_`` prefix; ``bepa_level2`` turns LEVEL-2 on). LEVEL-1 plays every dataset
row that carries a plan ``bepa_level1_groups`` times (0: no LEVEL-1), ``bepa_level1_group_size``
episodes each (None: ``rollout.n``): `gui_gym.trainers.bepa.BEPAConfig`'s ``level1_every_instance``
over the rows, the dataset being the training set."""

_OFF_POLICY: ContextVar[tuple[torch.Tensor, float] | None] = ContextVar("gui_gym_bepa_off_policy", default=None)


def level2_injections(uids: Sequence[Hashable], instances: Sequence[Hashable], scores: Sequence[float],
                      cache: TaskCache, row: Callable[[int], Any], *, inject_index: int = 0, cached_score: float = 1.0,
                      success_threshold: float = 1.0) -> tuple[dict[int, Any], dict[str, float]]:
    """LEVEL-2 on a batch's rows: {row to overwrite: the cached payload} and the counters the
    paper logs. `instances[r]` is row r's cache key, `row(r)` the payload the cache keeps of a
    success (asked for successes only)."""
    groups: dict[Hashable, list[int]] = {}
    for r, uid in enumerate(uids):
        groups.setdefault(uid, []).append(r)
    injections: dict[int, Any] = {}
    counters = {metrics.ALL_FAIL_GROUPS: 0.0, metrics.INJECTIONS: 0.0}
    for members in groups.values():
        index = min(inject_index, len(members) - 1)
        payloads = [row(r) if scores[r] >= success_threshold else None for r in members]
        result = mix_group(instances[members[0]], payloads, [scores[r] for r in members], cache,
                           cached_score=cached_score, inject_index=index, success_threshold=success_threshold)
        counters[metrics.ALL_FAIL_GROUPS] += float(result.all_failed)
        if result.injected:
            counters[metrics.INJECTIONS] += 1.0
            injections[members[index]] = result.rollouts[index]
    counters[metrics.CACHE_INSTANCES] = float(len(cache))
    return injections, counters


def level1_rows(rows: Sequence[dict[str, Any]], groups: int) -> list[dict[str, Any]]:
    """LEVEL-1's prompts: each dataset row whose ``extra_info`` carries a ``plan`` (the
    expert-covered instances; the others are BEPA's held-out ones), `groups` times, marked
    for the agent loop to act on its plan (`agent_loop.LEVEL1_FLAG`)."""
    from gui_gym.trainers.verl_plugins.agent_loop import LEVEL1_FLAG

    covered = [row for row in rows if len(_plan_of(row)) > 0]
    if not covered:
        raise UsageError("BEPA's LEVEL-1 (algorithm.bepa_level1_groups > 0) found no training row with "
                         "extra_info.plan: write the rows with python -m gui_gym.trainers.verl_plugins.tasks --plans, "
                         "or set algorithm.bepa_level1_groups=0")
    return [{**row, "extra_info": {**row["extra_info"], LEVEL1_FLAG: True}} for _ in range(groups) for row in covered]


def _plan_of(row: dict[str, Any]) -> Sequence[str]:
    """A dataset row's plan, empty when it has none (a parquet row's list reads back as an array)."""
    plan = (row.get("extra_info") or {}).get("plan")
    return () if plan is None else plan


def level1_seeding(cache: TaskCache, instances: Sequence[Hashable], episodes: Sequence[dict[str, Any]],
                   row: Callable[[int], Any]) -> dict[str, float]:
    """LEVEL-1's outcome on a batch of plan-conditioned samples: as `gui_gym.trainers.bepa.level1`,
    every successful episode (``success``, no infrastructure error) is put in the cache under
    its task instance (`instances[r]`) with source "level1"; `row(r)` is the payload kept.
    Returns the counters our trainer logs."""
    successes = [r for r, episode in enumerate(episodes) if episode.get("success") and not episode.get("infra_error")]
    for r in successes:
        cache.put(instances[r], row(r), "level1")
    return {metrics.LEVEL1_EPISODES: float(len(episodes)), metrics.LEVEL1_SUCCESSES: float(len(successes)),
            metrics.CACHE_TASKS: float(len(cache))}


def level2_hook(data: Any, cache: TaskCache, *, inject_index: int = 0, cached_score: float = 1.0,
                success_threshold: float = 1.0) -> tuple[Any, dict[str, float]]:
    """LEVEL-2 on a verl `DataProto` (after the reward, before the advantage): the mixed batch,
    rows in their order, an injected one in place of its group's `inject_index`-th and marked
    in ``batch["off_policy"]``, and the counters. Scores are ``token_level_scores`` summed."""
    from verl import DataProto

    scores = data.batch["token_level_scores"].sum(dim=-1).tolist()
    nt = data.non_tensor_batch
    instances = [(str(task), None if seed is None else int(seed))
                 for task, seed in zip(nt["task_id"], nt.get("instance_seed", [None] * len(data)))]
    injections, counters = level2_injections(nt["uid"], instances, scores, cache, lambda r: _copy_row(data[r:r + 1]),
                                             inject_index=inject_index, cached_score=cached_score,
                                             success_threshold=success_threshold)
    rows = [data[r:r + 1] for r in range(len(data))]
    for r, cached in injections.items():
        rows[r] = _copy_row(cached)
        rows[r].non_tensor_batch["uid"][0] = nt["uid"][r]
    mixed = DataProto.concat(rows)
    mixed.batch["off_policy"] = torch.tensor([r in injections for r in range(len(data))])
    return mixed, counters


def bepa_ppo_loss(config: Any, model_output: Any, data: Any, dp_group: Any = None, *,
                  luffy_gamma: float = 0.1) -> Any:
    """verl's ``ppo_loss`` with the micro-batch's ``off_policy`` rows handed to ``bepa_luffy``:
    the actor loss the ``gui_gym`` trainer installs with ``set_loss_fn``."""
    from verl.workers.utils.losses import ppo_loss

    if "off_policy" not in data.keys():
        raise UsageError(f"{LOSS}: the micro-batch has no off_policy field (the gui_gym trainer writes it with "
                         "LEVEL-2: algorithm.bepa_level2=true)")
    with off_policy_rows(data["off_policy"], luffy_gamma):
        return ppo_loss(config, model_output, data, dp_group)


@contextmanager
def off_policy_rows(off_policy: torch.Tensor, luffy_gamma: float) -> Iterator[None]:
    """Within the block, ``bepa_luffy`` reads `off_policy` ([batch] bools) and LUFFY's gamma."""
    token = _OFF_POLICY.set((off_policy, luffy_gamma))
    try:
        yield
    finally:
        _OFF_POLICY.reset(token)


@register_policy_loss(LOSS)
def compute_policy_loss_bepa_luffy(old_log_prob: torch.Tensor, log_prob: torch.Tensor, advantages: torch.Tensor,
                                   response_mask: torch.Tensor, loss_agg_mode: str = "token-mean",
                                   config: Any = None, rollout_is_weights: torch.Tensor | None = None,
                                   off_policy: torch.Tensor | None = None,
                                   luffy_gamma: float | None = None) -> tuple[torch.Tensor, dict[str, Any]]:
    """verl's clipped loss (dual clip at the config's ``clip_ratio_c``) on the policy's own
    tokens and LUFFY's -A p / (p + gamma) on the rows `off_policy` marks ([batch] or [batch,
    tokens] bools; default: what `bepa_ppo_loss` hands over), aggregated by verl's `agg_loss`."""
    if off_policy is None:
        given = _OFF_POLICY.get()
        if given is None:
            raise UsageError(f"loss_mode={LOSS} needs the gui_gym trainer ({SELECT_TRAINER}, "
                             "algorithm.bepa_level2=true): verl's own ppo_loss passes a policy loss no off-policy rows")
        off_policy, gamma = given
        luffy_gamma = gamma if luffy_gamma is None else luffy_gamma
    luffy_gamma = BEPA_OPTIONS["bepa_luffy_gamma"] if luffy_gamma is None else luffy_gamma
    off_policy = off_policy.to(device=log_prob.device, dtype=torch.bool)
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
    return loss, {metrics.OFF_POLICY_TOKENS: float((off_policy.expand_as(losses) & response_mask.bool()).sum())}


def _copy_row(row: Any) -> Any:
    """A one-row `DataProto` that shares no storage with `row`: the cache keeps successes
    without holding their whole batch, and an injected row is the cache's copy."""
    from verl import DataProto

    return DataProto(batch=row.batch.clone(), non_tensor_batch={k: v.copy() for k, v in row.non_tensor_batch.items()},
                     meta_info=dict(row.meta_info))
