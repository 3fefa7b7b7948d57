"""Group rollouts: G episodes of one task instance (same task id, same instance seed), the
unit GRPO, PAGE and BEPA compare rollouts within.

Envs live in an `EnvPool`, each made and driven on its own thread: Playwright's sync objects
belong to the thread that made them, and envs that wait on their browsers overlap. The G
episodes of a group run in waves of the pool's size, in lockstep: the policy acts for every
live episode on the calling thread (in a fixed order, so seeded sampling is reproducible),
then the envs step concurrently.

A `Rollout` is the episode's `gui_gym.records.Trajectory`; each of its `Step`s keeps what
training needs: the prompt (always the plain one: with a plan, BEPA LEVEL-1, the policy acts
on the plan-conditioned prompt and the plain prompt is stored), the generated tokens, their
log-probs when sampled, the reward and the env's `info` (progress and subtasks from the
wrappers land there). Screenshots are not kept: a step's prompt holds what the policy read.

Branching (`trainers.branching`): with ``snapshots=True`` each episode keeps a `BranchPoint`
(the env's snapshot and the policy's history) at the first step it reaches each new count of
milestones; `rollout_continuations` plays G continuations of one such point, each env
restoring the snapshot, the policy conditioned on the parent's history, and only the steps
after the snapshot in the continuation's `Rollout` (the prefix was trained with its parent).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from agents.base import Act, Context, TrainableAgent
from gui_gym.errors import InfraError
from gui_gym.records import Trajectory, TrajectoryStep
from gui_gym.snapshots import restore_episode

logger = logging.getLogger(__name__)


@dataclass
class Step(TrajectoryStep):
    """One policy step: the env step (what the env parsed, its reward and ``info``) and what
    training needs of the policy's output: the prompt, the text, the generated tokens and
    their log-probs when sampled."""

    prompt: Any = None
    text: str = ""
    token_ids: tuple[int, ...] = ()
    logprobs: tuple[float, ...] = ()


@dataclass
class Rollout(Trajectory):
    """One episode, a `gui_gym.records.Trajectory` of `Step`s (success, score and progress
    read from the last step's ``info``). `source` is "on_policy" for the policy's own plain
    rollouts, "level1" for BEPA's plan-conditioned ones (`plan` is what it acted with; the
    stored prompts never hold it) and "expert" for the oracle's own (`trainers.sft.expert_rollout`)."""

    source: str = "on_policy"
    plan: tuple[str, ...] | None = None
    crash: str | None = None
    """Set when the env raised instead of answering (reset or step): the episode is void."""
    branch_points: list["BranchPoint"] = field(default_factory=list)
    """With ``snapshots=True``: where the episode first reached 1, 2, ... milestones."""
    branch: "BranchPoint | None" = None
    """For a continuation (source "branch"): the point it continues from."""

    @property
    def infra_error(self) -> str | None:
        """Why the infrastructure cut the episode short, if it did (a crash included): such an
        episode is no evidence about the policy and is left out of training."""
        return self.crash if self.crash is not None else super().infra_error


@dataclass
class BranchPoint:
    """A state an episode reached, to continue from: after `step` steps, with `milestones`
    of the task's milestones reached; `snapshot` is the env's (`GUIEnv.snapshot`), `history`
    the policy's own acts so far (its later prompts read them)."""

    snapshot: dict[str, Any]
    history: tuple[Act, ...]
    step: int
    milestones: int
    parent: int = 0
    """The index of the episode it came from, in its group."""


