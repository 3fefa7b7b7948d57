"""PAGE's hierarchical advantage as verl's ``page`` advantage estimator.

verl calls an estimator with the batch's ``token_level_rewards`` [batch, response tokens],
``response_mask`` (1 on the policy's own tokens, 0 on observations and padding), ``index``
(the ``uid`` of each sample's group) and ``config``. The progress p_i of rollout i is its
reward's sum (the agent loop scores an episode with its progress, as ``ProgressReward``
does); A_inter is `trainers.grpo.group_advantages` of the progress per group (verl's GRPO
semantics: unbiased std, eps 1e-6, a group of one gets mean 0 and std 1).

The intra-rollout term needs each token's step and each step's subtask: verl 0.9.1's
``compute_advantage`` (``verl/trainer/ppo/ray_trainer.py``) forwards only the four inputs
above (``non_tensor_batch`` only to ``gdpo``), so through a verl config name the estimator
gives A_inter alone, GRPO with progress. `page_batch_advantages` is the whole of PAGE on a
`DataProto` that carries ``step_index`` (each response token's step, -1 off the policy's
tokens) and per-sample ``subtasks`` / ``subtask_of_step``: it computes the per-step term with
`trainers.page`'s own functions and passes it to the same registered estimator. A trainer
calls it where verl's ``compute_advantage`` is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from verl.trainer.ppo.core_algos import register_adv_est

from trainers.grpo import EPS, group_advantages
from trainers.page import intra_rollout_advantages, subtask_spans

ESTIMATOR = "page"


@register_adv_est(ESTIMATOR)
def compute_page_advantage(token_level_rewards: torch.Tensor, response_mask: torch.Tensor, index: np.ndarray,
                           epsilon: float = EPS, norm_adv_by_std_in_grpo: bool = True, config: Any = None,
                           page_intra: torch.Tensor | None = None, page_lam: float | None = None,
                           **unused: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """A_{i,tok} = A_inter_i + lambda x page_intra[i, tok] on the response tokens (0 elsewhere);
    advantages and returns, as verl's estimators return them. `page_intra` is the per-token
    intra-rollout term ([batch, tokens]; None: none), lambda is `page_lam`, else the config's
    ``page_lam``, else 0.5; ``norm_adv_by_std_in_grpo`` is read from the config when it has it."""
    if config is not None:
        norm_adv_by_std_in_grpo = bool(_config_value(config, "norm_adv_by_std_in_grpo", norm_adv_by_std_in_grpo))
        if page_lam is None:
            page_lam = _config_value(config, "page_lam", None)
    lam = 0.5 if page_lam is None else float(page_lam)
    progress = token_level_rewards.sum(dim=-1)
    inter = torch.zeros_like(progress)
    groups: dict[Any, list[int]] = {}
    for row, uid in enumerate(index):
        groups.setdefault(uid, []).append(row)
    for rows in groups.values():
        values = group_advantages([float(progress[r]) for r in rows], norm_std=norm_adv_by_std_in_grpo, eps=epsilon)
        inter[rows] = torch.tensor(values, dtype=inter.dtype)
    advantages = inter.unsqueeze(-1).expand_as(token_level_rewards).clone()
    if page_intra is not None:
        advantages = advantages + lam * page_intra.to(advantages.dtype)
    advantages = advantages * response_mask
    return advantages, advantages


def page_batch_advantages(data: Any, *, lam: float = 0.5, intra_mode: str = "centered",
                          norm_std: bool = True) -> Any:
    """PAGE on a verl `DataProto`: the per-token intra term from ``batch["step_index"]`` and
    each sample's ``non_tensor_batch["subtasks"]`` / ``["subtask_of_step"]`` (what the agent
    loop records from the env's ``info``), then the registered estimator; writes
    ``batch["advantages"]`` and ``batch["returns"]`` and returns `data`."""
    step_index = data.batch["step_index"]
    intra = torch.zeros(step_index.shape, dtype=torch.float32)
    for row in range(len(data)):
        steps = int(step_index[row].max()) + 1
        info = {key: data.non_tensor_batch[key][row] for key in ("subtasks", "subtask_of_step")
                if key in data.non_tensor_batch}
        spans, owner = subtask_spans(info, steps)
        per_step = torch.tensor(intra_rollout_advantages([bool(s["completed"]) for s in spans], owner, intra_mode)
                                + [0.0])  # index -1 (off the policy's tokens) reads the trailing 0
        intra[row] = per_step[step_index[row]]
    advantages, returns = compute_page_advantage(data.batch["token_level_rewards"], data.batch["response_mask"],
                                                 data.non_tensor_batch["uid"], norm_adv_by_std_in_grpo=norm_std,
                                                 page_intra=intra, page_lam=lam)
    data.batch["advantages"], data.batch["returns"] = advantages, returns
    return data


def _config_value(config: Any, key: str, default: Any) -> Any:
    """`key` of a verl config (an `AlgoConfig` dataclass or an omegaconf dict)."""
    getter = getattr(config, "get", None)
    return getter(key, default) if callable(getter) else getattr(config, key, default)
