"""The oracle judge: milestone probes on a live env, marks, and the span rules of its
segmentation; the noisy oracle's flips."""

from __future__ import annotations

from types import SimpleNamespace

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the ids
from gui_gym.errors import JudgeError
from gui_gym.judges.oracle import NoisyOracleJudge, OracleJudge, OracleProbe, reached_at
from gui_gym.judges.trajectory import Subtask
from gui_gym.records import Trajectory, TrajectoryStep
from gui_gym.suites.base import Milestone

NAMES = ("open the form", "type the name", "send the form")


def trajectory(*states: str, success: bool = False, names=NAMES) -> Trajectory:
    """A trajectory whose probes are given as strings of 0/1, one per milestone: the first
    is the start, then one per step."""
    probes = [OracleProbe(tuple(names), tuple(c == "1" for c in state)) for state in states]
    steps = [TrajectoryStep(parsed_action={"kind": "click"}, probe=probe) for probe in probes[1:]]
    if steps:
        steps[-1].info = {"success": success}
    return Trajectory("t", "Fill the form.", start_probe=probes[0], steps=steps)


def spans(*states: str, **kwargs) -> list[tuple]:
    return [(s.description, s.start, s.end, s.completed) for s in OracleJudge().segment(trajectory(*states, **kwargs))]


def test_probe_reads_the_live_milestones_of_the_episode_task():
    env = gym.make("GUI/Demo-v0")
    judge = OracleJudge()
    try:
        env.reset(seed=0, options={"task_id": "demo.fill-form"})
        assert judge.probe(env) == OracleProbe(("the form was submitted", "the submission is right"), (False, False))
        while True:
            *_, terminated, truncated, _ = env.step(env.unwrapped.oracle_action())
            if terminated or truncated:
                break
        assert judge.probe(env).met == (True, True)
        env.reset(seed=0, options={"task_id": "demo.read-code"})
        assert judge.probe(env) == OracleProbe((), ())
    finally:
        env.close()


def test_probe_refuses_an_env_without_tasks():
    env = gym.make("CartPole-v1")
    with pytest.raises(TypeError, match=r"expected env.unwrapped.task \(with milestones\(\)\) and env.unwrapped.backend, "
                                        "received CartPoleEnv"):
        OracleJudge().probe(env)
    env.close()


def test_a_failed_milestone_check_is_a_judge_error_at_marking_time():
    def dead(backend):
        raise ConnectionError("browser gone")

    task = SimpleNamespace(milestones=lambda: [Milestone("sent", dead)])
    probe = OracleJudge().probe(SimpleNamespace(unwrapped=SimpleNamespace(task=task, backend=object())))
    assert probe.error == "ConnectionError: browser gone"
    broken = Trajectory("t", "x", start_probe=OracleProbe(("sent",), (False,)), steps=[TrajectoryStep({}, probe=probe)])
    with pytest.raises(JudgeError, match="a milestone check failed during the episode.*browser gone"):
        OracleJudge().mark(broken, ["sent"])


def test_marks_say_which_milestones_were_ever_reached():
    judge = OracleJudge()
    seen = trajectory("000", "100", "110", "100")  # the name was typed, then erased: it was reached
    assert judge.own_criteria(seen) == list(NAMES)
    assert judge.mark(seen, NAMES) == [True, True, False]
    assert reached_at(trajectory("100", "110", "110")) == [-1, 0, None]
    # in order: the form sent without the name ever typed counts the opening only
    assert judge.mark(trajectory("000", "100", "101"), NAMES) == [True, False, False]


def test_marks_refuse_foreign_criteria_and_unprobed_trajectories():
    with pytest.raises(JudgeError, match="answers about its task's own milestones"):
        OracleJudge().mark(trajectory("000", "100"), ["something else"])
    with pytest.raises(JudgeError, match="needs a trajectory it probed live"):
        OracleJudge().mark(Trajectory("t", "x", steps=[TrajectoryStep({})]), NAMES)


def test_spans_end_where_the_next_milestone_first_holds():
    assert spans("000", "000", "100", "100", "110", "111", success=True) == [
        ("open the form", 0, 1, True), ("type the name", 2, 3, True), ("send the form", 4, 4, True)]


def test_steps_after_the_last_milestone_extend_the_last_span():
    assert spans("000", "100", "110", "111", "111", "111") == [
        ("open the form", 0, 0, True), ("type the name", 1, 1, True), ("send the form", 2, 4, True)]


def test_the_first_unreached_milestone_takes_the_rest_incomplete():
    assert spans("000", "100", "100", "100") == [("open the form", 0, 0, True), ("type the name", 1, 2, False)]
    assert spans("000", "000") == [("open the form", 0, 0, False)]


def test_milestones_reached_together_share_a_span_and_those_at_the_start_get_none():
    assert spans("000", "000", "111") == [("open the form; type the name; send the form", 0, 1, True)]
    assert spans("100", "100", "110", "111") == [("type the name", 0, 1, True), ("send the form", 2, 2, True)]


def test_a_task_without_milestones_is_one_span_completed_on_success():
    assert spans("", "", "", success=True, names=()) == [("Fill the form.", 0, 1, True)]
    assert spans("", "", names=()) == [("Fill the form.", 0, 0, False)]


def test_segments_are_subtasks_with_valid_spans():
    (subtask,) = OracleJudge().segment(trajectory("000", "000"))
    assert isinstance(subtask, Subtask) and subtask.to_dict() == {
        "description": "open the form", "start": 0, "end": 0, "completed": False}
    with pytest.raises(ValueError, match="expected 0 <= start <= end for a subtask span, received start=2 end=1"):
        Subtask("x", 2, 1, True)


def test_noisy_oracle_flips_at_its_rate_reproducibly_per_seed():
    seen = trajectory("000", "100", "110", "111")
    judge = NoisyOracleJudge(0.25, seed=3)
    rounds = [judge.mark(seen, NAMES, seed=s) for s in range(2000)]
    flipped = sum(not m for marks in rounds for m in marks) / (3 * len(rounds))
    assert 0.22 < flipped < 0.28
    assert judge.mark(seen, NAMES, seed=5) == rounds[5]
    assert len({tuple(r) for r in rounds}) > 4
    assert NoisyOracleJudge(0.0).mark(seen, NAMES, seed=1) == [True, True, True]
    with pytest.raises(ValueError, match=r"flip_prob must be in \[0, 1\], received 1.5"):
        NoisyOracleJudge(1.5)