class EnvPool:
    """`size` envs made by `make_env`, each on its own thread.

    >>> import gui_gym
    >>> with EnvPool(lambda: gym.make("GUI/Demo-v0"), size=2) as pool:  # no browser before a reset
    ...     pool.task_ids(), pool.run([(0, lambda env: 1), (1, lambda env: 2)])
    (['demo.press-button', 'demo.fill-form', 'demo.read-code'], [1, 2])
    """

    def __init__(self, make_env: Callable[[], gym.Env], size: int = 1):
        if size < 1:
            raise ValueError(f"size must be >= 1, received {size}")
        self._threads = [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"env-{i}") for i in range(size)]
        futures = [thread.submit(make_env) for thread in self._threads]
        self.envs: list[gym.Env] = []
        errors = []
        for future in futures:
            try:
                self.envs.append(future.result())
            except Exception as exc:  # close what did start, then report the first failure
                errors.append(exc)
        if errors:
            self.close()
            raise errors[0]

    def __len__(self) -> int:
        return len(self.envs)

    def run(self, calls: Sequence[tuple[int, Callable[[gym.Env], Any]]]) -> list[Any]:
        """Run each ``fn(env)`` on env `index`'s thread, concurrently; results in order."""
        futures = [self._threads[index].submit(fn, self.envs[index]) for index, fn in calls]
        return [future.result() for future in futures]

    def task_ids(self) -> list[str]:
        """The tasks the envs draw from, as the env says (``get_wrapper_attr("task_ids")``, which a
        wrapper or a `gui_gym.remote.RemoteEnv` forwards): the trainers never look under it."""
        return list(self.run([(0, lambda env: env.get_wrapper_attr("task_ids"))])[0])

    def close(self) -> None:
        """Close every env on its own thread; safe to call twice."""
        futures = [thread.submit(env.close) for thread, env in zip(self._threads, self.envs)]
        for future in futures:
            future.result()
        self.envs = []
        for thread in self._threads:
            thread.shutdown(wait=True)

    def __enter__(self) -> "EnvPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def rollout_group(pool: EnvPool, policy: TrainableAgent, task_id: str, seed: int, group_size: int, *,
                  plan: Sequence[str] | None = None, greedy: bool = False, snapshots: bool = False) -> list[Rollout]:
    """`group_size` episodes of task `task_id` with instance seed `seed` (also the reset
    seed), acted by `policy` (conditioned on `plan` when given); `snapshots`: keep their
    branch points."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, received {group_size}")
    rollouts = rollout_episodes(pool, policy, [(task_id, seed)] * group_size, plan=plan, greedy=greedy,
                                snapshots=snapshots)
    if all(r.crash is not None for r in rollouts):
        raise InfraError(f"every episode of the group of {task_id!r} (seed {seed}) crashed; the first: "
                         f"{rollouts[0].crash}")
    return rollouts


def rollout_episodes(pool: EnvPool, policy: TrainableAgent, episodes: Sequence[tuple[str, int]], *,
                     plan: Sequence[str] | None = None, greedy: bool = False, snapshots: bool = False) -> list[Rollout]:
    """One episode per (task id, instance seed), in waves of the pool's size; `snapshots`:
    keep each episode's branch points."""
    starts = [(task_id, seed, _reset(task_id, seed), None) for task_id, seed in episodes]
    return _play(pool, policy, starts, plan=plan, greedy=greedy, snapshots=snapshots)


