"""GRPO, the core PAGE and BEPA share: group advantages (verl semantics), the clipped
token-level policy loss with its aggregation modes, the k3 KL to a reference, then the update
(epochs, minibatches, gradient clipping) and the training loop all three methods run.

The math sits at the top as small pure functions named after the paper's symbols, each
checked against hand-computed values in tests/trainers/test_trainers_grpo.py. A *group* is G rollouts of one task
(same task id and seed); only the policy's own output tokens are trained (``mask``). In a
multi-turn GUI rollout a "sequence" is the whole rollout: its steps' generated tokens, one
after the other (observations are never trained), as in verl's multi-turn rollouts.

The loop (`run`) reads straight down, as CleanRL's: draw task instances (`TaskSchedule`), roll
out groups, turn each into training items (`training_items`: a method's mixing, then GRPO's
outcome advantage or a method's own), branch a stuck group (`continuations`), update, log,
checkpoint. The bookkeeping stays apart: what the run spent against its budgets (`Spent`) and
what the iteration measured (`gui_gym.trainers.metrics.IterationStats`, the metric names both
the trainers and their readers import). The core knows no method: PAGE and BEPA call `run`
with their ingredients (`AdvantageFn`, `MixFn`, `OffPolicyLoss`, `UpdateStats`;
`gui_gym.trainers.page`, `gui_gym.trainers.bepa`).
"""

from __future__ import annotations

import logging
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import torch

from gui_gym.errors import InfraError
from gui_gym.trainers import metrics
from gui_gym.trainers.branching import BRANCHING, branch_point, continuation_steps, tree_record
from gui_gym.trainers.metrics import IterationStats
from gui_gym.trainers.rollout import (BranchPoint, EnvPool, Rollout, check_group, rollout_continuations, rollout_group,
                                      rollout_groups)
from gui_gym.trainers.runs import RunLog, save_checkpoint

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from gui_gym.agents.base import TrainableAgent

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
    if n > 1 and all_equal(scores):  # exactly 0, not rounding error over eps (progress sums are floats)
        return [0.0] * n
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
    return (values * token_weights(mask, mode).to(values.dtype)).sum()


def token_weights(mask: torch.Tensor, mode: str = "token-mean") -> torch.Tensor:
    """Each token's weight in `aggregate` over the whole [batch, tokens] `mask`, so that the
    aggregate is a plain weighted sum: a loss split into micro-batches of steps (each a part
    of some sequences) sums to the same number and the same gradient as the whole batch, with
    one global token count and one sequence count (verl's ``global_batch_info``)."""
    mask = mask.to(torch.float32)
    if mode == "token-mean":
        return mask / mask.sum().clamp(min=1.0)
    if mode == "seq-mean-token-mean":
        return mask / mask.sum(dim=-1, keepdim=True).clamp(min=1.0) / len(mask)
    if mode == "seq-mean-token-sum":
        return mask / len(mask)
    raise ValueError(f"aggregation must be one of {AGGREGATIONS}, received {mode!r}")


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
    micro_batch_steps: int | None = None
    """Steps per forward/backward pass within a gradient step, their gradients accumulated
    (one global token count, so every aggregation means what it means for one pass); None:
    the whole minibatch in one pass. 1-2 fits a 7B VLM's 15-step rollouts on one GPU
    [ppo_micro_batch_size_per_gpu, counted in steps]."""
    learning_rate: float = 1e-6
    """Adam step size [optim.lr]. The default is safe for a real VLM: verl's default and the
    papers' rate for full fine-tuning (LoRA runs commonly use ~1e-5). A small policy sets its
    own: the element policy trains at 1e-2 (`ElementPolicy.TRAINER_DEFAULTS`, what ``gui-train``
    applies; the learning benchmark selects it from a grid)."""
    clip_low: float = 0.2
    """Lower clip range e_low [clip_ratio_low]."""
    clip_high: float = 0.2
    """Upper clip range e_high; 0.28 is DAPO's clip-higher [clip_ratio_high]."""
    dual_clip: float | None = None
    """Dual clip c for A < 0 (3.0 in the papers); None: off [clip_ratio_c]."""
    aggregation: str = "token-mean"
    """Loss aggregation: token-mean, seq-mean-token-mean, seq-mean-token-sum [loss_agg_mode]."""
    norm_std: bool = True
    """Divide advantages by the group's std; False is Dr.GRPO [norm_adv_by_std_in_grpo]. GRPO's
    and BEPA's outcome advantage; PAGE's A_inter has its own `PAGEConfig.inter_norm_std`."""
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
    async_rollouts: bool = False
    """Asynchronous rollouts (`gui_gym.trainers.rollout.rollout_groups`): every episode of the
    iteration's groups in flight at once, each env taking the next episode as soon as it is
    free, and each group handed to the learner as soon as its G episodes are done; False:
    lockstep waves that wait for the slowest env (seeded sampling reproducible). The update
    still waits for the iteration's groups, so rollouts stay on-policy. Needs ``branching="off"``."""
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
    (`gui_gym.trainers.branching`); "off": whole-episode groups only."""
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
        if self.async_rollouts and self.branching != "off":  # continuations need the pool the stream holds
            raise ValueError(f"async_rollouts needs branching='off', received branching={self.branching!r}; "
                             f"turn one of them off")
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
        if self.micro_batch_steps is not None and (isinstance(self.micro_batch_steps, bool) or
                                                   not isinstance(self.micro_batch_steps, int) or
                                                   self.micro_batch_steps < 1):
            raise ValueError(f"micro_batch_steps must be None or an integer >= 1, received {self.micro_batch_steps!r}")
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
"""A method's per-token loss for off-policy tokens from (log-probs, advantages), tensors of
the same shape, elementwise; without one, off-policy tokens get the clipped loss like every other."""
UpdateStats = Callable[[Sequence["TrainItem"], list[torch.Tensor]], dict[str, float]]
"""A method's own diagnostics of an update, from its items and their old log-probs."""


