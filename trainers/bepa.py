"""BEPA: bi-level expert-to-policy assimilation (see reference/algorithms.md).

LEVEL-1 turns expert traces into plans, lets the base policy act on the plan, and keeps only
the successes ("self-rolled reachable" trajectories, stored without the plan). LEVEL-2 keeps
one per-task cache, seeded by LEVEL-1, injected into a GRPO group **only when every rollout of
the group fails**, and refreshed with the policy's own successes.

The cache rules sit at the top as small pure pieces, checked in tests/test_bepa.py; then plans
(a task's own, or a judge's abstraction of the expert's trajectory) and the trainer: LEVEL-1
seeding, then the shared GRPO loop (`trainers.grpo.run`) with LEVEL-2 as its group mixer,
LUFFY's shaping as its off-policy loss and the cache's log-prob diagnostic as its update
stats.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Generic, Hashable, Sequence, TypeVar

import gymnasium as gym
import numpy as np
import torch

from agents.base import TrainableAgent
from gui_gym.errors import MissingResourceError
from trainers.grpo import CrashedGroups, GRPOConfig, MixFn, OffPolicyLoss, TrainItem, run, seed_everything
from trainers.rollout import EnvPool, Rollout
from trainers.runs import RunLog

T = TypeVar("T")


@dataclass(frozen=True)
class CacheEntry(Generic[T]):
    """A successful trajectory kept for a task, and where it came from."""

    trajectory: T
    source: str
    """"level1" (plan-conditioned self-roll) or "on_policy" (the policy's own success)."""


class TaskCache(Generic[T]):
    """LEVEL-2: per-task successful trajectories. `capacity=1` (default) keeps the newest
    only; a larger capacity is a FIFO whose newest entry is injected."""

    def __init__(self, capacity: int = 1):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, received {capacity}")
        self.capacity = capacity
        self._entries: dict[Hashable, deque[CacheEntry[T]]] = {}

    def put(self, task_key: Hashable, trajectory: T, source: str) -> None:
        if source not in ("level1", "on_policy"):
            raise ValueError(f"source must be 'level1' or 'on_policy', received {source!r}")
        self._entries.setdefault(task_key, deque(maxlen=self.capacity)).append(CacheEntry(trajectory, source))

    def get(self, task_key: Hashable) -> CacheEntry[T] | None:
        entries = self._entries.get(task_key)
        return entries[-1] if entries else None

    def __contains__(self, task_key: Hashable) -> bool:
        return bool(self._entries.get(task_key))

    def __len__(self) -> int:
        return sum(1 for entries in self._entries.values() if entries)


@dataclass
class MixResult(Generic[T]):
    rollouts: list[T]
    scores: list[float]
    injected: bool
    all_failed: bool


def mix_group(task_key: Hashable, rollouts: Sequence[T], scores: Sequence[float], cache: TaskCache[T],
              cached_score: float = 1.0, inject_index: int = 0, success_threshold: float = 1.0) -> MixResult[T]:
    """LEVEL-2 injection: when no rollout of the group succeeded and the cache holds a
    trajectory for the task, it replaces rollout `inject_index`; GRPO advantages are then
    computed on the mixed group. A group with any success is left untouched, and its successes
    refresh the cache (newest last)."""
    if len(rollouts) != len(scores):
        raise ValueError(f"expected one score per rollout, received {len(scores)} for {len(rollouts)}")
    mixed, mixed_scores = list(rollouts), list(scores)
    successes = [r for r, s in zip(rollouts, scores) if s >= success_threshold]
    all_failed = not successes
    injected = False
    if all_failed:
        entry = cache.get(task_key)
        if entry is not None and mixed:
            mixed[inject_index] = entry.trajectory
            mixed_scores[inject_index] = cached_score
            injected = True
    for trajectory in successes:
        cache.put(task_key, trajectory, "on_policy")
    return MixResult(mixed, mixed_scores, injected, all_failed)


# ---- plans from expert trajectories ----------------------------------------------------------

PLAN_SYSTEM = ("You turn an expert's GUI trajectory into a compact plan that another agent can follow. "
               "Answer only in the format asked for.")
PLAN_QUESTION = ("Abstract the expert's actions into a short plan in natural language: a few ordered steps, each "
                 "naming what to do and the on-screen labels involved (no coordinates, no element numbers). Answer "
                 "with a JSON object only: {\"plan\": [\"...\", ...]}.")


def parse_plan(text: str) -> list[str]:
    """The steps of ``{"plan": [...]}``: a non-empty list of non-empty strings."""
    from gui_gym.errors import JudgeFormatError, excerpt
    from gui_gym.judges.parsing import extract_json_object

    steps = extract_json_object(text).get("plan")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) and s.strip() for s in steps):
        raise JudgeFormatError(f"expected 'plan' as a non-empty list of non-empty strings, received {excerpt(text)}",
                               text)
    return [s.strip() for s in steps]


