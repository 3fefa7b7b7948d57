"""PAGE's hierarchical advantage on a verl batch, and verl's ``page`` estimator name.

PAGE needs more than verl 0.9.1 hands a registered estimator: ``compute_advantage``
(``verl/trainer/ppo/ray_trainer.py``) and the v1 trainer's ``_compute_advantage`` pass
``token_level_rewards``, ``response_mask``, ``index`` and ``config`` only, so an estimator
called that way could compute GRPO on progress, never the subtask term. The ``gui_gym``
trainer (`gui_gym.trainers.verl_plugins.trainer`) computes the advantage itself with
`token_advantages`; the name ``page`` stays registered so that a config naming it without
that trainer fails on its first call with a message saying which trainer to select
(`compute_page_advantage`), instead of training GRPO under PAGE's name.

`token_advantages` is PAGE on tokens: each rollout's progress p_i is its reward's sum (the
agent loop scores an episode with its progress, as ``ProgressReward`` does); each token's step
comes from the agent loop's ``step_index`` (-1 off the policy's tokens) and each step's subtask
span from its ``subtasks`` / ``subtask_of_step``; the per-step advantage is
`gui_gym.trainers.page.hierarchical_advantages` of `gui_gym.trainers.page.group_intra_advantages`
per ``uid`` group, as `gui_gym.trainers.page.page_advantages` computes it for our own trainer.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import torch
from verl.trainer.ppo.core_algos import register_adv_est

from gui_gym.errors import UsageError
from gui_gym.trainers.grpo import EPS
from gui_gym.trainers.page import group_intra_advantages, hierarchical_advantages, subtask_spans
from gui_gym.trainers.verl_plugins.names import SELECT_TRAINER

ESTIMATOR = "page"

PAGE_OPTIONS = {"page_lam": 0.5, "page_intra_mode": "centered", "page_group_norm_spans": False,
                "page_inter_weight": 1.0}
"""PAGE's keys in verl's ``algorithm`` section, with their defaults: `gui_gym.trainers.page.PAGEConfig`'s
``lam``, ``intra_mode``, ``group_norm_spans`` and ``inter_weight``. A_inter's std
normalization is verl's own ``norm_adv_by_std_in_grpo`` (verl's default: on; PAGEConfig's
``inter_norm_std``: off)."""

EPISODE_FIELDS = ("step_index", "subtasks", "subtask_of_step")
"""What PAGE reads of the agent loop's ``extra_fields`` per sample."""


@register_adv_est(ESTIMATOR)
def compute_page_advantage(token_level_rewards: torch.Tensor, response_mask: torch.Tensor, index: np.ndarray,
                           config: Any = None, **unused: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Reached only when verl's generic advantage step calls ``page``: without the ``gui_gym``
    trainer, which verl gives no step index or subtask, so this refuses rather than train GRPO."""
    raise UsageError(f"algorithm.adv_estimator=page needs the gui_gym trainer ({SELECT_TRAINER}): verl's own "
                     "advantage step passes an estimator no step index or subtask, so it cannot compute PAGE")


def page_options(config: Any) -> dict[str, Any]:
    """`PAGE_OPTIONS` and ``norm_adv_by_std_in_grpo`` as verl's ``algorithm`` section (an
    omegaconf node, a dict or an `AlgoConfig`) sets them."""
    options = {key: _config_value(config, key, default) for key, default in PAGE_OPTIONS.items()}
    options["norm_adv_by_std_in_grpo"] = bool(_config_value(config, "norm_adv_by_std_in_grpo", True))
    if options["page_intra_mode"] not in ("centered", "signed"):
        raise UsageError(f"algorithm.page_intra_mode must be 'centered' or 'signed', received "
                         f"{options['page_intra_mode']!r}")
    return options


def token_advantages(rewards: torch.Tensor, response_mask: torch.Tensor, uids: Sequence[Any],
                     episodes: Sequence[Mapping[str, Any]], config: Any = None) -> torch.Tensor:
    """PAGE's A_{i,tok} [batch, tokens]: the per-step advantage of the token's step (A_inter
    alone on a policy token outside every step), 0 off the response mask. `rewards` and
    `response_mask` are padded [batch, tokens]; `episodes[i]` holds rollout i's
    `EPISODE_FIELDS` (the agent loop's extra fields); options as `page_options` reads them."""
    options = page_options(config)
    width = response_mask.shape[1]
    steps = torch.full((len(episodes), width), -1, dtype=torch.long)
    for row, episode in enumerate(episodes):
        if episode.get("step_index") is None:
            raise UsageError("PAGE's advantage needs each sample's step_index (the gui_gym agent loop's extra field); "
                             f"sample {row} has none: is actor_rollout_ref.rollout.agent.default_agent_loop gui_gym?")
        own = list(episode["step_index"])[:width]
        steps[row, :len(own)] = torch.tensor(own, dtype=torch.long)
    progress = rewards.sum(dim=-1).tolist()
    groups: dict[Any, list[int]] = {}
    for row, uid in enumerate(uids):
        groups.setdefault(uid, []).append(row)
    out = torch.zeros(steps.shape, dtype=torch.float32)
    for rows in groups.values():
        spans = [subtask_spans(_info(episodes[r]), int(steps[r].max()) + 1) for r in rows]
        intra = group_intra_advantages(spans, options["page_intra_mode"], bool(options["page_group_norm_spans"]))
        # one more "step" with no subtask term: index -1 (a token outside every step) reads A_inter alone
        per_step = hierarchical_advantages([progress[r] for r in rows], [values + [0.0] for values in intra],
                                           lam=float(options["page_lam"]), norm_std=options["norm_adv_by_std_in_grpo"],
                                           eps=EPS, inter_weight=float(options["page_inter_weight"]))
        for row, values in zip(rows, per_step):
            out[row] = torch.tensor(values, dtype=torch.float32)[steps[row]]
    return out * response_mask.to(out.dtype)


def page_batch_advantages(data: Any, config: Any = None) -> Any:
    """`token_advantages` on a verl `DataProto` whose ``non_tensor_batch`` holds the agent
    loop's fields (verl's v0 post-processing puts each ``extra_fields`` key there) and whose
    ``token_level_rewards`` is set; writes ``batch["advantages"]`` and ``["returns"]``."""
    nt = data.non_tensor_batch
    episodes = [{key: nt[key][row] if key in nt else None for key in EPISODE_FIELDS} for row in range(len(data))]
    advantages = token_advantages(data.batch["token_level_rewards"], data.batch["response_mask"], nt["uid"],
                                  episodes, config)
    data.batch["advantages"], data.batch["returns"] = advantages, advantages.clone()
    return data


def _info(episode: Mapping[str, Any]) -> dict[str, Any]:
    return {key: episode.get(key) for key in ("subtasks", "subtask_of_step") if episode.get(key) is not None}


def _config_value(config: Any, key: str, default: Any) -> Any:
    """`key` of a verl config (an `AlgoConfig` dataclass, an omegaconf node or a dict)."""
    if config is None:
        return default
    getter = getattr(config, "get", None)
    return getter(key, default) if callable(getter) else getattr(config, key, default)
