"""BEPA: bi-level expert-to-policy assimilation (docs/algorithms.md, BEPA).

LEVEL-1 turns expert traces into plans, lets the base policy act on the plan, and keeps only
the successes ("self-rolled reachable" trajectories, stored without the plan). LEVEL-2 keeps
one cache per task instance (task id and instance seed), seeded by LEVEL-1, injected into a
GRPO group **only when every rollout of the group fails**, and refreshed with the policy's own
successes.

The cache rules sit at the top as small pure pieces, checked in tests/trainers/test_trainers_bepa.py; then plans
(a task's own, or a judge's abstraction of the expert's trajectory) and the trainer: LEVEL-1
seeding, then the shared GRPO loop (`gui_gym.trainers.grpo.run`) with LEVEL-2 as its group mixer,
LUFFY's shaping as its off-policy loss and the cache's log-prob diagnostic as its update
stats. The paper's ablation rows are options of the same trainer: the cache seeded by the
expert's own trajectories instead of LEVEL-1 (`seed_source`), and static mixing into every
group instead of LEVEL-2 (`mixing`).

The expert is the env's oracle acting through the policy's own candidates unless `train_on`
gets an `Expert`: an agent acting in an action space of its own, whose traces
(`ExpertTrace`) are converted into the policy's (`rollout_from_trace`, what replacement
injects) or abstracted into plans (`Expert.plan`, what LEVEL-1 re-executes). `token_profile`
measures how far trajectories are from the policy: the paper's log-prob gap and share of
low-probability tokens.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Generic, Hashable, Iterator, Protocol, Sequence, TypeVar

import gymnasium as gym
import numpy as np
import torch

from gui_gym.actions import Action
from gui_gym.agents.base import Context, TrainableAgent
from gui_gym.errors import MissingResourceError
from gui_gym.trainers import metrics
from gui_gym.trainers.grpo import (CrashedGroups, GRPOConfig, MixFn, OffPolicyLoss, TrainItem, check_policy, run,
                           seed_everything)
from gui_gym.trainers.rollout import EnvPool, Rollout, Step
from gui_gym.trainers.runs import RunLog

T = TypeVar("T")


@dataclass(frozen=True)
class CacheEntry(Generic[T]):
    """A successful trajectory kept for a task, and where it came from."""

    trajectory: T
    source: str
    """"level1" (plan-conditioned self-roll), "expert" (the expert's own trajectory: the
    replacement baseline) or "on_policy" (the policy's own success)."""


SOURCES = ("level1", "expert", "on_policy")


class TaskCache(Generic[T]):
    """LEVEL-2: per-task successful trajectories. `capacity=1` (default) keeps the newest
    only; a larger capacity is a FIFO whose newest entry is injected."""

    def __init__(self, capacity: int = 1):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, received {capacity}")
        self.capacity = capacity
        self._entries: dict[Hashable, deque[CacheEntry[T]]] = {}

    def put(self, task_key: Hashable, trajectory: T, source: str) -> None:
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, received {source!r}")
        self._entries.setdefault(task_key, deque(maxlen=self.capacity)).append(CacheEntry(trajectory, source))

    def get(self, task_key: Hashable) -> CacheEntry[T] | None:
        entries = self._entries.get(task_key)
        return entries[-1] if entries else None

    def __contains__(self, task_key: Hashable) -> bool:
        return bool(self._entries.get(task_key))

    def __len__(self) -> int:
        return sum(1 for entries in self._entries.values() if entries)

    def __iter__(self) -> Iterator[CacheEntry[T]]:
        """The entry each task would inject now (its newest)."""
        return (entries[-1] for entries in self._entries.values() if entries)


@dataclass
class MixResult(Generic[T]):
    rollouts: list[T]
    scores: list[float]
    injected: bool
    all_failed: bool


def mix_group(task_key: Hashable, rollouts: Sequence[T], scores: Sequence[float], cache: TaskCache[T],
              cached_score: float = 1.0, inject_index: int = 0, success_threshold: float = 1.0,
              static: bool = False) -> MixResult[T]:
    """LEVEL-2 injection: when no rollout of the group succeeded and the cache holds a
    trajectory for the task, it replaces rollout `inject_index`; GRPO advantages are then
    computed on the mixed group. A group with any success is left untouched, and its successes
    refresh the cache (newest last). ``static=True`` is the static mixing BEPA's ablation
    compares with: the cached trajectory replaces rollout `inject_index` of every group, and
    the cache is never refreshed."""
    if len(rollouts) != len(scores):
        raise ValueError(f"expected one score per rollout, received {len(scores)} for {len(rollouts)}")
    mixed, mixed_scores = list(rollouts), list(scores)
    successes = [r for r, s in zip(rollouts, scores) if s >= success_threshold]
    all_failed = not successes
    injected = False
    if all_failed or static:
        entry = cache.get(task_key)
        if entry is not None and mixed:
            mixed[inject_index] = entry.trajectory
            mixed_scores[inject_index] = cached_score
            injected = True
    for trajectory in successes if not static else ():
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
    """The task's own solution (the env's ``oracle_action``, reached with ``get_wrapper_attr``
    so that a wrapped or remote env serves it too) played on `env` and recorded as a judge
    `Trajectory`: the expert trace of LocalWeb-like suites."""
    from gui_gym.records import Trajectory, TrajectoryStep

    obs, info = env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed})
    oracle_action = env.get_wrapper_attr("oracle_action")
    trajectory = Trajectory(task_id, str(info.get("instruction", "")), start_screenshot=obs.get("screenshot"))
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(oracle_action())
        trajectory.steps.append(TrajectoryStep(info.get("parsed_action"), obs.get("screenshot"), info.get("action_error"),
                                               info=info))
        done = terminated or truncated
    return trajectory


