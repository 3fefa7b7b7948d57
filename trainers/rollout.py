"""Group rollouts: G episodes of one task instance (same task id, same instance seed), the
unit GRPO, PAGE and BEPA compare rollouts within.

Envs live in an `EnvPool`, each made and driven on its own thread: Playwright's sync objects
belong to the thread that made them, and envs that wait on their browsers overlap; a pool of
`gui_gym.remote.RemoteEnv`s is the Ray pool, driven the same way. Episodes run in one of two modes:

- lockstep (`rollout_group`, `rollout_episodes`): in waves of the pool's size; the policy acts
  for every live episode of a wave on the calling thread (in a fixed order, so seeded sampling
  is reproducible), then the envs step concurrently, and the wave waits for its slowest env.
- asynchronous (`rollout_groups` with ``asynchronous=True``): every env takes the next episode
  as soon as it is free and steps it on its own; the calling thread answers whichever episodes
  wait for an action, together (one ``generate_many``, so a model server batches them), and
  hands a group over the moment its G episodes are done. Sampling then depends on the order
  episodes ask in, so it is not reproducible from the seed alone.

A `Rollout` is the episode's `gui_gym.records.Trajectory`; each of its `Step`s keeps what
training needs: the prompt (always the plain one: with a plan, BEPA LEVEL-1, the policy acts
on the plan-conditioned prompt and the plain prompt is stored), the generated tokens, their
log-probs when sampled, the reward and the env's `info` (progress and subtasks from the
wrappers land there). Screenshots are not kept: a step's prompt holds what the policy read.

Branching (`gui_gym.trainers.branching`): with ``snapshots=True`` each episode keeps a `BranchPoint`
(the env's snapshot and the policy's history) at the first step it reaches each new count of
milestones; `rollout_continuations` plays G continuations of one such point, each env
restoring the snapshot, the policy conditioned on the parent's history, and only the steps
after the snapshot in the continuation's `Rollout` (the prefix was trained with its parent).
"""

from __future__ import annotations

import inspect
import logging
import queue
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import gymnasium as gym
import numpy as np

from gui_gym.agents.base import Act, Context, TrainableAgent
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
    stored prompts never hold it) and "expert" for the oracle's own (`gui_gym.trainers.sft.expert_rollout`)."""

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
    """`size` envs made by `make_env`, each on its own thread; `wrap` (env -> env), when
    given, wraps each where it lives (`make_wrapped`).

    >>> import gui_gym
    >>> with EnvPool(lambda: gym.make("GUI/Demo-v0"), size=2) as pool:  # no browser before a reset
    ...     pool.task_ids(), pool.run([(0, lambda env: 1), (1, lambda env: 2)])
    (['demo.press-button', 'demo.fill-form', 'demo.read-code'], [1, 2])
    """

    def __init__(self, make_env: Callable[..., gym.Env], size: int = 1,
                 wrap: Callable[[gym.Env], gym.Env] | None = None):
        if size < 1:
            raise ValueError(f"size must be >= 1, received {size}")
        self._threads = [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"env-{i}") for i in range(size)]
        make = make_env if wrap is None else lambda: make_wrapped(make_env, wrap)
        futures = [thread.submit(make) for thread in self._threads]
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
        futures = [self.submit(index, fn) for index, fn in calls]
        return [future.result() for future in futures]

    def submit(self, index: int, fn: Callable[[gym.Env], Any]) -> Future:
        """``fn(env)`` on env `index`'s thread, after what it already runs; its future."""
        return self._threads[index].submit(fn, self.envs[index])

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


def make_wrapped(make_env: Callable[..., gym.Env], wrap: Callable[[gym.Env], gym.Env]) -> gym.Env:
    """`make_env`'s env wrapped by `wrap`, where the env lives: a factory that takes a ``wrap``
    keyword applies it itself (the one `gui_gym.trainers.cli.env_factory` gives for ``--ray`` wraps in
    the env's Ray actor, where wrappers such as PAGE's with the `OracleJudge` reach the real
    env); any other factory's env is wrapped here."""
    try:
        takes_wrap = "wrap" in inspect.signature(make_env).parameters
    except (TypeError, ValueError):  # a callable without a signature to read
        takes_wrap = False
    return make_env(wrap=wrap) if takes_wrap else wrap(make_env())