def plan_from_trajectory(judge: Any, trajectory: Any, *, seed: int | None = None, attempts: int = 3) -> list[str]:
    """LEVEL-1's abstraction: one judge call turns an expert `Trajectory` (its instruction,
    every action, the final screen) into a plan."""
    from gui_gym.judges.parsing import ask
    from gui_gym.models.chat import Message

    actions = "\n".join(f"{i}. {json.dumps(step.parsed_action, sort_keys=True)}" for i, step in enumerate(trajectory.steps))
    parts: list[Any] = [f"Task: {trajectory.instruction}\n\nThe expert's actions, in order:\n{actions}\n"]
    last = trajectory.steps[-1].screenshot if trajectory.steps else trajectory.start_screenshot
    if last is not None:
        parts += ["The final screen:", last]
    parts.append(f"\n{PLAN_QUESTION}")
    return ask(judge, [Message.system(PLAN_SYSTEM), Message.user(*parts)], parse_plan, attempts=attempts, seed=seed)


def expert_trajectory(env: gym.Env, task_id: str, seed: int) -> Any:
    """The task's own solution (``env.unwrapped.oracle_action``) played on `env` and recorded
    as a judge `Trajectory`: the expert trace of LocalWeb-like suites."""
    from gui_gym.records import Trajectory, TrajectoryStep

    obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed})
    trajectory = Trajectory(task_id, str(info.get("instruction", "")), start_screenshot=obs.get("screenshot"))
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        trajectory.steps.append(TrajectoryStep(info.get("parsed_action"), obs.get("screenshot"), info.get("action_error"),
                                               info=info))
        done = terminated or truncated
    return trajectory


def judged_plan(judge: Any, env: gym.Env, task_id: str, seed: int) -> list[str]:
    """The plan a chat judge abstracts from the task's oracle trajectory on `env`."""
    return plan_from_trajectory(judge, expert_trajectory(env, task_id, seed), seed=seed)


def task_plan(env: gym.Env, task_id: str, seed: int) -> list[str]:
    """The expert plan a task carries (LocalWeb: ``task.metadata["expert_plan"]``)."""
    plan = env.unwrapped.suite.make_task(task_id, seed).metadata.get("expert_plan")
    if not plan:
        raise MissingResourceError(f"task {task_id!r} carries no expert plan; use plan_source='judge' to abstract "
                                   "one from its oracle trajectory")
    return list(plan)


# ---- the BEPA trainer: LEVEL-1 seeding, then the GRPO loop with LEVEL-2 mixing ----------------