@dataclass
class ExpertTrace:
    """An expert's episode in its own action space (another agent's, another framework's):
    the observation it acted on before each of its actions, the actions, and the env's
    final ``info`` (success, score, progress)."""

    task_id: str
    seed: int
    instruction: str
    observations: list[dict[str, Any]]
    actions: list[Action]
    final_info: dict[str, Any]

    @property
    def success(self) -> bool:
        return bool(self.final_info.get("success", False))


class Expert(Protocol):
    """An off-distribution expert: it plays a task instance on an env in its own action
    space (`trace`, given data: no episode of the budget) and abstracts a trace into a plan
    in words (`plan`, LEVEL-1's input; `plan_from_trajectory` is the chat judge's way)."""

    def trace(self, env: gym.Env, task_id: str, seed: int) -> ExpertTrace: ...

    def plan(self, trace: ExpertTrace) -> list[str]: ...


def rollout_from_trace(trace: ExpertTrace, policy: TrainableAgent) -> Rollout:
    """BEPA's conversion of an expert's trace into the policy's action space, what the
    replacement and LEVEL-2-only rows inject: each action the policy can spell
    (`policy.expert_act` on the prompt it builds for the observation the expert acted on,
    with the plain instruction and the converted steps so far as history) becomes a step with
    that token; an action it has no candidate for (a key it cannot press) is dropped, and the
    next kept step is prompted with the observation the expert then saw. The rollout keeps
    the trace's outcome (its last step carries the final ``info``); log-probs are recomputed
    under the policy at update time (0 here)."""
    rollout = Rollout(task_id=trace.task_id, seed=trace.seed, instruction=trace.instruction, source="expert")
    history: list[Any] = []
    for obs, action in zip(trace.observations, trace.actions):
        prompt = policy.prompt(obs, Context(trace.instruction, None, tuple(history)))
        act = policy.expert_act(prompt, action)
        if act is None:
            continue
        history.append(act)
        rollout.steps.append(Step(parsed_action=action.to_dict(), action=act.action, prompt=prompt, text=act.text,
                                  token_ids=act.token_ids, logprobs=(0.0,) * len(act.token_ids)))
    if rollout.steps:
        rollout.steps[-1].info = dict(trace.final_info)
        rollout.steps[-1].reward = float(trace.final_info.get("score") or 0.0)
    return rollout


LOW_PROB = 0.1
"""A token is *low-probability* under a policy when p < LOW_PROB (the paper's diagnostic of
off-policy data: the share of such tokens in a trajectory set)."""


