"""GRPO, the core PAGE and BEPA share: group advantages (verl semantics), the clipped
token-level policy loss with its aggregation modes, the k3 KL to a reference, then the update
(epochs, minibatches, gradient clipping) and the training loop all three methods run.

The math sits at the top as small pure functions named after the paper's symbols, each
checked against hand-computed values in tests/test_grpo.py. A *group* is G rollouts of one task
(same task id and seed); only the policy's own output tokens are trained (``mask``). In a
multi-turn GUI rollout a "sequence" is the whole rollout: its steps' generated tokens, one
after the other (observations are never trained), as in verl's multi-turn rollouts.

The loop reads straight down: draw instances, roll out groups, advantages (GRPO's outcome
advantage, or a method's own), optional group mixing, update, log, checkpoint. The core knows
no method: PAGE and BEPA call `run` with their ingredients (`AdvantageFn`, `MixFn`,
`OffPolicyLoss`, `UpdateStats`; `trainers.page`, `trainers.bepa`).
"""

from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import torch

from gui_gym.errors import InfraError
from trainers.branching import BRANCHING, branch_point, continuation_steps, tree_record
from trainers.rollout import EnvPool, Rollout, rollout_continuations, rollout_group
from trainers.runs import RunLog, save_checkpoint

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agents.base import TrainableAgent

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


def clipped_policy_loss(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor,
                        mask: torch.Tensor, clip_low: float = 0.2, clip_high: float = 0.2,
                        dual_clip: float | None = None, aggregation: str = "token-mean") -> torch.Tensor:
    """PPO-clip on tokens: r = exp(clamp(logp - old_logp, -20, 20)),
    L = max(-A r, -A clip(r, 1 - e_low, 1 + e_high)); with `dual_clip` c (verl's clip_ratio_c,
    3.0 in the papers) the loss of A < 0 tokens is capped at -A c. Tensors are [batch, tokens]
    (advantages broadcast from [batch, 1] or [batch, tokens]); `mask` marks trained tokens."""
    losses = clipped_policy_losses(logp, old_logp, advantages, clip_low, clip_high, dual_clip)
    return aggregate(losses, mask, aggregation)


