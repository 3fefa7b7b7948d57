"""Subtask annotation: which steps of an episode worked towards which subtask, and whether
each subtask got done (PAGE's intra-rollout signal, docs/algorithms.md, PAGE definition 4).

At the episode's end the annotator segments the trajectory into consecutive spans and
verifies each; a trainer gives every step of a completed span credit and every step of an
incomplete one blame. The oracle annotator (the default) cuts where the task's next
milestone first holds; an LVLM annotator reads screenshots and actions.

Info added at the episode's end (the base env's keys are untouched):
``subtasks`` = ``[{description, start, end, completed}]`` (step indices, 0-based, inclusive),
``subtask_of_step`` = the span index of every step (-1 for a step in no span), and
``subtask_error``: None, or why the annotator could not answer, in which case the other two
are None: an annotation that failed is never read as a completed subtask.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from gui_gym.errors import JudgeError
from gui_gym.judges.lvlm import as_trajectory_judge
from gui_gym.judges.oracle import OracleJudge
from gui_gym.judges.trajectory import TrajectoryJudge, TrajectoryKeeper, step_to_subtask
from gui_gym.models.chat import ChatModel
from gui_gym.records import Trajectory


class SubtaskAnnotation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Segment and verify each finished episode.

    Args:
        env: any GUI/* env (or a wrapper of one).
        annotator: a trajectory judge (default `OracleJudge()`, which needs tasks with
            milestones) or a `ChatModel` (asked via `LVLMJudge`).

    >>> import gymnasium as gym, gui_gym
    >>> env = SubtaskAnnotation(gym.make("GUI/Demo-v0"))
    >>> obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
    >>> terminated = truncated = False
    >>> while not (terminated or truncated):
    ...     obs, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
    >>> [(s["description"], s["completed"]) for s in info["subtasks"]]
    [('the button was pressed', True)]
    >>> env.close()
    """

    def __init__(self, env: gym.Env, annotator: ChatModel | TrajectoryJudge | None = None):
        gym.utils.RecordConstructorArgs.__init__(self, annotator=annotator)
        annotator = as_trajectory_judge(annotator if annotator is not None else OracleJudge())
        gym.Wrapper.__init__(self, env)
        self.annotator = annotator
        self.keeper = TrajectoryKeeper(annotator)

    @property
    def trajectory(self) -> Trajectory | None:
        """The current (or just finished) episode as the annotator saw it."""
        return self.keeper.trajectory

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.keeper.begin(self.env, obs, info, seed)
        return obs, info

    def after_restore(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Take up an episode restored from a snapshot: the subtasks annotated at its end are
        those of the steps after the restore."""
        self.keeper.begin(self.env, obs, info, None)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        done = terminated or truncated
        trajectory = self.keeper.add(self.env, obs, info, done)
        if done:
            try:
                subtasks = self.annotator.segment(trajectory, seed=self.keeper.seeds(1)[0])
            except JudgeError as exc:
                info.update(subtasks=None, subtask_of_step=None, subtask_error=str(exc))
            else:
                info.update(subtasks=[s.to_dict() for s in subtasks],
                            subtask_of_step=step_to_subtask(subtasks, len(trajectory)), subtask_error=None)
        return obs, reward, terminated, truncated, info
