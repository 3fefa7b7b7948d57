"""PAGE's hierarchical advantage as verl's ``page`` advantage estimator.

verl calls an estimator with the batch's ``token_level_rewards`` [batch, response tokens],
``response_mask`` (1 on the policy's own tokens, 0 on observations and padding), ``index``
(the ``uid`` of each sample's group) and ``config``. The progress p_i of rollout i is its
reward's sum (the agent loop scores an episode with its progress, as ``ProgressReward``
does); A_inter is `gui_gym.trainers.grpo.group_advantages` of the progress per group (verl's GRPO
semantics: unbiased std, eps 1e-6, a group of one gets mean 0 and std 1).

The intra-rollout term needs each token's step and each step's subtask: verl 0.9.1's
``compute_advantage`` (``verl/trainer/ppo/ray_trainer.py``) forwards only the four inputs
above (``non_tensor_batch`` only to ``gdpo``), so through a verl config name the estimator
gives A_inter alone, GRPO with progress. `page_batch_advantages` is the whole of PAGE on a
`DataProto` that carries ``step_index`` (each response token's step, -1 off the policy's
tokens) and per-sample ``subtasks`` / ``subtask_of_step``: it computes the per-step term with
`gui_gym.trainers.page`'s own functions and passes it to the same registered estimator. A trainer
calls it where verl's ``compute_advantage`` is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from verl.trainer.ppo.core_algos import register_adv_est

from gui_gym.trainers.grpo import EPS, group_advantages
from gui_gym.trainers.page import group_intra_advantages, subtask_spans

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


PAGE_OPTIONS = {"page_lam": 0.5, "page_intra_mode": "centered", "page_group_norm_spans": False,
                "norm_adv_by_std_in_grpo": True}
"""PAGE's options in verl's ``algorithm`` config (`gui_gym.trainers.page.PAGEConfig`'s ``lam``,
``intra_mode``, ``group_norm_spans``; A_inter's std normalization is verl's own key), with
their defaults."""


def page_batch_advantages(data: Any, config: Any = None, **options: Any) -> Any:
    """PAGE on a verl `DataProto`: the per-token intra term, then the registered estimator;
    writes ``batch["advantages"]`` and ``batch["returns"]`` and returns `data`.

    Each token's step is ``batch["step_index"]`` or, as the ``gui_gym`` agent loop leaves it,
    ``non_tensor_batch["step_index"]`` (one list per sample, -1 off the policy's tokens); each
    sample's spans are ``non_tensor_batch["subtasks"]`` / ``["subtask_of_step"]`` (the last
    ``info``'s). The options are `PAGE_OPTIONS`, read from `config` (verl's ``algorithm``
    section) and overridden by keywords (``lam``, ``intra_mode``, ``group_norm_spans``,
    ``norm_std``). The intra term is `gui_gym.trainers.page.group_intra_advantages` of each ``uid``
    group, as `gui_gym.trainers.page.page_advantages` computes it: ``group_norm_spans`` normalizes
    each span's completion across the group's spans of the same subtask."""
    names = {"lam": "page_lam", "intra_mode": "page_intra_mode", "group_norm_spans": "page_group_norm_spans",
             "norm_std": "norm_adv_by_std_in_grpo"}
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise TypeError(f"page_batch_advantages: unknown option(s) {unknown}; expected some of {sorted(names)}")
    settings = {key: _config_value(config, key, default) if config is not None else default
                for key, default in PAGE_OPTIONS.items()}
    settings.update({names[key]: value for key, value in options.items()})
    step_index = _step_index(data)
    groups: dict[Any, list[int]] = {}
    for row, uid in enumerate(data.non_tensor_batch["uid"]):
        groups.setdefault(uid, []).append(row)
    per_step: list[list[float]] = [[] for _ in range(len(data))]
    for rows in groups.values():
        spans = []
        for row in rows:
            info = {key: data.non_tensor_batch[key][row] for key in ("subtasks", "subtask_of_step")
                    if key in data.non_tensor_batch}
            spans.append(subtask_spans(info, int(step_index[row].max()) + 1))
        for row, values in zip(rows, group_intra_advantages(spans, settings["page_intra_mode"],
                                                            bool(settings["page_group_norm_spans"]))):
            per_step[row] = values
    intra = torch.zeros(step_index.shape, dtype=torch.float32)
    for row, values in enumerate(per_step):
        intra[row] = torch.tensor(values + [0.0])[step_index[row]]  # index -1 (off the policy's tokens) reads the 0
    advantages, returns = compute_page_advantage(data.batch["token_level_rewards"], data.batch["response_mask"],
                                                 data.non_tensor_batch["uid"],
                                                 norm_adv_by_std_in_grpo=bool(settings["norm_adv_by_std_in_grpo"]),
                                                 page_intra=intra, page_lam=float(settings["page_lam"]))
    data.batch["advantages"], data.batch["returns"] = advantages, returns
    return data


def _step_index(data: Any) -> torch.Tensor:
    """Each response token's step, [batch, response tokens]: the batch's tensor, or the agent
    loop's per-sample lists padded with -1 to the response width."""
    if "step_index" in data.batch.keys():
        return data.batch["step_index"].long()
    if "step_index" not in data.non_tensor_batch:
        raise KeyError("PAGE's verl advantage needs each token's step: batch['step_index'] or "
                       "non_tensor_batch['step_index'] (the gui_gym agent loop's extra field)")
    width = data.batch["response_mask"].shape[1]
    out = torch.full((len(data), width), -1, dtype=torch.long)
    for row, steps in enumerate(data.non_tensor_batch["step_index"]):
        steps = list(steps)[:width]
        out[row, :len(steps)] = torch.tensor(steps, dtype=torch.long)
    return out


def _config_value(config: Any, key: str, default: Any) -> Any:
    """`key` of a verl config (an `AlgoConfig` dataclass or an omegaconf dict)."""
    getter = getattr(config, "get", None)
    return getter(key, default) if callable(getter) else getattr(config, key, default)