def logprob_profile(logprobs: Sequence[torch.Tensor], low_prob: float = LOW_PROB) -> dict[str, Any]:
    """Of per-trajectory token log-probs: their mean and the share of tokens with
    p < `low_prob` (None for both without tokens), and the token count."""
    flat = torch.cat([t.reshape(-1) for t in logprobs]) if logprobs else torch.zeros(0)
    if not len(flat):
        return {"mean_logp": None, "low_prob_share": None, "tokens": 0}
    return {"mean_logp": float(flat.mean()), "low_prob_share": float((flat < float(np.log(low_prob))).float().mean()),
            "tokens": int(len(flat))}


def token_profile(policy: TrainableAgent, rollouts: Sequence[Rollout], low_prob: float = LOW_PROB) -> dict[str, Any]:
    """How far `rollouts` are from `policy`: `logprob_profile` of their tokens under its
    current weights, each step on the prompt the rollout stores (the plain one)."""
    steps = [s for r in rollouts for s in r.steps]
    if not steps:
        return logprob_profile([], low_prob)
    with torch.no_grad():
        return logprob_profile(policy.logprobs([s.prompt for s in steps], [s.token_ids for s in steps]), low_prob)


def judged_plan(judge: Any, env: gym.Env, task_id: str, seed: int) -> list[str]:
    """The plan a chat judge abstracts from the task's oracle trajectory on `env`."""
    return plan_from_trajectory(judge, expert_trajectory(env, task_id, seed), seed=seed)


def task_plan(env: gym.Env, task_id: str, seed: int) -> list[str]:
    """The expert plan a task instance carries (LocalWeb's), from the env's documented
    ``expert_plan(task_id, instance_seed)`` (`gui_gym.env.GUIEnv.expert_plan`), which a
    wrapper or a remote env forwards."""
    plan = env.get_wrapper_attr("expert_plan")(task_id, seed)
    if not plan:
        raise MissingResourceError(f"task {task_id!r} carries no expert plan; use plan_source='judge' to abstract "
                                   "one from its oracle trajectory")
    return list(plan)


# ---- the BEPA trainer: LEVEL-1 seeding, then the GRPO loop with LEVEL-2 mixing ----------------