def rollout_group(pool: EnvPool, policy: TrainableAgent, task_id: str, seed: int, group_size: int, *,
                  plan: Sequence[str] | None = None, greedy: bool = False, snapshots: bool = False) -> list[Rollout]:
    """`group_size` episodes of task `task_id` with instance seed `seed` (also the reset
    seed), acted by `policy` (conditioned on `plan` when given); `snapshots`: keep their
    branch points."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, received {group_size}")
    rollouts = rollout_episodes(pool, policy, [(task_id, seed)] * group_size, plan=plan, greedy=greedy,
                                snapshots=snapshots)
    return check_group(rollouts, task_id, seed)


def check_group(rollouts: list[Rollout], task_id: str, seed: int) -> list[Rollout]:
    """`rollouts`, unless every one of them crashed: then `InfraError` (the env is broken on
    this instance, and the group says nothing about the policy)."""
    if all(r.crash is not None for r in rollouts):
        raise InfraError(f"every episode of the group of {task_id!r} (seed {seed}) crashed; the first: "
                         f"{rollouts[0].crash}")
    return rollouts


def rollout_groups(pool: EnvPool, policy: TrainableAgent, draws: Sequence[tuple[str, int]], group_size: int, *,
                   asynchronous: bool = False, greedy: bool = False, snapshots: bool = False
                   ) -> Iterator[tuple[str, int, list[Rollout]]]:
    """A group of `group_size` episodes per (task id, instance seed) of `draws`, each handed
    over as ``(task_id, seed, rollouts)`` once it is done. Lockstep: one group after the other,
    in `draws`' order (each made when asked for, so the pool is idle while the caller works).
    Asynchronous: every episode of every group is in flight at once (as far as the pool's envs
    go), and groups come in the order they finish. A group is never checked for crashes here
    (`check_group`)."""
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1, received {group_size}")
    if not asynchronous:
        for task_id, seed in draws:
            yield task_id, seed, rollout_episodes(pool, policy, [(task_id, seed)] * group_size, greedy=greedy,
                                                  snapshots=snapshots)
        return
    starts = [(task_id, seed, _reset(task_id, seed), None) for task_id, seed in draws for _ in range(group_size)]
    done: dict[int, Rollout] = {}
    with closing(_stream(pool, policy, starts, greedy=greedy, snapshots=snapshots)) as stream:  # closed with this
        for index, rollout in stream:
            done[index] = rollout
            first = index - index % group_size
            if all(i in done for i in range(first, first + group_size)):
                task_id, seed = draws[first // group_size]
                yield task_id, seed, [done.pop(i) for i in range(first, first + group_size)]


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
        wave = [_Episode(first + slot, start, plan, snapshots)
                for slot, start in enumerate(starts[first:first + len(pool)])]
        resets = pool.run([(slot, _guarded(episode.start)) for slot, episode in enumerate(wave)])
        for episode, reset in zip(wave, resets):
            episode.begin(reset)
        live = [(slot, episode) for slot, episode in enumerate(wave) if not episode.done]
        while live:
            acts = _acts(policy, [episode for _, episode in live], plan, greedy)
            results = pool.run([(slot, _guarded(episode.step_with(act)))
                                for (slot, episode), (act, _) in zip(live, acts)])
            for (_, episode), (act, stored), result in zip(live, acts, results):
                episode.record(act, stored, result)
            live = [(slot, episode) for slot, episode in live if not episode.done]
        rollouts.extend(episode.rollout for episode in wave)
    return rollouts


class _Cancelled(Exception):
    """Told to an episode waiting for an action when its stream was given up."""


def _stream(pool: EnvPool, policy: TrainableAgent, starts: Sequence[tuple[str, int, Callable, BranchPoint | None]], *,
            greedy: bool, snapshots: bool) -> Iterator[tuple[int, Rollout]]:
    """The asynchronous mode: ``(index in starts, rollout)`` of each episode as it ends.

    Each env's thread takes the next episode not yet begun and plays it alone; for an action it
    posts a request into `inbox` and waits for the answer. This (the calling) thread answers all
    the requests waiting at once, with one ``generate_many``, so the policy only ever runs here.
    If the caller stops early (or a step of the policy raises), the episodes still running are
    told `_Cancelled` at their next request, and the envs' threads are waited for, so the pool
    is free again when this returns."""
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for index, start in enumerate(starts):
        todo.put(_Episode(index, start, None, snapshots))
    inbox: queue.SimpleQueue = queue.SimpleQueue()

    def ask(episode: _Episode) -> tuple[Act, Any]:
        answer: Future = Future()
        inbox.put(("act", episode, answer))
        return answer.result()

    def work(env: gym.Env) -> None:
        try:
            while True:
                try:
                    episode = todo.get_nowait()
                except queue.Empty:
                    return
                episode.begin(_guarded(episode.start)(env))
                while not episode.done:
                    act, stored = ask(episode)
                    episode.record(act, stored, _guarded(episode.step_with(act))(env))
                inbox.put(("done", episode, None))
        except _Cancelled:
            pass
        except BaseException as exc:  # a bug here, not the env's: the caller raises it
            inbox.put(("failed", exc, None))
        finally:
            inbox.put(("exit", None, None))

    workers = min(len(pool), len(starts))
    for slot in range(workers):
        pool.submit(slot, work)
    remaining, exited = len(starts), 0
    waiting: list[tuple[_Episode, Future]] = []
    try:
        while remaining:
            messages = [inbox.get()]
            while not inbox.empty():
                messages.append(inbox.get())
            exited += sum(kind == "exit" for kind, _, _ in messages)
            waiting = [(episode, answer) for kind, episode, answer in messages if kind == "act"]
            for kind, value, _ in messages:
                if kind == "failed":
                    raise value
            if waiting:
                for (_, answer), pair in zip(waiting, _acts(policy, [e for e, _ in waiting], None, greedy)):
                    answer.set_result(pair)
            waiting = []
            for kind, episode, _ in messages:
                if kind == "done":
                    remaining -= 1
                    yield episode.index, episode.rollout
    finally:  # every episode ended, or the caller stopped early or a step raised: let no env's thread wait
        for _, answer in waiting:
            if not answer.done():
                answer.set_exception(_Cancelled())
        while not todo.empty():
            todo.get()
        while exited < workers:
            kind, _, answer = inbox.get()
            exited += kind == "exit"
            if kind == "act":
                answer.set_exception(_Cancelled())


def _acts(policy: TrainableAgent, episodes: Sequence["_Episode"], plan: tuple[str, ...] | None,
          greedy: bool) -> list[tuple[Act, Any]]:
    """The policy's act for each episode's current observation, in one ``generate_many``, with
    the prompt to store (the plain one when it acted on a plan)."""
    contexts = [episode.context() for episode in episodes]
    prompts = [policy.prompt(episode.obs, context) for episode, context in zip(episodes, contexts)]
    acts = list(policy.generate_many(prompts, greedy=greedy))
    return [(act, prompt if plan is None else policy.prompt(episode.obs, context.without_plan()))
            for episode, context, prompt, act in zip(episodes, contexts, prompts, acts)]


class _Episode:
    """One episode in play, in either mode: its `Rollout` so far, the policy's history, the
    last observation and, with snapshots, the milestones reached."""

    def __init__(self, index: int, start: tuple[str, int, Callable, BranchPoint | None],
                 plan: tuple[str, ...] | None, snapshots: bool):
        task_id, seed, self.start, point = start
        self.index, self.plan, self.snapshots = index, plan, snapshots
        self.rollout = Rollout(task_id=task_id, seed=seed, instruction="", source="branch" if point is not None else
                               "on_policy" if plan is None else "level1", plan=plan, branch=point)
        self.history: list[Act] = list(point.history if point is not None else ())
        self.obs: Any = None
        self.reached = 0
        self.done = False

    def begin(self, reset: Any) -> None:
        """Take the reset's (or restore's) answer, or its crash."""
        if isinstance(reset, _Crash):
            self.rollout.crash, self.done = reset.reason, True
            return
        self.obs, info = reset
        self.rollout.instruction = str(info.get("instruction", ""))

    def context(self) -> Context:
        return Context(self.rollout.instruction, self.plan, tuple(self.history))

    def step_with(self, act: Act) -> Callable[[gym.Env], Any]:
        return _step(act.action, self.reached if self.snapshots else None)

    def record(self, act: Act, stored: Any, result: Any) -> None:
        """Take the env's answer to `act` (or its crash): a `Step`, and a branch point when the
        episode reached a new count of milestones."""
        if isinstance(result, _Crash):
            self.rollout.crash, self.done = result.reason, True
            return
        (obs, reward, terminated, truncated, info), progress = result
        self.rollout.steps.append(Step(parsed_action=info.get("parsed_action"), action_error=info.get("action_error"),
                                       action=act.action, reward=float(reward), info=info, prompt=stored,
                                       text=act.text, token_ids=act.token_ids, logprobs=act.logprobs))
        self.history.append(act)
        self.obs = obs
        count, snapshot = progress if progress is not None else (0, None)
        if snapshot is not None:
            self.reached = count
            self.rollout.branch_points.append(BranchPoint(snapshot, tuple(self.history), len(self.rollout.steps),
                                                          count, self.index))
        self.done = terminated or truncated


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