def clipped_policy_losses(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor,
                          clip_low: float = 0.2, clip_high: float = 0.2,
                          dual_clip: float | None = None) -> torch.Tensor:
    """The per-token losses of `clipped_policy_loss`, before aggregation."""
    ratio = torch.exp(torch.clamp(logp - old_logp, -20.0, 20.0))
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    losses = torch.maximum(unclipped, clipped)
    if dual_clip is not None:
        if dual_clip <= 1.0:
            raise ValueError(f"dual_clip must be > 1, received {dual_clip}")
        losses = torch.where(advantages < 0, torch.minimum(losses, -advantages * dual_clip), losses)
    return losses


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimator of KL(pi || ref): exp(ref - logp) - (ref - logp) - 1 (>= 0)."""
    log_ratio = torch.clamp(ref_logp - logp, -20.0, 20.0)
    return torch.exp(log_ratio) - log_ratio - 1.0


def aggregate(values: torch.Tensor, mask: torch.Tensor, mode: str = "token-mean") -> torch.Tensor:
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


# ---- the shared trainer: config, advantages per step, update, loop ------------------------


@dataclass
class GRPOConfig:
    """Settings shared by GRPO, PAGE and BEPA (verl's names in brackets)."""

    tasks: tuple[str, ...] = ()
    """Task ids trained on; empty: every task of the env."""
    iterations: int = 20
    """Policy updates; the run stops earlier when `episode_budget` is spent."""
    episode_budget: int | None = None
    """Env episodes the run may use in all (BEPA's LEVEL-1 episodes count too)."""
    groups_per_iteration: int = 1
    """Task instances rolled out per update [data.train_batch_size]."""
    group_size: int = 8
    """G: rollouts per task instance [rollout.n]."""
    instance_seeds: int | None = None
    """Draw instance seeds from 0..k-1 (a fixed training set); None: a fresh seed per group."""
    update_epochs: int = 1
    """Passes over each iteration's rollouts [ppo_epochs]."""
    minibatch_rollouts: int = 8
    """Rollouts per gradient step [ppo_mini_batch_size, counted in rollouts]."""
    learning_rate: float = 1e-2
    """Adam step size [optim.lr]."""
    clip_low: float = 0.2
    """Lower clip range e_low [clip_ratio_low]."""
    clip_high: float = 0.2
    """Upper clip range e_high; 0.28 is DAPO's clip-higher [clip_ratio_high]."""
    dual_clip: float | None = None
    """Dual clip c for A < 0 (3.0 in the papers); None: off [clip_ratio_c]."""
    aggregation: str = "token-mean"
    """Loss aggregation: token-mean, seq-mean-token-mean, seq-mean-token-sum [loss_agg_mode]."""
    norm_std: bool = True
    """Divide advantages by the group's std; False is Dr.GRPO [norm_adv_by_std_in_grpo]."""
    kl_coef: float = 0.0
    """Weight of the k3 KL to the frozen starting policy; 0: no reference [kl_loss_coef]."""
    entropy_coef: float = 0.0
    """Weight of the entropy bonus (the loss minus coef x the aggregated per-token entropy of
    the policy's distributions); needs a policy with `entropies` [entropy_coeff]."""
    max_grad_norm: float = 1.0
    """Gradient norm clip [grad_clip]."""
    seed: int = 0
    """Seeds torch, numpy, random and the draw of tasks and instance seeds."""
    pool_size: int = 1
    """Envs stepping concurrently, each on its own thread."""
    run_dir: str | None = None
    """Where metrics.jsonl, config.json and checkpoints go; None: nothing is written."""
    checkpoint_every: int = 0
    """Save a checkpoint every k iterations (and at the end); 0: only at the end."""
    tensorboard: bool = True
    """Mirror metrics to TensorBoard when it is installed."""
    wandb_project: str | None = None
    """Mirror metrics to this wandb project (needs wandb)."""
    branching: str = "off"
    """"unreached_milestone": after a group where no rollout succeeded, also a group of G
    continuations from the state just after the deepest milestone it reached
    (`trainers.branching`); "off": whole-episode groups only."""
    step_budget: int | None = None
    """Env steps the run may use in all, the prefixes a restore replays included; None: no
    bound (`episode_budget` still holds; a continuation counts as an episode there)."""

    def __post_init__(self) -> None:
        for name in ("iterations", "groups_per_iteration", "group_size", "update_epochs", "minibatch_rollouts",
                     "pool_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, received {value!r}")
        if self.branching not in BRANCHING:
            raise ValueError(f"branching must be one of {BRANCHING}, received {self.branching!r}")
        if self.step_budget is not None and (isinstance(self.step_budget, bool) or not isinstance(self.step_budget, int)
                                             or self.step_budget < 1):
            raise ValueError(f"step_budget must be None or an integer >= 1, received {self.step_budget!r}")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, received {self.aggregation!r}")
        if self.learning_rate <= 0 or self.max_grad_norm <= 0 or self.kl_coef < 0 or self.entropy_coef < 0:
            raise ValueError(f"expected learning_rate > 0, max_grad_norm > 0, kl_coef >= 0, entropy_coef >= 0, "
                             f"received {self.learning_rate}, {self.max_grad_norm}, {self.kl_coef}, "
                             f"{self.entropy_coef}")
        if self.instance_seeds is not None and (isinstance(self.instance_seeds, bool) or
                                                not isinstance(self.instance_seeds, int) or self.instance_seeds < 1):
            raise ValueError(f"instance_seeds must be None or an integer >= 1, received {self.instance_seeds!r}")
        self.tasks = tuple(self.tasks)

    def draw_instance(self, rng: np.random.Generator) -> int:
        """An instance seed for the next group: from the training set 0..instance_seeds-1, or fresh."""
        return int(rng.integers(self.instance_seeds or 2**31 - 1))


@dataclass
class TrainItem:
    """A rollout ready for the loss: its per-step advantages, and whether it is off-policy
    (injected into its group by a method's `MixFn`, e.g. BEPA's cache)."""

    rollout: Rollout
    advantages: list[float]
    off_policy: bool = False


def outcome_advantages(group: Sequence[Rollout], norm_std: bool = True) -> list[list[float]]:
    """GRPO: the group advantage of the env's scores, spread over every step of a rollout."""
    advantages = group_advantages([r.score for r in group], norm_std=norm_std)
    return [[a] * len(r) for a, r in zip(advantages, group)]


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


OffPolicyLoss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""A method's per-token loss for off-policy tokens from (log-probs, advantages), both
[batch, tokens]; without one, off-policy tokens get the clipped loss like every other."""
UpdateStats = Callable[[Sequence["TrainItem"], list[torch.Tensor]], dict[str, float]]
"""A method's own diagnostics of an update, from its items and their old log-probs."""


def update(policy: TrainableAgent, optimizer: torch.optim.Optimizer, items: Sequence[TrainItem], cfg: GRPOConfig,
           reference: TrainableAgent | None = None, off_policy_loss: OffPolicyLoss | None = None,
           update_stats: UpdateStats | None = None) -> dict[str, float]:
    """One GRPO update on `items`: old log-probs recomputed under the current weights (verl's
    recompute; for an injected trajectory this is its log-prob under the plain prompt, ratio
    1 on the first epoch), then `update_epochs` passes of shuffled minibatches of rollouts,
    each a clipped-loss step (+ k3 KL to `reference`) with gradient clipping. A method may
    give off-policy tokens a loss of its own (`off_policy_loss`) and add its diagnostics
    (`update_stats`)."""
    items = [item for item in items if len(item.rollout)]
    if not items:
        return {}
    with torch.no_grad():
        old = _rollout_logprobs(policy, items)
        ref = _rollout_logprobs(reference, items) if reference is not None and cfg.kl_coef > 0 else None
    stats: dict[str, list[float]] = {}
    params = [p for p in policy.parameters() if p.requires_grad]
    for _ in range(cfg.update_epochs):
        order = torch.randperm(len(items)).tolist()
        for start in range(0, len(order), cfg.minibatch_rollouts):
            batch = order[start:start + cfg.minibatch_rollouts]
            mb_items = [items[i] for i in batch]
            logp, mask = _pad(_rollout_logprobs(policy, mb_items))
            mb_old, _ = _pad([old[i] for i in batch])
            mb_adv, _ = _pad([_token_advantages(items[i]) for i in batch])
            off = torch.tensor([[items[i].off_policy] for i in batch]).expand_as(mask)
            losses = clipped_policy_losses(logp, mb_old, mb_adv, cfg.clip_low, cfg.clip_high, cfg.dual_clip)
            if off_policy_loss is not None:
                losses = torch.where(off, off_policy_loss(logp, mb_adv), losses)
            pg_loss = aggregate(losses, mask, cfg.aggregation)
            loss = pg_loss
            if cfg.entropy_coef > 0:
                entropy = aggregate(_pad(_rollout_values(policy.entropies, mb_items))[0], mask, cfg.aggregation)
                loss = loss - cfg.entropy_coef * entropy
                stats.setdefault("losses/entropy", []).append(float(entropy.detach()))
            if ref is not None:
                mb_ref, _ = _pad([ref[i] for i in batch])
                kl = aggregate(kl_k3(logp, mb_ref), mask, cfg.aggregation)
                loss = loss + cfg.kl_coef * kl
                stats.setdefault("losses/kl_ref", []).append(float(kl.detach()))
            optimizer.zero_grad()
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                ratio = torch.exp(logp - mb_old)
                clipped = ((ratio < 1 - cfg.clip_low) | (ratio > 1 + cfg.clip_high)).float()
                stats.setdefault("losses/policy_loss", []).append(float(pg_loss))
                stats.setdefault("losses/approx_kl", []).append(float(aggregate(mb_old - logp, mask)))
                stats.setdefault("losses/clipfrac", []).append(float(aggregate(clipped, mask)))
                stats.setdefault("losses/grad_norm", []).append(float(grad_norm))
    out = {key: sum(values) / len(values) for key, values in stats.items()}
    if update_stats is not None:
        out.update(update_stats(items, old))
    return out


def _rollout_logprobs(policy: TrainableAgent, items: Sequence[TrainItem]) -> list[torch.Tensor]:
    """Per rollout, the log-probs of all its generated tokens (steps concatenated), in one
    call of the policy."""
    return _rollout_values(policy.logprobs, items)


def _rollout_values(per_token: Callable[[list[Any], list[Sequence[int]]], list[torch.Tensor]],
                    items: Sequence[TrainItem]) -> list[torch.Tensor]:
    """Per rollout, `per_token` (the policy's log-probs or entropies) of all its generated
    tokens, steps concatenated, from one call over every step of `items`."""
    prompts = [s.prompt for item in items for s in item.rollout.steps]
    tokens = [s.token_ids for item in items for s in item.rollout.steps]
    per_step = per_token(prompts, tokens)
    out, at = [], 0
    for item in items:
        n = len(item.rollout)
        out.append(torch.cat(per_step[at:at + n]))
        at += n
    return out


def _token_advantages(item: TrainItem) -> torch.Tensor:
    if len(item.advantages) != len(item.rollout):
        raise ValueError(f"expected one advantage per step, received {len(item.advantages)} for "
                         f"{len(item.rollout)} steps")
    return torch.tensor([a for a, s in zip(item.advantages, item.rollout.steps) for _ in s.token_ids],
                        dtype=torch.float32)


def _pad(rows: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """[batch, tokens] values (zero-padded) and the mask of real tokens."""
    width = max(len(r) for r in rows)
    values = torch.zeros(len(rows), width, dtype=rows[0].dtype)
    mask = torch.zeros(len(rows), width, dtype=torch.bool)
    for i, row in enumerate(rows):
        values[i, :len(row)] = row
        mask[i, :len(row)] = True
    return values, mask


MAX_CRASHED_GROUPS = 3
"""Groups in a row whose every episode crashed before the run gives up: one such group is an
env failure on one instance, three are a broken env."""


class CrashedGroups:
    """Rolls out groups, counting those in a row whose every episode crashed: such a group is
    skipped (None), and the `MAX_CRASHED_GROUPS`-th in a row is raised. The loop and BEPA's
    LEVEL-1 share it."""

    def __init__(self) -> None:
        self.in_a_row = 0

    def rollout(self, pool: EnvPool, policy: TrainableAgent, task_id: str, seed: int, group_size: int, *,
                plan: Sequence[str] | None = None, snapshots: bool = False) -> list[Rollout] | None:
        try:
            group = rollout_group(pool, policy, task_id, seed, group_size, plan=plan, snapshots=snapshots)
        except InfraError as exc:
            self.in_a_row += 1
            if self.in_a_row >= MAX_CRASHED_GROUPS:
                raise
            logger.warning("every episode of a group crashed (%s); skipping it (%d in a row)", exc, self.in_a_row)
            return None
        self.in_a_row = 0
        return group

AdvantageFn = Callable[[Sequence[Rollout]], list[list[float]]]
"""A method's advantages: per rollout of a group, one advantage per step."""
MixFn = Callable[[list[Rollout]], tuple[list[Rollout], list[bool], dict[str, float]]]
"""A method's group mixing (BEPA's LEVEL-2): a group in, the mixed group, which rollouts were
injected (off-policy), and counters."""


def run(cfg: GRPOConfig, policy: TrainableAgent, pool: EnvPool, *, advantages: AdvantageFn | None = None,
        mix: MixFn | None = None, off_policy_loss: OffPolicyLoss | None = None, update_stats: UpdateStats | None = None,
        episodes: int = 0, log: RunLog | None = None) -> list[dict[str, Any]]:
    """The training loop every method shares: draw task instances (tasks in shuffled rounds,
    fresh instance seeds), roll out groups, turn them into advantages (`advantages`, default
    GRPO's outcome), let `mix` inject into groups, update (with a method's `off_policy_loss`
    and `update_stats`), log, checkpoint. `episodes` already spent count against
    `cfg.episode_budget`. Returns the records. A method plugs in through these arguments
    and nothing else: PAGE gives `advantages`, BEPA `mix`, `off_policy_loss`, `update_stats`."""
    if cfg.entropy_coef > 0 and not hasattr(policy, "entropies"):
        raise ValueError(f"entropy_coef needs a policy that reports its entropies; {type(policy).__name__} does not")
    advantages = advantages or (lambda group: outcome_advantages(group, cfg.norm_std))
    own_log = log is None
    log = log or RunLog(cfg.run_dir, cfg, tensorboard=cfg.tensorboard, wandb_project=cfg.wandb_project)
    rng = np.random.default_rng(cfg.seed)
    tasks = list(cfg.tasks) or list(pool.envs[0].unwrapped.task_ids)
    optimizer = torch.optim.Adam([p for p in policy.parameters() if p.requires_grad], lr=cfg.learning_rate)
    reference = policy.reference() if cfg.kl_coef > 0 else None
    per_iteration = cfg.groups_per_iteration * cfg.group_size
    schedule: list[str] = []  # tasks in a shuffled round: every task gets its share of groups
    crashes = CrashedGroups()
    env_steps = 0  # every env step, the prefixes replayed by restores included
    completed = 0  # iterations done (BEPA's LEVEL-1 writes a record of its own, iteration 0)
    try:
        for iteration in range(1, cfg.iterations + 1):
            if cfg.episode_budget is not None and episodes + per_iteration > cfg.episode_budget:
                break
            if cfg.step_budget is not None and env_steps >= cfg.step_budget:
                break
            started = time.monotonic()
            items: list[TrainItem] = []
            charts: dict[str, list[float]] = {}
            counters: dict[str, float] = {}
            for _ in range(cfg.groups_per_iteration):
                if not schedule:
                    schedule = [tasks[i] for i in rng.permutation(len(tasks))]
                task_id = schedule.pop()
                seed = cfg.draw_instance(rng)
                group = crashes.rollout(pool, policy, task_id, seed, cfg.group_size,
                                        snapshots=cfg.branching != "off")
                if group is None:
                    counters["charts/crashed_groups"] = counters.get("charts/crashed_groups", 0) + 1
                    continue
                episodes += len(group)
                env_steps += continuation_steps(group)
                counters["charts/infra_errors"] = counters.get("charts/infra_errors", 0) + sum(
                    r.infra_error is not None for r in group)
                group = [r for r in group if r.infra_error is None]
                for r in group:
                    for prefix in ("charts", f"tasks/{task_id}"):  # overall, and per task (multi-task runs)
                        charts.setdefault(f"{prefix}/success_rate", []).append(float(r.success))
                        if r.progress is not None:
                            charts.setdefault(f"{prefix}/progress", []).append(r.progress)
                    charts.setdefault("charts/score", []).append(r.score)
                    charts.setdefault("charts/episode_length", []).append(float(len(r)))
                if not group:
                    continue
                counters["charts/no_signal_groups"] = counters.get("charts/no_signal_groups", 0) + all_equal(
                    [r.score for r in group])
                injected = [False] * len(group)
                if mix is not None:
                    group, injected, mixed = mix(group)
                    for key, value in mixed.items():
                        counters[key] = counters.get(key, 0) + value
                for rollout, adv, off in zip(group, advantages(group), injected):
                    items.append(TrainItem(rollout, adv, off))
                point = branch_point(group) if cfg.branching != "off" else None
                if point is not None:  # the group got stuck: G continuations from where it got furthest
                    branched = [r for r in rollout_continuations(pool, policy, point, cfg.group_size)
                                if r.infra_error is None]
                    episodes += cfg.group_size
                    env_steps += continuation_steps(branched)
                    counters["branch/groups"] = counters.get("branch/groups", 0) + 1
                    charts.setdefault("branch/from_step", []).append(float(point.step))
                    charts.setdefault("branch/milestones", []).append(float(point.milestones))
                    for r in branched:
                        charts.setdefault("branch/success_rate", []).append(float(r.success))
                    log.write_branched_group(tree_record(iteration, group, point, branched))
                    if branched:
                        counters["charts/no_signal_groups"] += all_equal([r.score for r in branched])
                        for rollout, adv in zip(branched, advantages(branched)):
                            items.append(TrainItem(rollout, adv))
            rollout_s = time.monotonic() - started
            losses = update(policy, optimizer, items, cfg, reference, off_policy_loss, update_stats)
            if items and hasattr(policy, "after_update"):
                policy.after_update()  # a served policy pushes its new weights to its server
            record = {"charts/episodes": episodes, "charts/env_steps": env_steps, **{k: sum(v) / len(v) for k, v in charts.items()}, **counters,
                      **losses, "charts/rollout_time_s": rollout_s,
                      "charts/update_time_s": time.monotonic() - started - rollout_s}
            log.log(iteration, record)
            completed = iteration
            if cfg.run_dir and cfg.checkpoint_every and iteration % cfg.checkpoint_every == 0:
                save_checkpoint(Path(cfg.run_dir) / "checkpoints" / f"iter_{iteration:05d}", policy, optimizer,
                                {"iteration": iteration, "episodes": episodes, "seed": cfg.seed})
        if cfg.run_dir:
            save_checkpoint(Path(cfg.run_dir) / "checkpoints" / "final", policy, optimizer,
                            {"iteration": completed, "episodes": episodes, "seed": cfg.seed})
    finally:
        if own_log:
            log.close()
    return log.records


def train(cfg: GRPOConfig, policy: TrainableAgent, make_env: Callable[[], Any]) -> list[dict[str, Any]]:
    """GRPO: `run` with the outcome advantage on a pool of `make_env` envs."""
    seed_everything(cfg.seed)
    with EnvPool(make_env, cfg.pool_size) as pool:
        return run(cfg, policy, pool)
