"""From judging rounds to one progress value (docs/algorithms.md, PAGE definition 2).

Each of `rounds` independent passes marks every criterion met or not; per criterion the
rounds are aggregated (`mean`: the share of rounds that said met; `majority`: 1 when more
than half did, else 0, so a tie is not met); progress is the mean over criteria. The env's
own success forces progress 1 (and then no judge is asked). A task with no criteria has
binary progress: 1 on success, else 0. A round whose judge failed (unreachable, or
off-format after its retries) is left out and its error recorded; if every round failed,
progress is unknown (None), never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from gui_gym.errors import JudgeError
from gui_gym.judges.trajectory import TrajectoryJudge
from gui_gym.records import Trajectory

AGGREGATES = ("mean", "majority")


def aggregate_rounds(marks: Sequence[Sequence[bool]], how: str = "mean") -> list[float]:
    """Per criterion, the rounds' marks combined into a value in [0, 1].

    >>> aggregate_rounds([[True, False], [True, True], [False, False]], "mean")
    [0.6666666666666666, 0.3333333333333333]
    >>> aggregate_rounds([[True, False], [True, True], [False, False]], "majority")
    [1.0, 0.0]
    """
    if how not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, received {how!r}")
    if not marks:
        raise ValueError("expected at least one round of marks, received none")
    count = len(marks[0])
    if any(len(round_marks) != count for round_marks in marks):
        raise ValueError(f"expected every round to mark the same {count} criteria, received lengths "
                         f"{[len(m) for m in marks]}")
    shares = [sum(bool(m[i]) for m in marks) / len(marks) for i in range(count)]
    if how == "majority":
        return [1.0 if share > 0.5 else 0.0 for share in shares]
    return shares


@dataclass
class ProgressEstimate:
    """One progress judgement: the value (None when unknown), the per-criterion aggregates,
    each successful round's marks, and each failed round's error."""

    progress: float | None
    per_criterion: list[float] = field(default_factory=list)
    rounds: list[list[bool]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def judge_progress(judge: TrajectoryJudge, trajectory: Trajectory, criteria: Sequence[str], *,
                   seeds: Sequence[int], aggregate: str = "mean", success: bool = False) -> ProgressEstimate:
    """Progress of `trajectory` against `criteria`: one judging round per seed."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, received {aggregate!r}")
    if success:
        return ProgressEstimate(1.0)
    if not criteria:
        return ProgressEstimate(0.0)
    estimate = ProgressEstimate(None)
    for seed in seeds:
        try:
            marks = [bool(m) for m in judge.mark(trajectory, criteria, seed=seed)]
        except JudgeError as exc:
            estimate.errors.append(str(exc))
            continue
        if len(marks) != len(criteria):
            estimate.errors.append(f"judge {judge.identity!r} marked {len(marks)} criteria, expected {len(criteria)}")
            continue
        estimate.rounds.append(marks)
    if estimate.rounds:
        estimate.per_criterion = aggregate_rounds(estimate.rounds, aggregate)
        estimate.progress = sum(estimate.per_criterion) / len(estimate.per_criterion)
    return estimate