@dataclass
class BEPAConfig(GRPOConfig):
    """GRPO's settings plus BEPA's options (algorithms.md, BEPA)."""

    level1_groups: int = 1
    """Plan-conditioned groups (group_size rollouts each) per task before training; their
    episodes count against the episode budget."""
    plan_source: str = "task"
    """"task": the task's own expert plan (LocalWeb); "judge": abstracted by a chat judge
    (judge_base_url, judge_model) from the oracle's trajectory, which costs one episode."""
    judge_base_url: str | None = None
    """OpenAI-compatible API root of the plan judge (plan_source="judge")."""
    judge_model: str | None = None
    """Served model name of the plan judge (plan_source="judge")."""
    cache_capacity: int = 1
    """Trajectories kept per task: 1 keeps the newest; k > 1 is a FIFO whose newest is injected."""
    inject_index: int = 0
    """Which rollout of an all-fail group the cached trajectory replaces."""
    luffy: bool = False
    """Reweight the injected (off-policy) tokens by p / (p + luffy_gamma) instead of clipping."""
    luffy_gamma: float = 0.1
    """LUFFY's gamma."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.plan_source not in ("task", "judge"):
            raise ValueError(f"plan_source must be 'task' or 'judge', received {self.plan_source!r}")
        if self.level1_groups < 0 or self.cache_capacity < 1 or self.inject_index < 0 or self.luffy_gamma <= 0:
            raise ValueError(f"expected level1_groups >= 0, cache_capacity >= 1, inject_index >= 0, luffy_gamma > 0, "
                             f"received {self.level1_groups}, {self.cache_capacity}, {self.inject_index}, "
                             f"{self.luffy_gamma}")


def level1(cfg: BEPAConfig, policy: TrainableAgent, pool: EnvPool, cache: TaskCache[Rollout], tasks: Sequence[str],
           plans: Callable[[gym.Env, str, int], list[str]]) -> tuple[int, dict[str, float]]:
    """LEVEL-1: for each task, `level1_groups` groups acted on the instance's plan; the
    successes (stored without the plan) seed the cache. Stops where the next group would
    overrun `cfg.episode_budget`; a group whose every episode crashed is counted, not paid for
    and skipped, as in the loop (`CrashedGroups`). Returns the episodes spent and counters."""
    rng = np.random.default_rng([cfg.seed, 1])
    episodes, crashes = 0, CrashedGroups()
    stats = {"bepa/level1_episodes": 0.0, "bepa/level1_successes": 0.0, "bepa/level1_crashed_groups": 0.0}
    plan_cost = 1 if cfg.plan_source == "judge" else 0  # the judge's look at the expert trajectory
    for task_id in tasks:
        for _ in range(cfg.level1_groups):
            if cfg.episode_budget is not None and episodes + plan_cost + cfg.group_size > cfg.episode_budget:
                break
            seed = cfg.draw_instance(rng)
            plan = pool.run([(0, lambda env: plans(env, task_id, seed))])[0]
            episodes += plan_cost
            group = crashes.rollout(pool, policy, task_id, seed, cfg.group_size, plan=plan)
            if group is None:
                stats["bepa/level1_crashed_groups"] += 1
                continue
            episodes += cfg.group_size
            group = [r for r in group if r.infra_error is None]
            for rollout in group:
                if rollout.success:
                    cache.put(task_id, rollout, "level1")
            stats["bepa/level1_episodes"] += cfg.group_size
            stats["bepa/level1_successes"] += sum(r.success for r in group)
    stats["bepa/cache_tasks"] = float(len(cache))
    return episodes, stats


def level2(cache: TaskCache[Rollout], inject_index: int = 0) -> MixFn:
    """LEVEL-2 as the loop's group mixer: `mix_group` on each group, with the counters the
    paper logs (all-fail groups, injections)."""
    def mix(group: list[Rollout]) -> tuple[list[Rollout], list[bool], dict[str, float]]:
        index = min(inject_index, len(group) - 1)
        result = mix_group(group[0].task_id, group, [r.score for r in group], cache, inject_index=index)
        injected = [result.injected and i == index for i in range(len(group))]
        return result.rollouts, injected, {"bepa/all_fail_groups": float(result.all_failed),
                                           "bepa/injections": float(result.injected)}
    return mix


def luffy_weight(prob: Any, gamma: float = 0.1) -> Any:
    """BEPA's option `luffy` (LUFFY's policy shaping): off-policy tokens are reweighted by
    p / (p + gamma), on a float or a tensor of probabilities (the gradient flows through p,
    which is the point: low-probability expert tokens do not dominate the gradient)."""
    return prob / (prob + gamma)


def luffy_loss(gamma: float) -> OffPolicyLoss:
    """LUFFY's shaped objective for the injected tokens, -A p/(p + gamma), in place of the clip."""
    return lambda logp, advantages: -advantages * luffy_weight(logp.exp(), gamma)


def cache_stats(items: Sequence[TrainItem], old_logprobs: list[torch.Tensor]) -> dict[str, float]:
    """The paper's diagnostic of an update: the mean log-prob of the injected (cached) tokens
    against the policy's own, under the weights before the update."""
    out = {}
    for name, flag in (("bepa/cached_logp", True), ("bepa/on_policy_logp", False)):
        chosen = [old for old, item in zip(old_logprobs, items) if item.off_policy == flag]
        if chosen:
            out[name] = float(torch.cat(chosen).mean())
    return out


def train(cfg: BEPAConfig, policy: TrainableAgent, make_env: Callable[[], gym.Env], judge: Any = None) -> list[dict[str, Any]]:
    """BEPA = LEVEL-1 (plan-conditioned self-rolls seed the cache) + the GRPO loop with
    LEVEL-2 injection. `judge` (a `ChatModel`) overrides the plan judge `cfg` names."""
    seed_everything(cfg.seed)
    plans: Callable[[gym.Env, str, int], list[str]] = task_plan
    if cfg.plan_source == "judge":
        from gui_gym.models.openai_client import OpenAIClient

        plans = partial(judged_plan, judge if judge is not None else OpenAIClient(cfg.judge_model, cfg.judge_base_url))
    cache: TaskCache[Rollout] = TaskCache(cfg.cache_capacity)
    log = RunLog(cfg.run_dir, cfg, tensorboard=cfg.tensorboard, wandb_project=cfg.wandb_project)
    try:
        with EnvPool(make_env, cfg.pool_size) as pool:
            tasks = list(cfg.tasks) or list(pool.envs[0].unwrapped.task_ids)
            episodes, stats = level1(cfg, policy, pool, cache, tasks, plans)
            log.log(0, {"charts/episodes": episodes, **stats})
            return run(cfg, policy, pool, mix=level2(cache, cfg.inject_index),
                       off_policy_loss=luffy_loss(cfg.luffy_gamma) if cfg.luffy else None, update_stats=cache_stats,
                       episodes=episodes, log=log)
    finally:
        log.close()