def update(policy: TrainableAgent, optimizer: torch.optim.Optimizer, items: Sequence[TrainItem], cfg: GRPOConfig,
           reference: TrainableAgent | None = None, off_policy_loss: OffPolicyLoss | None = None,
           update_stats: UpdateStats | None = None) -> dict[str, float]:
    """One GRPO update on `items`: old log-probs recomputed under the current weights (verl's
    recompute; for an injected trajectory this is its log-prob under the plain prompt, ratio
    1 on the first epoch), then `update_epochs` passes of shuffled minibatches of rollouts,
    each a clipped-loss step (+ k3 KL to `reference`) with gradient clipping, its gradient
    accumulated over micro-batches of `cfg.micro_batch_steps` steps. A method may give
    off-policy tokens a loss of its own (`off_policy_loss`) and add its diagnostics
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
            optimizer.zero_grad()
            step_stats = accumulate_gradients(policy, [items[i] for i in batch], [old[i] for i in batch],
                                              [ref[i] for i in batch] if ref is not None else None, cfg,
                                              off_policy_loss)
            grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            for key, value in {**step_stats, metrics.GRAD_NORM: float(grad_norm)}.items():
                stats.setdefault(key, []).append(value)
    out = {key: sum(values) / len(values) for key, values in stats.items()}
    if update_stats is not None:
        out.update(update_stats(items, old))
    return out


def accumulate_gradients(policy: TrainableAgent, items: Sequence[TrainItem], old: Sequence[torch.Tensor],
                         ref: Sequence[torch.Tensor] | None, cfg: GRPOConfig,
                         off_policy_loss: OffPolicyLoss | None = None) -> dict[str, float]:
    """Add one minibatch's loss gradient to the parameters' ``.grad``, in micro-batches of
    `cfg.micro_batch_steps` steps (a rollout's steps may fall in different micro-batches).
    Each token's weight in the loss is fixed over the whole minibatch (`token_weights`), so the
    sum of the micro-batches' losses, and its gradient, is the minibatch's; only one
    micro-batch's activations are alive at a time. `old` and `ref` are the rollouts' old and
    reference log-probs. Returns the minibatch's loss terms."""
    lengths = [sum(len(s.token_ids) for s in item.rollout.steps) for item in items]
    mask = torch.arange(max(lengths)).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    weights = token_weights(mask, cfg.aggregation)
    mean_weights = token_weights(mask)  # the diagnostics are token means, as verl reports them
    advantages = [_token_advantages(item) for item in items]
    steps = [(i, at, step) for i, item in enumerate(items) for at, step in _step_offsets(item)]
    chunk = cfg.micro_batch_steps or len(steps)
    want_entropy = cfg.entropy_coef > 0
    sums = {metrics.POLICY_LOSS: 0.0, metrics.APPROX_KL: 0.0, metrics.CLIPFRAC: 0.0}
    for first in range(0, len(steps), chunk):
        part = steps[first:first + chunk]
        logp, entropy = _step_values(policy, [s for _, _, s in part], want_entropy)

        def gather(rows: Sequence[torch.Tensor]) -> torch.Tensor:
            """This micro-batch's tokens of per-rollout rows, in `logp`'s order."""
            return torch.cat([rows[i][at:at + len(s.token_ids)] for i, at, s in part])

        mb_old, mb_adv, w, w_mean = gather(old), gather(advantages), gather(weights), gather(mean_weights)
        off = torch.cat([torch.full((len(s.token_ids),), items[i].off_policy) for i, _, s in part])
        losses = clipped_policy_losses(logp, mb_old, mb_adv, cfg.clip_low, cfg.clip_high, cfg.dual_clip)
        if off_policy_loss is not None:
            losses = torch.where(off, off_policy_loss(logp, mb_adv), losses)
        pg_loss = (losses * w).sum()
        loss = pg_loss
        if entropy is not None:
            entropy_term = (entropy * w).sum()
            loss = loss - cfg.entropy_coef * entropy_term
            sums[metrics.ENTROPY] = sums.get(metrics.ENTROPY, 0.0) + float(entropy_term.detach())
        if ref is not None:
            kl = (kl_k3(logp, gather(ref)) * w).sum()
            loss = loss + cfg.kl_coef * kl
            sums[metrics.KL_REF] = sums.get(metrics.KL_REF, 0.0) + float(kl.detach())
        loss.backward()
        with torch.no_grad():
            ratio = torch.exp(logp - mb_old)
            clipped = ((ratio < 1 - cfg.clip_low) | (ratio > 1 + cfg.clip_high)).float()
            sums[metrics.POLICY_LOSS] += float(pg_loss)
            sums[metrics.APPROX_KL] += float(((mb_old - logp) * w_mean).sum())
            sums[metrics.CLIPFRAC] += float((clipped * w_mean).sum())
    return sums


def _step_values(policy: TrainableAgent, steps: Sequence[Any], want_entropy: bool
                 ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The steps' log-probs (and entropies, when wanted: the policy's ``logprobs_and_entropies``,
    one forward pass where it can), steps concatenated, with gradients."""
    prompts, tokens = [s.prompt for s in steps], [s.token_ids for s in steps]
    if not want_entropy:
        return torch.cat(policy.logprobs(prompts, tokens)), None
    logp, entropy = policy.logprobs_and_entropies(prompts, tokens)
    return torch.cat(logp), torch.cat(entropy)


def _step_offsets(item: TrainItem) -> list[tuple[int, Any]]:
    """Each step of the rollout with the offset of its first token in the rollout's tokens."""
    out, at = [], 0
    for step in item.rollout.steps:
        out.append((at, step))
        at += len(step.token_ids)
    return out


def _rollout_logprobs(policy: TrainableAgent, items: Sequence[TrainItem]) -> list[torch.Tensor]:
    """Per rollout, the log-probs of all its generated tokens (steps concatenated), in one
    call of the policy over every step of `items`."""
    prompts = [s.prompt for item in items for s in item.rollout.steps]
    tokens = [s.token_ids for item in items for s in item.rollout.steps]
    per_step = policy.logprobs(prompts, tokens)
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
        """A lockstep group (`rollout_group`), or None when every episode of it crashed."""
        return self._counted(lambda: rollout_group(pool, policy, task_id, seed, group_size, plan=plan,
                                                   snapshots=snapshots))

    def check(self, group: list[Rollout], task_id: str, seed: int) -> list[Rollout] | None:
        """A group rolled out already (`rollout_groups`), or None when every episode of it crashed."""
        return self._counted(lambda: check_group(group, task_id, seed))

    def _counted(self, make: Callable[[], list[Rollout]]) -> list[Rollout] | None:
        try:
            group = make()
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


def check_policy(policy: TrainableAgent, cfg: GRPOConfig) -> None:
    """Refuse, before any rollout, a policy that cannot be trained as `cfg` asks: its own
    ``check_trainable`` (a served policy whose weights would never be updated), and the
    entropy bonus without entropies."""
    if cfg.entropy_coef > 0 and not policy.reports_entropies:
        raise ValueError(f"entropy_coef needs a policy that reports its entropies; {type(policy).__name__} does not")
    policy.check_trainable()


class TaskSchedule:
    """The loop's draws of task instances: tasks in shuffled rounds, so that every task gets
    its share of groups, each with an instance seed (`GRPOConfig.draw_instance`), from
    ``cfg.seed``."""

    def __init__(self, tasks: Sequence[str], cfg: GRPOConfig):
        self.tasks, self.cfg = list(tasks), cfg
        self.rng = np.random.default_rng(cfg.seed)
        self.round: list[str] = []

    def draw(self, count: int) -> list[tuple[str, int]]:
        """The next `count` (task id, instance seed) pairs."""
        draws = []
        for _ in range(count):
            if not self.round:
                self.round = [self.tasks[i] for i in self.rng.permutation(len(self.tasks))]
            draws.append((self.round.pop(), self.cfg.draw_instance(self.rng)))
        return draws


@dataclass
class Spent:
    """What the run has spent: env episodes (a continuation is one) and env steps (the
    prefixes restores replay included), against `GRPOConfig.episode_budget` and `step_budget`."""

    episodes: int = 0
    env_steps: int = 0

    def pay(self, episodes: int, env_steps: int) -> None:
        self.episodes += episodes
        self.env_steps += env_steps

    def exhausted(self, cfg: GRPOConfig) -> bool:
        """Whether another iteration would overrun the episode budget, or the step budget is spent."""
        per_iteration = cfg.groups_per_iteration * cfg.group_size
        return ((cfg.episode_budget is not None and self.episodes + per_iteration > cfg.episode_budget)
                or (cfg.step_budget is not None and self.env_steps >= cfg.step_budget))


def usable_episodes(group: list[Rollout] | None, task_id: str, spent: Spent, stats: IterationStats) -> list[Rollout]:
    """A rolled-out group's episodes that say something about the policy: none of a group whose
    every episode crashed (None from `CrashedGroups`), and none the infrastructure cut short.
    Every episode of a group that ran is paid for; the usable ones are charted."""
    if group is None:
        stats.count(metrics.CRASHED_GROUPS)
        return []
    spent.pay(len(group), continuation_steps(group))
    stats.count(metrics.INFRA_ERRORS, sum(r.infra_error is not None for r in group))
    usable = [r for r in group if r.infra_error is None]
    stats.episodes(task_id, usable)
    return usable


def training_items(group: list[Rollout], advantages: AdvantageFn, mix: MixFn | None,
                   stats: IterationStats) -> tuple[list[Rollout], list[TrainItem]]:
    """A group's training items: the method's mixing (`mix`: BEPA injects a cached trajectory),
    then its advantages over the mixed group. Returns the mixed group too (branching reads it)."""
    stats.count(metrics.NO_SIGNAL_GROUPS, all_equal([r.score for r in group]))
    stats.count(metrics.EQUAL_PROGRESS_GROUPS,  # PAGE's A_inter is 0
                all_equal([r.progress if r.progress is not None else r.score for r in group]))
    injected = [False] * len(group)
    if mix is not None:
        group, injected, counts = mix(group)
        stats.count_all(counts)
    return group, [TrainItem(rollout, adv, off) for rollout, adv, off in zip(group, advantages(group), injected)]


def continuations(pool: EnvPool, policy: TrainableAgent, point: BranchPoint, group_size: int, spent: Spent,
                  stats: IterationStats) -> list[Rollout]:
    """The usable rollouts of G continuations from `point` (`gui_gym.trainers.branching`); the
    G episodes are paid for, with the steps (replayed prefixes included) of the usable ones."""
    branched = [r for r in rollout_continuations(pool, policy, point, group_size) if r.infra_error is None]
    spent.pay(group_size, continuation_steps(branched))
    stats.branched(point, branched)
    if branched:
        stats.count(metrics.NO_SIGNAL_GROUPS, all_equal([r.score for r in branched]))
    return branched


def run(cfg: GRPOConfig, policy: TrainableAgent, pool: EnvPool, *, advantages: AdvantageFn | None = None,
        mix: MixFn | None = None, off_policy_loss: OffPolicyLoss | None = None, update_stats: UpdateStats | None = None,
        episodes: int = 0, log: RunLog | None = None) -> list[dict[str, Any]]:
    """The training loop every method shares: draw task instances (`TaskSchedule`), roll out
    groups, turn each into training items (`advantages`, default GRPO's outcome, after `mix`
    injected into it), branch stuck groups (`GRPOConfig.branching`), update (with a method's
    `off_policy_loss` and `update_stats`), log, checkpoint. `episodes` already spent count
    against `cfg.episode_budget`. Returns the records. A method plugs in through these
    arguments and nothing else: PAGE gives `advantages`, BEPA `mix`, `off_policy_loss`,
    `update_stats`."""
    check_policy(policy, cfg)
    advantages = advantages or (lambda group: outcome_advantages(group, cfg.norm_std))
    own_log = log is None
    log = log or RunLog(cfg.run_dir, cfg, tensorboard=cfg.tensorboard, wandb_project=cfg.wandb_project)
    schedule = TaskSchedule(list(cfg.tasks) or pool.task_ids(), cfg)
    optimizer = torch.optim.Adam([p for p in policy.parameters() if p.requires_grad], lr=cfg.learning_rate)
    reference = policy.reference() if cfg.kl_coef > 0 else None
    spent, crashes = Spent(episodes), CrashedGroups()
    completed = 0  # iterations done (BEPA's LEVEL-1 writes a record of its own, iteration 0)
    groups = None
    try:
        for iteration in range(1, cfg.iterations + 1):
            if spent.exhausted(cfg):
                break
            stats = IterationStats()
            items: list[TrainItem] = []

            # ---- rollouts: G episodes of each drawn task instance, each group handed over once done
            groups = rollout_groups(pool, policy, schedule.draw(cfg.groups_per_iteration), cfg.group_size,
                                    asynchronous=cfg.async_rollouts, snapshots=cfg.branching != "off")
            for task_id, seed, group in groups:
                group = usable_episodes(crashes.check(group, task_id, seed), task_id, spent, stats)
                if not group:
                    continue
                # ---- the group's training items: the method's mixing, then the advantages
                group, group_items = training_items(group, advantages, mix, stats)
                items += group_items
                # ---- branching: a stuck group's G continuations from where it got furthest
                point = branch_point(group) if cfg.branching != "off" else None
                if point is not None:
                    branched = continuations(pool, policy, point, cfg.group_size, spent, stats)
                    log.write_branched_group(tree_record(iteration, group, point, branched))
                    if branched:
                        items += [TrainItem(rollout, adv) for rollout, adv in zip(branched, advantages(branched))]
            stats.rollouts_done()

            # ---- the update
            stats.losses = update(policy, optimizer, items, cfg, reference, off_policy_loss, update_stats)
            if items:
                policy.after_update()  # a served policy pushes its new weights to its server

            # ---- logging and checkpoints
            log.log(iteration, stats.record(spent.episodes, spent.env_steps))
            completed = iteration
            if cfg.run_dir and cfg.checkpoint_every and iteration % cfg.checkpoint_every == 0:
                save_checkpoint(Path(cfg.run_dir) / "checkpoints" / f"iter_{iteration:05d}", policy, optimizer,
                                {"iteration": iteration, "episodes": spent.episodes, "seed": cfg.seed})
        if cfg.run_dir:
            save_checkpoint(Path(cfg.run_dir) / "checkpoints" / "final", policy, optimizer,
                            {"iteration": completed, "episodes": spent.episodes, "seed": cfg.seed})
    finally:
        if groups is not None:
            groups.close()  # after an error, ends the episodes still in flight (asynchronous mode)
        if own_log:
            log.close()
    return log.records


def train(cfg: GRPOConfig, policy: TrainableAgent, make_env: Callable[[], Any]) -> list[dict[str, Any]]:
    """GRPO: `run` with the outcome advantage on a pool of `make_env` envs."""
    seed_everything(cfg.seed)
    with EnvPool(make_env, cfg.pool_size) as pool:
        return run(cfg, policy, pool)
