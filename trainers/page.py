"""PAGE: progress-aware RL with hierarchical advantages (docs/algorithms.md, PAGE).

GRPO's binary outcome gives no signal across rollouts that all fail and spreads one advantage
over every step. PAGE replaces the outcome by the progress p_i of each rollout (criteria met,
from `gui_gym.wrappers.ProgressReward`) for the inter-rollout term, and adds a subtask-level
intra-rollout term from `gui_gym.wrappers.SubtaskAnnotation`:
A_{i,t} = A_inter_i + lambda * A_intra_{i,t}.

The advantage functions sit at the top, checked by hand in tests/trainers/test_trainers_page.py; then the
trainer: the shared GRPO loop (`gui_gym.trainers.grpo.run`) on envs wrapped with the two wrappers,
with `page_advantages` read from their ``info``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Mapping, Sequence

import gymnasium as gym

from gui_gym.agents.base import TrainableAgent
from gui_gym.trainers.grpo import EPS, GRPOConfig, group_advantages, run, seed_everything
from gui_gym.trainers.rollout import EnvPool, Rollout

logger = logging.getLogger(__name__)


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
                            lam: float = 0.5, norm_std: bool = False, eps: float = EPS,
                            inter_weight: float = 1.0) -> list[list[float]]:
    """PAGE: A_{i,t} = w A_inter_i + lambda * A_intra_{i,t}, where A_inter is the group
    advantage of the progress rewards p_i (so an all-fail group still learns when progress
    differs; exactly 0 when every p_i is equal), `intra[i]` holds rollout i's per-step subtask
    advantages, and w = `inter_weight` is 1 (0: the intra-only ablation). `norm_std` as
    `PAGEConfig.inter_norm_std` (off)."""
    if len(progress) != len(intra):
        raise ValueError(f"expected one intra-advantage list per rollout, received {len(intra)} for {len(progress)} rollouts")
    inter = group_advantages(progress, norm_std=norm_std, eps=eps)
    return [[inter_weight * a + lam * b for b in steps] for a, steps in zip(inter, intra)]


# ---- the PAGE trainer: the GRPO loop on envs wrapped with progress and subtasks ----------------


@dataclass
class PAGEConfig(GRPOConfig):
    """GRPO's settings plus PAGE's options (docs/algorithms.md, PAGE definitions 2-5)."""

    lam: float = 0.5
    """lambda: weight of the intra-rollout (subtask) advantage."""
    inter_weight: float = 1.0
    """Weight of the inter-rollout (progress) advantage; 0 is the intra-only ablation."""
    inter_norm_std: bool = False
    """Divide A_inter by the group's progress std (docs/algorithms.md, PAGE definition 3, as GRPO
    does the outcome). Off by default: A_intra is never std-normalized, so a normalized
    A_inter outweighs it by 1/std and flips the sign of steps' subtask credit (2 rollouts at
    milestone 2 and 6 at milestone 1: the leaders' failed span gets +1.29, the others'
    completed one -0.29); unnormalized, both terms are on the progress scale and every sign
    agrees with its subtask (docs/training.md, the learning benchmark, measures the two)."""
    intra_mode: str = "centered"
    """Intra-rollout advantage: "centered" (u - mean u) or "signed" (+1 / -1)."""
    group_norm_spans: bool = False
    """Normalize completion across the group's spans of the same subtask instead."""
    judge: str = "oracle"
    """Who answers PAGE's questions: "oracle" (exact, from the task's milestones: LocalWeb),
    "openai" (an OpenAI-compatible server: judge_base_url, judge_model) or "transformers"
    (a local Qwen-VL-family checkpoint: judge_model is its folder)."""
    judge_base_url: str | None = None
    """The judge server's API root, e.g. http://127.0.0.1:8000/v1 (judge="openai")."""
    judge_model: str | None = None
    """Served model name (judge="openai") or checkpoint folder (judge="transformers")."""
    criteria_store: str | None = None
    """Folder of per-task criteria (``gui-bench criteria``); LVLM judges need it, the oracle has its own."""
    judge_temperature: float = 0.7
    """Sampling temperature of an LVLM judge ("openai", "transformers"): above 0, so that the
    `rounds` passes are independent samples whose aggregate steadies the estimate (at 0 a
    local checkpoint decodes greedily and k rounds are k identical calls)."""
    rounds: int = 3
    """Independent judging passes per progress estimate."""
    aggregate: str = "mean"
    """Per-criterion aggregation over rounds: "mean" or "majority"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.intra_mode not in ("centered", "signed"):
            raise ValueError(f"intra_mode must be 'centered' or 'signed', received {self.intra_mode!r}")
        if self.judge not in JUDGES:
            raise ValueError(f"judge must be one of {JUDGES}, received {self.judge!r}")
        if self.judge_temperature < 0:
            raise ValueError(f"judge_temperature must be >= 0, received {self.judge_temperature}")
        if self.judge != "oracle" and self.rounds > 1 and self.judge_temperature == 0:
            logger.warning("judge_temperature 0 with %d rounds: the rounds are identical calls (greedy decoding)",
                           self.rounds)


JUDGES = ("oracle", "openai", "transformers")


def page_advantages(group: Sequence[Rollout], lam: float = 0.5, intra_mode: str = "centered",
                    group_norm_spans: bool = False, norm_std: bool = False,
                    inter_weight: float = 1.0) -> list[list[float]]:
    """PAGE's A_{i,t} for a group, from each rollout's final ``info``: ``progress`` (the env's
    score when the judge gave none) and ``subtasks`` / ``subtask_of_step`` (no intra term for
    a rollout whose annotation failed)."""
    progress = [r.progress if r.progress is not None else r.score for r in group]
    intra = group_intra_advantages([subtask_spans(r.final_info, len(r)) for r in group], intra_mode, group_norm_spans)
    return hierarchical_advantages(progress, intra, lam=lam, norm_std=norm_std, inter_weight=inter_weight)


def group_intra_advantages(spans: Sequence[tuple[Sequence[Mapping[str, Any]], Sequence[int]]],
                           intra_mode: str = "centered", group_norm_spans: bool = False) -> list[list[float]]:
    """A_intra per step of each rollout of a group, from each rollout's `subtask_spans`: within
    the rollout (`intra_rollout_advantages`), or normalized across the group's spans of the same
    subtask (`group_normalized_span_advantages`). `page_advantages` and verl's
    `page_batch_advantages` both use it."""
    if group_norm_spans:
        span_advantages = group_normalized_span_advantages([[(s["description"], bool(s["completed"])) for s in sp]
                                                            for sp, _ in spans])
        return [[adv[m] if m >= 0 else 0.0 for m in owner] for adv, (_, owner) in zip(span_advantages, spans)]
    return [intra_rollout_advantages([bool(s["completed"]) for s in sp], owner, intra_mode) for sp, owner in spans]


def subtask_spans(info: Mapping[str, Any], steps: int) -> tuple[list[dict[str, Any]], list[int]]:
    """A rollout's subtask spans and each of its `steps` steps' span index, from its final
    ``info`` (`SubtaskAnnotation`'s ``subtasks`` / ``subtask_of_step``); none when it was not
    annotated or the annotation does not cover the steps."""
    subtasks, owner = info.get("subtasks"), info.get("subtask_of_step")
    if subtasks is None or owner is None or len(owner) != steps:
        return [], [-1] * steps
    return list(subtasks), list(owner)


def make_judge(cfg: PAGEConfig) -> Any:
    """The judge `cfg` names."""
    from gui_gym.judges import OracleJudge
    from gui_gym.models.openai_client import OpenAIClient
    from gui_gym.models.transformers_model import TransformersModel

    if cfg.judge == "oracle":
        return OracleJudge()
    if cfg.judge == "openai":
        return OpenAIClient(cfg.judge_model, cfg.judge_base_url, temperature=cfg.judge_temperature)
    if not cfg.judge_model:
        raise ValueError("judge='transformers' needs judge_model: the checkpoint folder")
    return TransformersModel(cfg.judge_model, temperature=cfg.judge_temperature)


def wrap_env(env: gym.Env, judge: Any, cfg: PAGEConfig) -> gym.Env:
    """`env` with PAGE's two wrappers: `SubtaskAnnotation` (info["subtasks"]) inside
    `ProgressReward` (info["progress"], the final reward)."""
    from gui_gym.judges.lvlm import as_trajectory_judge
    from gui_gym.wrappers.progress import ProgressReward
    from gui_gym.wrappers.subtasks import SubtaskAnnotation

    judge = as_trajectory_judge(judge)  # one judge object: the two wrappers share one record of the episode
    return ProgressReward(SubtaskAnnotation(env, judge), judge, criteria_store=cfg.criteria_store,
                          rounds=cfg.rounds, aggregate=cfg.aggregate)


def train(cfg: PAGEConfig, policy: TrainableAgent, make_env: Callable[[], gym.Env], judge: Any = None) -> list[dict[str, Any]]:
    """PAGE = the GRPO loop + `ProgressReward` + `SubtaskAnnotation`, with the hierarchical
    advantage. `judge` overrides the one `cfg` names."""
    seed_everything(cfg.seed)
    judge = judge if judge is not None else make_judge(cfg)
    with EnvPool(make_env, cfg.pool_size, wrap=partial(wrap_env, judge=judge, cfg=cfg)) as pool:
        return run(cfg, policy, pool, advantages=advantage_fn(cfg))


def advantage_fn(cfg: PAGEConfig) -> Callable[[Sequence[Rollout]], list[list[float]]]:
    """`page_advantages` with `cfg`'s options: what PAGE gives the shared loop (also on an env
    that reports progress and subtasks itself, without the wrappers)."""
    return partial(page_advantages, lam=cfg.lam, intra_mode=cfg.intra_mode, group_norm_spans=cfg.group_norm_spans,
                   norm_std=cfg.inter_norm_std, inter_weight=cfg.inter_weight)
