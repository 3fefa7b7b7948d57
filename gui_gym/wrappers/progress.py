"""PAGE's progress reward: how far a rollout got, not only whether it succeeded.

A binary outcome gives GRPO no signal in a group where every rollout fails; progress does.
The wrapper keeps the episode's trajectory (screenshots, parsed actions, the judge's probes)
and asks the judge, in `rounds` independent passes, which of the task's criteria the
trajectory has met; the passes are aggregated per criterion, and progress is the mean over
criteria, in [0, 1]; the env's own success forces 1 (docs/algorithms.md, PAGE definition 2).

Criteria come from the judge itself (the oracle's milestones) or from a `CriteriaStore`
built by ``gui-bench criteria``. A judge failure (unreachable, or off-format after its
retries) is recorded in ``info["progress_errors"]`` and drops that round; if every round
failed, ``info["progress"]`` is None and the env's own reward is kept: a judge error is
never a reward.

Info added (the base env's keys are untouched): ``progress`` (float or None),
``progress_per_criterion``, ``progress_errors``, ``env_reward`` (the wrapped reward) -- at
the episode's end with ``mode="final"``, at every step with ``mode="delta"``.
"""

from __future__ import annotations

import os
from typing import Any, SupportsFloat

import gymnasium as gym

from gui_gym.errors import MissingResourceError
from gui_gym.judges.aggregation import AGGREGATES, judge_progress
from gui_gym.judges.criteria_store import CriteriaStore
from gui_gym.judges.lvlm import as_trajectory_judge
from gui_gym.judges.trajectory import TrajectoryJudge, keeper_for
from gui_gym.models.chat import ChatModel
from gui_gym.records import Trajectory

MODES = ("final", "delta")


class ProgressReward(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Progress as reward: ``mode="final"`` replaces the episode's last reward by the final
    progress; ``mode="delta"`` judges after every step and rewards the change in progress
    (progress before the first step counts as 0, so an episode's rewards sum to its final
    progress).

    Args:
        env: any GUI/* env (or a wrapper of one).
        judge: `OracleJudge()`, any trajectory judge, or a `ChatModel` (asked via `LVLMJudge`).
        criteria_store: where a chat judge's criteria live (a folder or a `CriteriaStore`);
            not needed by judges with their own criteria (the oracle).
        rounds: independent judging passes per judgement.
        aggregate: per-criterion aggregation over rounds, "mean" or "majority".
        mode: "final" or "delta".

    >>> import gymnasium as gym, gui_gym
    >>> from gui_gym.judges import OracleJudge
    >>> env = ProgressReward(gym.make("GUI/Demo-v0"), OracleJudge())
    >>> obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
    >>> obs, reward, terminated, truncated, info = env.step(gui_gym.Action.done())  # gave up at once
    >>> terminated, reward, info["progress"]
    (True, 0.0, 0.0)
    >>> env.close()
    """

    def __init__(self, env: gym.Env, judge: ChatModel | TrajectoryJudge,
                 criteria_store: CriteriaStore | str | os.PathLike[str] | None = None, rounds: int = 3,
                 aggregate: str = "mean", mode: str = "final"):
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"rounds must be an integer >= 1, received {rounds!r}")
        if aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {AGGREGATES}, received {aggregate!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, received {mode!r}")
        if criteria_store is not None and not isinstance(criteria_store, CriteriaStore):
            criteria_store = CriteriaStore(criteria_store)
        gym.utils.RecordConstructorArgs.__init__(self, judge=judge, criteria_store=criteria_store, rounds=rounds,
                                                 aggregate=aggregate, mode=mode)
        gym.Wrapper.__init__(self, env)
        self.judge = as_trajectory_judge(judge)
        self.criteria_store = criteria_store
        self.rounds = rounds
        self.aggregate = aggregate
        self.mode = mode
        self.criteria: list[str] = []
        self.keeper, self._shared_keeper = keeper_for(env, self.judge)  # SubtaskAnnotation's, under PAGE
        self._progress = 0.0

    @property
    def trajectory(self) -> Trajectory | None:
        """The current (or just finished) episode as the judge saw it."""
        return self.keeper.trajectory

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._begin(obs, info, seed)
        self._progress = 0.0
        return obs, info

    def after_restore(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Take up an episode restored from a snapshot (`gui_gym.snapshots.restore_episode`):
        the judged trajectory starts at the restored state, and the dense reward counts from
        the progress judged there."""
        trajectory = self._begin(obs, info, None)
        estimate = judge_progress(self.judge, trajectory, self.criteria, seeds=self.keeper.seeds(self.rounds),
                                  aggregate=self.aggregate)
        self._progress = estimate.progress or 0.0
        info.update(progress=estimate.progress)
        return obs, info

    def _begin(self, obs: Any, info: dict[str, Any], seed: int | None) -> Trajectory:
        trajectory = self.keeper.trajectory if self._shared_keeper else self.keeper.begin(self.env, obs, info, seed)
        criteria = self.judge.own_criteria(trajectory)
        if criteria is None:
            criteria = self.criteria_store.get(trajectory.task_id) if self.criteria_store is not None else None
            if criteria is None:
                where = f"the criteria store {self.criteria_store.directory}" if self.criteria_store else "no criteria store"
                raise MissingResourceError(f"no progress criteria for task {trajectory.task_id!r} in {where}; build them "
                                           "from successful trajectories with `gui-bench criteria RESULTS_DIR --store "
                                           "STORE` and pass criteria_store=STORE")
        self.criteria = list(criteria)
        return trajectory

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        done = terminated or truncated
        trajectory = self.keeper.trajectory if self._shared_keeper else self.keeper.add(self.env, obs, info, done)
        if not done and self.mode == "final":
            return obs, reward, terminated, truncated, info
        estimate = judge_progress(self.judge, trajectory, self.criteria, seeds=self.keeper.seeds(self.rounds),
                                  aggregate=self.aggregate, success=done and bool(info.get("success", False)))
        info.update(progress=estimate.progress, progress_per_criterion=estimate.per_criterion,
                    progress_errors=estimate.errors, env_reward=reward)
        if self.mode == "final":
            new_reward = reward if estimate.progress is None else estimate.progress
        elif estimate.progress is None:
            new_reward = 0.0
        else:
            new_reward = estimate.progress - self._progress
            self._progress = estimate.progress
        return obs, float(new_reward), terminated, truncated, info