def rollout_continuations(pool: EnvPool, policy: TrainableAgent, point: BranchPoint, group_size: int, *,
                          greedy: bool = False) -> list[Rollout]:
    """`group_size` continuations of the episode at `point`: each restores its snapshot and
    plays on; a continuation's steps are those after the snapshot."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, received {group_size}")
    task_id, seed = point.snapshot["task_id"], point.snapshot["seed"]
    starts = [(task_id, seed, _restore(point.snapshot), point)] * group_size
    return _play(pool, policy, starts, plan=None, greedy=greedy, snapshots=False)


def _play(pool: EnvPool, policy: TrainableAgent, starts: Sequence[tuple[str, int, Callable, BranchPoint | None]], *,
          plan: Sequence[str] | None, greedy: bool, snapshots: bool) -> list[Rollout]:
    """Episodes begun by each start's function (a reset or a restore), in waves of the pool's size."""
    plan = tuple(plan) if plan is not None else None
    rollouts: list[Rollout] = []
    for first in range(0, len(starts), len(pool)):
        wave_starts = starts[first:first + len(pool)]
        slots = list(range(len(wave_starts)))
        resets = pool.run([(slot, _guarded(wave_starts[slot][2])) for slot in slots])
        wave = [Rollout(task_id=task_id, seed=seed,
                        instruction="" if isinstance(reset, _Crash) else str(reset[1].get("instruction", "")),
                        source="branch" if point is not None else "on_policy" if plan is None else "level1", plan=plan,
                        crash=reset.reason if isinstance(reset, _Crash) else None, branch=point)
                for (task_id, seed, _start, point), reset in zip(wave_starts, resets)]
        observations = {slot: reset[0] for slot, reset in zip(slots, resets) if not isinstance(reset, _Crash)}
        histories: dict[int, list[Act]] = {slot: list(wave_starts[slot][3].history if wave_starts[slot][3] else ())
                                           for slot in slots}
        reached = {slot: 0 for slot in slots}
        live = [slot for slot in slots if wave[slot].crash is None]
        while live:
            contexts = {slot: Context(wave[slot].instruction, plan, tuple(histories[slot])) for slot in live}
            prompts = [policy.prompt(observations[slot], contexts[slot]) for slot in live]
            acts = {slot: (act, prompt if plan is None else policy.prompt(observations[slot],
                                                                           contexts[slot].without_plan()))
                    for slot, prompt, act in zip(live, prompts, generate_wave(policy, prompts, greedy))}
            results = pool.run([(slot, _guarded(_step(acts[slot][0].action, reached[slot] if snapshots else None)))
                                for slot in live])
            still = []
            for slot, result in zip(live, results):
                if isinstance(result, _Crash):
                    wave[slot].crash = result.reason
                    continue
                (obs, reward, terminated, truncated, info), progress = result
                act, stored = acts[slot]
                wave[slot].steps.append(Step(parsed_action=info.get("parsed_action"), action_error=info.get("action_error"),
                                             action=act.action, reward=float(reward), info=info, prompt=stored,
                                             text=act.text, token_ids=act.token_ids, logprobs=act.logprobs))
                histories[slot].append(act)
                observations[slot] = obs
                count, snapshot = progress if progress is not None else (0, None)
                if snapshot is not None:
                    reached[slot] = count
                    wave[slot].branch_points.append(BranchPoint(snapshot, tuple(histories[slot]),
                                                                len(wave[slot].steps), count, first + slot))
                if not (terminated or truncated):
                    still.append(slot)
            live = still
        rollouts.extend(wave)
    return rollouts


def generate_wave(policy: TrainableAgent, prompts: Sequence[Any], greedy: bool) -> list[Act]:
    """One `Act` per prompt of a wave: through the policy's ``generate_many`` when it has one
    (a served policy sends the requests together), else one `generate` after another."""
    if hasattr(policy, "generate_many"):
        return list(policy.generate_many(prompts, greedy=greedy))
    return [policy.generate(prompt, greedy=greedy) for prompt in prompts]


def evaluate(pool: EnvPool, policy: TrainableAgent, tasks: Sequence[str], seeds: Sequence[int],
             greedy: bool = True) -> dict[str, float]:
    """Success rate per task over the instances `seeds` (greedy by default: the policy's
    most likely actions); crashed episodes are left out."""
    episodes = [(task_id, seed) for task_id in tasks for seed in seeds]
    rollouts = [r for r in rollout_episodes(pool, policy, episodes, greedy=greedy) if r.infra_error is None]
    return {task_id: float(np.mean([r.success for r in rollouts if r.task_id == task_id] or [np.nan]))
            for task_id in tasks}


def held_out_seeds(count: int, seed: int, training: int | None = None) -> list[int]:
    """`count` instance seeds drawn from `seed`, outside the training set 0..training-1
    (`GRPOConfig.instance_seeds`)."""
    rng = np.random.default_rng([seed, 2])
    return [int(s) for s in rng.integers(training or 0, 2**31 - 1, size=count)]


@dataclass(frozen=True)
class _Crash:
    reason: str


def _guarded(fn: Callable[[gym.Env], Any]) -> Callable[[gym.Env], Any]:
    """`fn`, with an exception from the env turned into a `_Crash`: one broken episode voids
    itself, not its group (the env's next reset starts afresh)."""
    def call(env: gym.Env) -> Any:
        try:
            return fn(env)
        except Exception as exc:  # the env broke its contract; the episode is void, the run goes on
            logger.warning("an env raised instead of answering (%s: %s); its episode is void", type(exc).__name__, exc)
            return _Crash(f"{type(exc).__name__}: {exc}")
    return call


def _reset(task_id: str, seed: int) -> Callable[[gym.Env], Any]:
    return lambda env: env.reset(seed=seed, options={"task_id": task_id, "instance_seed": seed})


def _restore(snapshot: dict[str, Any]) -> Callable[[gym.Env], Any]:
    return lambda env: restore_episode(env, snapshot)


def _step(action: Any, reached: int | None = None) -> Callable[[gym.Env], Any]:
    """The env's step; with `reached` (milestones the episode had reached), also the count
    reached now and, when it grew and the episode goes on, the env's snapshot (else None)."""
    def call(env: gym.Env) -> Any:
        result = env.step(action)
        if reached is None:
            return result, None
        count = sum(env.get_wrapper_attr("milestones_reached")())
        grew = count > reached and not (result[2] or result[3])
        return result, (count, env.get_wrapper_attr("snapshot")() if grew else None)
    return call
