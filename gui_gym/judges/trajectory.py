"""The questions a trajectory judge answers, and the keeper that the wrappers use to record
one episode in memory (a `gui_gym.records.Trajectory`).

Two kinds of judge answer PAGE's questions (which criteria are met, how the trajectory splits
into subtasks): an LVLM that reads screenshots and actions (`LVLMJudge`, over any chat
`ChatModel`) and the oracle that reads a task's milestones. The oracle must look at the live env
after every step, since the state at step t is gone at the episode's end; `probe` is that
look, and its result rides along in the trajectory. Screenshots are kept by reference (the
env hands out a fresh array per observation), so recording costs no copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence, runtime_checkable

import gymnasium as gym
import numpy as np

from gui_gym.records import ImageLike, Trajectory, TrajectoryStep


@dataclass(frozen=True)
class Subtask:
    """A span of steps ``start..end`` (inclusive) that works towards `description`."""

    description: str
    start: int
    end: int
    completed: bool

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"expected 0 <= start <= end for a subtask span, received start={self.start} end={self.end}")

    def to_dict(self) -> dict[str, Any]:
        return {"description": self.description, "start": self.start, "end": self.end, "completed": self.completed}


def step_to_subtask(subtasks: Sequence[Subtask], length: int) -> list[int]:
    """For each of `length` steps, the index of the subtask span holding it (-1 if none)."""
    owner = [-1] * length
    for index, subtask in enumerate(subtasks):
        for step in range(subtask.start, min(subtask.end, length - 1) + 1):
            owner[step] = index
    return owner


@runtime_checkable
class TrajectoryJudge(Protocol):
    """Answers PAGE's questions about a trajectory. Raises `JudgeError` when it cannot."""

    identity: str

    def probe(self, env: gym.Env) -> Any:
        """What this judge needs to remember of the live env after reset and each step
        (None for judges that only read screenshots)."""
        ...

    def own_criteria(self, trajectory: Trajectory) -> list[str] | None:
        """The judge's own criteria for this trajectory's task, or None to use a store."""
        ...

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        """One judging pass: for each criterion, whether the trajectory has met it."""
        ...

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        """The trajectory split into ordered subtask spans, each verified completed or not."""
        ...


class TrajectoryKeeper:
    """Records the current episode for a wrapper: reset starts a trajectory, each step adds
    to it, and the judge probes the env each time. Also draws the seeds of judging rounds
    from its own generator (reseeded by ``reset(seed=...)``), so the base env's random stream
    is left alone and seeded runs judge reproducibly."""

    def __init__(self, judge: TrajectoryJudge):
        self.judge = judge
        self.trajectory: Trajectory | None = None
        self._rng = np.random.default_rng()

    def begin(self, env: gym.Env, obs: Any, info: dict[str, Any], seed: int | None) -> Trajectory:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.trajectory = Trajectory(task_id=str(info.get("task_id", "")), instruction=_instruction(obs, info),
                                     start_screenshot=_screenshot(obs), start_probe=self.judge.probe(env))
        return self.trajectory

    def add(self, env: gym.Env, obs: Any, info: dict[str, Any], done: bool) -> Trajectory:
        if self.trajectory is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        self.trajectory.steps.append(TrajectoryStep(parsed_action=info.get("parsed_action"), screenshot=_screenshot(obs),
                                                    action_error=info.get("action_error"), probe=self.judge.probe(env),
                                                    info=info))
        return self.trajectory

    def seeds(self, count: int) -> list[int]:
        return [int(seed) for seed in self._rng.integers(0, 2**31 - 1, size=count)]


def keeper_for(env: gym.Env, judge: TrajectoryJudge) -> tuple[TrajectoryKeeper, bool]:
    """The keeper a wrapper over `env` records with: that of a wrapper under it that records
    for the same judge, else a new one; the flag says it is shared (the inner wrapper begins
    and adds to it, the outer one only reads). PAGE stacks `ProgressReward` over
    `SubtaskAnnotation` with one judge: one record and one probe of the env per step, not two."""
    inner = env
    while isinstance(inner, gym.Wrapper):
        keeper = getattr(inner, "keeper", None)
        if isinstance(keeper, TrajectoryKeeper) and keeper.judge is judge:
            return keeper, True
        inner = inner.env
    return TrajectoryKeeper(judge), False


def _screenshot(obs: Any) -> ImageLike | None:
    if isinstance(obs, dict) and isinstance(obs.get("screenshot"), (np.ndarray, bytes)):
        return obs["screenshot"]
    return None


def _instruction(obs: Any, info: dict[str, Any]) -> str:
    if isinstance(obs, dict) and isinstance(obs.get("instruction"), str):
        return obs["instruction"]
    return str(info.get("instruction", ""))