@dataclass
class BEPAConfig(GRPOConfig):
    """GRPO's settings plus BEPA's options (docs/algorithms.md, BEPA)."""

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
    """Trajectories kept per task instance: 1 keeps the newest; k > 1 is a FIFO whose newest is injected."""
    inject_index: int = 0
    """Which rollout of an all-fail group the cached trajectory replaces."""
    luffy: bool = False
    """Reweight the injected (off-policy) tokens by p / (p + luffy_gamma) instead of clipping."""
    luffy_gamma: float = 0.1
    """LUFFY's gamma."""
    seed_source: str = "level1"
    """What seeds the cache: "level1" (plan-conditioned self-rolls, BEPA) or "expert" (the
    expert's own trajectory, `gui_gym.trainers.sft.expert_rollout`, recorded on the plain prompt: given
    data, no episode of the budget): the ablation's replacement and LEVEL-2-only rows."""
    mixing: str = "dynamic"
    """"dynamic": LEVEL-2 (inject only into all-fail groups, refresh with the policy's
    successes); "static": inject into every group of a cached instance, never refresh (the
    replacement and LEVEL-1-only rows)."""
    level1_group_size: int | None = None
    """Rollouts per LEVEL-1 group; None: group_size."""
    expert_tasks: tuple[str, ...] = ()
    """The tasks the expert covers (LEVEL-1 or its trajectories seed only these); empty: every
    task. The others are BEPA's held-out tasks: trained on, never given an expert trace."""
    level1_every_instance: bool = False
    """Seed every training instance (0..instance_seeds-1) of every task, `level1_groups` times
    each, instead of `level1_groups` drawn instances per task: the expert-covered set is then
    the training set."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.plan_source not in ("task", "judge"):
            raise ValueError(f"plan_source must be 'task' or 'judge', received {self.plan_source!r}")
        if self.seed_source not in ("level1", "expert") or self.mixing not in ("dynamic", "static"):
            raise ValueError(f"seed_source must be 'level1' or 'expert' and mixing 'dynamic' or 'static', received "
                             f"{self.seed_source!r}, {self.mixing!r}")
        self.expert_tasks = tuple(self.expert_tasks)
        if self.level1_every_instance and self.instance_seeds is None:
            raise ValueError("level1_every_instance needs instance_seeds (the training set it covers)")
        if self.level1_group_size is not None and self.level1_group_size < 1:
            raise ValueError(f"level1_group_size must be None or >= 1, received {self.level1_group_size}")
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
    episodes, crashes = 0, CrashedGroups()
    stats = {metrics.LEVEL1_EPISODES: 0.0, metrics.LEVEL1_SUCCESSES: 0.0, metrics.LEVEL1_CRASHED_GROUPS: 0.0}
    plan_cost = 1 if cfg.plan_source == "judge" else 0  # the judge's look at the expert trajectory
    size = cfg.level1_group_size or cfg.group_size
    for task_id, seeds in covered_instances(cfg, tasks).items():
        for seed in seeds:
            if cfg.episode_budget is not None and episodes + plan_cost + size > cfg.episode_budget:
                break
            plan = pool.run([(0, lambda env: plans(env, task_id, seed))])[0]
            episodes += plan_cost
            group = crashes.rollout(pool, policy, task_id, seed, size, plan=plan)
            if group is None:
                stats[metrics.LEVEL1_CRASHED_GROUPS] += 1
                continue
            episodes += size
            group = [r for r in group if r.infra_error is None]
            for rollout in group:
                if rollout.success:
                    cache.put(instance_key(rollout), rollout, "level1")
            stats[metrics.LEVEL1_EPISODES] += size
            stats[metrics.LEVEL1_SUCCESSES] += sum(r.success for r in group)
    stats[metrics.CACHE_TASKS] = float(len(cache))
    return episodes, stats


def covered_instances(cfg: BEPAConfig, tasks: Sequence[str]) -> dict[str, list[int]]:
    """Per task, the instance seeds the expert covers (a seed once per group it gets): every
    training instance with `level1_every_instance`, else `level1_groups` drawn ones."""
    if cfg.level1_every_instance:
        return {task_id: [s for s in range(cfg.instance_seeds or 0) for _ in range(cfg.level1_groups)]
                for task_id in tasks}
    rng = np.random.default_rng([cfg.seed, 1])
    return {task_id: [cfg.draw_instance(rng) for _ in range(cfg.level1_groups)] for task_id in tasks}


def expert_seeding(cfg: BEPAConfig, policy: TrainableAgent, pool: EnvPool, cache: TaskCache[Rollout],
                   tasks: Sequence[str], expert: Expert | None = None) -> tuple[int, dict[str, float]]:
    """The ablation's seeding without LEVEL-1: the expert's own trajectory of every covered
    instance, on the plain prompt, straight into the cache (given data: no episode spent):
    the oracle's through the policy's candidates, or `expert`'s trace converted into the
    policy's action space (`rollout_from_trace`)."""
    from gui_gym.trainers.sft import expert_rollout

    def play(env: gym.Env, task_id: str, seed: int) -> Rollout:
        if expert is None:
            return expert_rollout(env, policy, task_id, seed)
        return rollout_from_trace(expert.trace(env, task_id, seed), policy)

    for task_id, seeds in covered_instances(cfg, tasks).items():
        for seed in sorted(set(seeds)):
            rollout = pool.run([(0, lambda env: play(env, task_id, seed))])[0]
            if rollout.success and rollout.steps:
                cache.put(instance_key(rollout), rollout, "expert")
    return 0, {metrics.CACHE_TASKS: float(len(cache))}


def instance_key(rollout: Rollout) -> tuple[str, int]:
    """The cache's key: the task instance (task id and instance seed). The paper's "task" is
    one instance (an OSWorld task); a LocalWeb template's instances differ in names, values and
    world, so one instance's trajectory is no expert for another's group."""
    return rollout.task_id, rollout.seed


