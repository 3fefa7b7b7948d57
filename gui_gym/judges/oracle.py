"""The oracle judge: PAGE's questions answered exactly, for free, from a task's milestones.

Suites that know their tasks (LocalWeb, the demo) give each task ordered `Milestone`s, each a
check over the live backend. The oracle probes every milestone after reset and after every
step, so at the episode's end it knows the first step at which each one held. Its criteria
are the milestone descriptions; a criterion is met once its milestone has held at some step
and every earlier milestone has too (milestones are ordered: progress counts them in order);
its subtask spans end where the next milestone first holds. It needs the env itself
(``env.unwrapped.task`` and ``.backend``), so it judges live episodes, not results folders.

`NoisyOracleJudge` flips each mark with a fixed probability: a stand-in for an imperfect
LVLM judge with known noise, to measure what multi-round aggregation buys.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from gui_gym.errors import JudgeError
from gui_gym.judges.trajectory import Subtask
from gui_gym.models.chat import SharedOnCopy
from gui_gym.records import Trajectory
from gui_gym.suites.base import Milestone

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OracleProbe:
    """The milestones of the episode's task and which of them hold right now; `error` when
    a check could not be made (the backend died)."""

    descriptions: tuple[str, ...]
    met: tuple[bool, ...]
    error: str | None = None


class OracleJudge(SharedOnCopy):
    """Exact progress and subtasks from milestones.

    >>> from gui_gym.judges import OracleJudge
    >>> OracleJudge().identity
    'oracle'
    """

    identity = "oracle"

    def probe(self, env: gym.Env) -> OracleProbe:
        base = env.unwrapped
        task, backend = getattr(base, "task", None), getattr(base, "backend", None)
        if task is None or backend is None or not hasattr(task, "milestones"):
            raise TypeError("OracleJudge reads milestones from a GUI env: expected env.unwrapped.task (with "
                            f"milestones()) and env.unwrapped.backend, received {type(base).__name__}")
        milestones: list[Milestone] = list(task.milestones())
        descriptions = tuple(m.description for m in milestones)
        try:
            return OracleProbe(descriptions, tuple(bool(m.check(backend)) for m in milestones))
        except Exception as exc:  # a dead backend must not take the episode down; marking reports it
            logger.warning("the oracle could not check the milestones of %s: %s: %s", getattr(task, "task_id", "?"),
                           type(exc).__name__, exc)
            return OracleProbe(descriptions, (False,) * len(milestones), f"{type(exc).__name__}: {exc}")

    def own_criteria(self, trajectory: Trajectory) -> list[str]:
        return list(_probes(trajectory)[0].descriptions)

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        own = self.own_criteria(trajectory)
        if list(criteria) != own:
            raise JudgeError(f"the oracle judge answers about its task's own milestones {own}, received criteria "
                             f"{list(criteria)}")
        marks, in_order = [], True
        for first in reached_at(trajectory):  # in order: one reached after a missed one does not count
            in_order = in_order and first is not None
            marks.append(in_order)
        return marks

    def segment(self, trajectory: Trajectory, *, seed: int | None = None) -> list[Subtask]:
        """Spans end where the next milestone first holds. A milestone that first holds no
        later than the previous span's end joins that span (or, at the start, is not the
        agent's work and gets none); the first milestone never reached opens the last span,
        incomplete; steps after the last milestone extend the last span. A task without
        milestones is one span, the instruction, completed on success."""
        probes = _probes(trajectory)
        last = len(trajectory) - 1
        spans: list[list[Any]] = []  # [description, start, end, completed]
        start = 0
        all_reached = True
        for description, first in zip(probes[0].descriptions, reached_at(trajectory)):
            if first is None:
                all_reached = False
                if start <= last:
                    spans.append([description, start, last, False])
                break
            if first < start:
                if spans:
                    spans[-1][0] += f"; {description}"
                continue
            spans.append([description, start, first, True])
            start = first + 1
        if all_reached and start <= last:
            if spans:
                spans[-1][2] = last
            else:
                spans.append([trajectory.instruction, 0, last, bool(trajectory.success)])
        return [Subtask(*span) for span in spans]


class NoisyOracleJudge(OracleJudge):
    """The oracle with each criterion's mark flipped with probability `flip_prob`, drawn
    from (`seed`, the round's seed): rounds with different seeds are independent."""

    def __init__(self, flip_prob: float, seed: int = 0):
        if not 0.0 <= flip_prob <= 1.0:
            raise ValueError(f"flip_prob must be in [0, 1], received {flip_prob}")
        self.flip_prob = flip_prob
        self.seed = seed
        self.identity = f"oracle-noisy:p={flip_prob:g}:seed={seed}"

    def mark(self, trajectory: Trajectory, criteria: Sequence[str], *, seed: int | None = None) -> list[bool]:
        marks = super().mark(trajectory, criteria)
        rng = np.random.default_rng([self.seed, 0 if seed is None else seed, len(trajectory)])
        flips = rng.random(len(marks)) < self.flip_prob
        return [mark != bool(flip) for mark, flip in zip(marks, flips)]


def reached_at(trajectory: Trajectory) -> list[int | None]:
    """Per milestone, the first step after which it held (-1: already at the start; None:
    never)."""
    probes = _probes(trajectory)
    first: list[int | None] = [None] * len(probes[0].descriptions)
    for step, probe in enumerate(probes, start=-1):
        for index, met in enumerate(probe.met):
            if met and first[index] is None:
                first[index] = step
    return first


def _probes(trajectory: Trajectory) -> list[OracleProbe]:
    probes = [trajectory.start_probe, *(step.probe for step in trajectory.steps)]
    if not all(isinstance(probe, OracleProbe) for probe in probes):
        raise JudgeError("the oracle judge needs a trajectory it probed live (through ProgressReward or "
                         "SubtaskAnnotation on a GUI env); this one carries no milestone probes")
    failed = next((probe.error for probe in probes if probe.error), None)
    if failed:
        raise JudgeError(f"a milestone check failed during the episode, so the oracle cannot judge it: {failed}")
    return probes
