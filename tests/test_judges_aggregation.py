"""From judging rounds to progress: per-criterion aggregation, success forcing 1, failed
rounds recorded and left out, never guessed."""

from __future__ import annotations

import pytest

from gui_gym.errors import JudgeFormatError
from gui_gym.judges.aggregation import aggregate_rounds, judge_progress
from gui_gym.judges.oracle import OracleJudge, OracleProbe
from gui_gym.records import Trajectory, TrajectoryStep

CRITERIA = ["a", "b", "c", "d"]


class ScriptedMarks(OracleJudge):
    """Marks from a script, one entry per round; an exception entry is raised."""

    identity = "scripted"

    def __init__(self, *rounds):
        self.rounds = list(rounds)
        self.seeds = []

    def mark(self, trajectory, criteria, *, seed=None):
        self.seeds.append(seed)
        entry = self.rounds.pop(0)
        if isinstance(entry, Exception):
            raise entry
        return entry


TRAJ = Trajectory("t", "x", start_probe=OracleProbe((), ()), steps=[TrajectoryStep({})])


def test_mean_and_majority_per_criterion():
    rounds = [[True, True, False, False], [True, False, False, True], [True, False, True, False], [True, True, False, False]]
    assert aggregate_rounds(rounds, "mean") == [1.0, 0.5, 0.25, 0.25]
    assert aggregate_rounds(rounds, "majority") == [1.0, 0.0, 0.0, 0.0]  # a 2-2 tie is not a majority
    assert aggregate_rounds([[True]], "majority") == [1.0]


def test_aggregation_refuses_bad_input():
    with pytest.raises(ValueError, match=r"aggregate must be one of \('mean', 'majority'\), received 'median'"):
        aggregate_rounds([[True]], "median")
    with pytest.raises(ValueError, match="expected at least one round of marks, received none"):
        aggregate_rounds([], "mean")
    with pytest.raises(ValueError, match=r"received lengths \[2, 1\]"):
        aggregate_rounds([[True, False], [True]], "mean")


def test_progress_is_the_mean_over_criteria_of_the_round_aggregates():
    judge = ScriptedMarks([True, True, False, False], [True, False, False, False], [True, True, True, False])
    estimate = judge_progress(judge, TRAJ, CRITERIA, seeds=[4, 5, 6], aggregate="mean")
    assert estimate.per_criterion == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    assert estimate.progress == pytest.approx(0.5)
    assert judge.seeds == [4, 5, 6] and estimate.errors == []
    judge = ScriptedMarks([True, True, False, False], [True, False, False, False], [True, True, True, False])
    assert judge_progress(judge, TRAJ, CRITERIA, seeds=[1, 2, 3], aggregate="majority").progress == 0.5


def test_success_forces_one_without_asking_and_no_criteria_is_binary():
    judge = ScriptedMarks()
    assert judge_progress(judge, TRAJ, CRITERIA, seeds=[1, 2], success=True).progress == 1.0
    assert judge_progress(judge, TRAJ, [], seeds=[1, 2]).progress == 0.0
    assert judge.seeds == []


def test_failed_rounds_are_recorded_and_left_out():
    judge = ScriptedMarks(JudgeFormatError("off-format"), [True, True, True, True], [True, False])
    estimate = judge_progress(judge, TRAJ, CRITERIA, seeds=[1, 2, 3])
    assert estimate.progress == 1.0 and estimate.rounds == [[True, True, True, True]]
    assert estimate.errors == ["off-format", "judge 'scripted' marked 2 criteria, expected 4"]


def test_when_every_round_fails_progress_is_unknown_not_zero_or_one():
    judge = ScriptedMarks(JudgeFormatError("no JSON"), JudgeFormatError("no JSON again"))
    estimate = judge_progress(judge, TRAJ, CRITERIA, seeds=[1, 2])
    assert estimate.progress is None and estimate.per_criterion == [] and len(estimate.errors) == 2