def level2(cache: TaskCache[Rollout], inject_index: int = 0, static: bool = False) -> MixFn:
    """LEVEL-2 as the loop's group mixer: `mix_group` on each group, with the counters the
    paper logs (all-fail groups, injections); `static`: the ablation's static mixing."""
    def mix(group: list[Rollout]) -> tuple[list[Rollout], list[bool], dict[str, float]]:
        index = min(inject_index, len(group) - 1)
        result = mix_group(instance_key(group[0]), group, [r.score for r in group], cache, inject_index=index,
                           static=static)
        injected = [result.injected and i == index for i in range(len(group))]
        return result.rollouts, injected, {metrics.ALL_FAIL_GROUPS: float(result.all_failed),
                                           metrics.INJECTIONS: float(result.injected)}
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
    """The paper's diagnostics of an update, under the weights before it: the mean log-prob
    of the injected (cached) tokens against the policy's own, and the share of each whose
    probability is below `LOW_PROB`."""
    out = {}
    for flag, logp, low_prob_share in ((True, metrics.CACHED_LOGP, metrics.CACHED_LOW_PROB_SHARE),
                                       (False, metrics.ON_POLICY_LOGP, metrics.ON_POLICY_LOW_PROB_SHARE)):
        profile = logprob_profile([old for old, item in zip(old_logprobs, items) if item.off_policy == flag])
        if profile["tokens"]:
            out[logp] = profile["mean_logp"]
            out[low_prob_share] = profile["low_prob_share"]
    return out


def train(cfg: BEPAConfig, policy: TrainableAgent, make_env: Callable[[], gym.Env], judge: Any = None) -> list[dict[str, Any]]:
    """BEPA = LEVEL-1 (plan-conditioned self-rolls seed the cache) + the GRPO loop with
    LEVEL-2 injection. `judge` (a `ChatModel`) overrides the plan judge `cfg` names."""
    seed_everything(cfg.seed)
    log = RunLog(cfg.run_dir, cfg, tensorboard=cfg.tensorboard, wandb_project=cfg.wandb_project)
    try:
        with EnvPool(make_env, cfg.pool_size) as pool:
            return train_on(cfg, policy, pool, judge, log)
    finally:
        log.close()


def train_on(cfg: BEPAConfig, policy: TrainableAgent, pool: EnvPool, judge: Any = None,
             log: RunLog | None = None, expert: Expert | None = None) -> list[dict[str, Any]]:
    """`train` on a pool the caller owns (the learning benchmark's): seed the cache (LEVEL-1,
    or the expert's trajectories), then the loop with the cache as its mixer. With `expert`,
    an off-distribution expert gives both: its traces, converted, or its plans of them
    (`plan_source` is then not read). The seeded cache's `token_profile` under the starting
    weights is logged with the seeding (``bepa/seeded_*``)."""
    check_policy(policy, cfg)  # before LEVEL-1 spends episodes
    plans: Callable[[gym.Env, str, int], list[str]] = task_plan
    if expert is not None:
        plans = lambda env, task_id, seed: expert.plan(expert.trace(env, task_id, seed))  # noqa: E731
    elif cfg.plan_source == "judge":
        from gui_gym.models.openai_client import OpenAIClient

        plans = partial(judged_plan, judge if judge is not None else OpenAIClient(cfg.judge_model, cfg.judge_base_url))
    cache: TaskCache[Rollout] = TaskCache(cfg.cache_capacity)
    log = log or RunLog(None, cfg, tensorboard=False)
    tasks = list(cfg.expert_tasks or cfg.tasks) or pool.task_ids()
    if cfg.seed_source == "expert":
        episodes, stats = expert_seeding(cfg, policy, pool, cache, tasks, expert)
    else:
        episodes, stats = level1(cfg, policy, pool, cache, tasks, plans)
    seeded = token_profile(policy, [entry.trajectory for entry in cache])
    if seeded["tokens"]:
        stats.update({metrics.SEEDED_LOGP: seeded["mean_logp"], metrics.SEEDED_LOW_PROB_SHARE: seeded["low_prob_share"]})
    log.log(0, {metrics.EPISODES: episodes, **stats})
    return run(cfg, policy, pool, mix=level2(cache, cfg.inject_index, static=cfg.mixing == "static"),
               off_policy_loss=luffy_loss(cfg.luffy_gamma) if cfg.luffy else None, update_stats=cache_stats,
               episodes=episodes, log=log)
