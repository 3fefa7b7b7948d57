"""Measuring the learning benchmark's judges: agreement with the truth per kind of criterion (by
hand), episodes recorded with the truth beside them, the judges' calls counted, and round
draws that differ between episodes of one group."""

from types import SimpleNamespace

import pytest

from gui_gym.actions import Action
from gui_gym.benchmarks.learning.judging import (CountedJudge, ObservedEpisode, agreement, criterion_kinds, pooled,
                                                 round_draws)
from gui_gym.benchmarks.learning.reader import ReaderJudge
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
from gui_gym.records import Trajectory, TrajectoryStep

LATE = make_templates(1, seed=250, hidden=(1,), conventions=CONVENTIONS[8:], deferred=1)[0]


def rollout(task, truth, judged, marks, success=False, revealed=False):
    info = {"true_progress": truth, "progress": judged, "progress_per_criterion": marks, "success": success,
            "revealed": revealed}
    return SimpleNamespace(final_info=info, success=success, task_id=task)


def test_agreement_is_per_criterion_accuracy_error_and_correlation_and_per_kind_counts():
    kinds = {"t": ["named", "hidden", "named", "save"]}
    rollouts = [rollout("t", 0.5, 0.5, [1.0, 1.0, 0.0, 0.0]), rollout("t", 0.25, 0.5, [1.0, 0.67, 0.0, 0.0]),
                rollout("t", 0.0, 0.0, [0.0, 0.33, 0.0, 0.0]), rollout("t", 1.0, 1.0, [], success=True)]
    out = agreement(rollouts, kinds)
    assert out["episodes"] == 3  # the success is never judged
    assert out["criterion_accuracy"] == pytest.approx(11 / 12)  # the second rollout's hidden mark is wrong
    assert out["progress_mae"] == pytest.approx(0.25 / 3)
    assert out["progress_correlation"] == pytest.approx(0.866, abs=1e-3)
    assert out["per_kind"]["hidden"] == {"criteria": 3, "right": 2, "false_credit": 1, "false_blame": 0, "reached": 1}
    assert out["per_kind"]["named"] == {"criteria": 6, "right": 6, "false_credit": 0, "false_blame": 0, "reached": 2}
    both = pooled([out, out])
    assert both["episodes"] == 6 and both["per_kind"]["hidden"]["criteria"] == 6
    assert both["criterion_accuracy"] == out["criterion_accuracy"] and both["progress_mae"] == out["progress_mae"]


def test_on_a_late_task_the_deferred_stage_and_those_after_it_are_apart_by_whether_the_save_showed_the_mistake():
    kinds = criterion_kinds(LATE)
    deferred = kinds.index("deferred")
    assert kinds[:deferred] == ["before"] * deferred and kinds[deferred + 1:] == ["after"] * (len(kinds) - deferred - 1)
    assert criterion_kinds(make_templates(1, seed=200, hidden=(1,))[0])[-1] == "save"
    count = len(kinds)
    credited = [1.0] * count  # a judge misled by the pages: everything it saw looked done
    shown = rollout(LATE.task_id, deferred / count, 1.0, credited, revealed=True)
    hidden = rollout(LATE.task_id, deferred / count, 1.0, credited)
    per_kind = agreement([shown, hidden], {LATE.task_id: kinds})["per_kind"]
    assert per_kind["deferred, rejection shown"]["false_credit"] == per_kind["deferred, rejection not shown"]["false_credit"] == 1
    assert per_kind["before"] == {"criteria": 2 * deferred, "right": 2 * deferred, "false_credit": 0, "false_blame": 0,
                                  "reached": 2 * deferred}


def test_an_observed_episode_carries_the_truth_and_whether_the_save_rejected_a_hidden_mistake():
    env = ObservedEpisode(TextWebEnv([LATE]), ReaderJudge())
    env.reset(options={"task_id": LATE.task_id, "instance_seed": 0})
    deferred = next(k for k, s in enumerate(LATE.stages) if s.deferred)
    info = {}
    for k in range(len(LATE.stages) + 1):
        action = env.unwrapped.oracle_action()
        if k == deferred:  # the wrong element: the next page opens all the same
            action = Action.click_element((action.element + 1) % LATE.stages[deferred].options)
        *_, info = env.step(action)
    assert env.unwrapped.observation()["url"].endswith("/rejected") and env.revealed
    *_, info = env.step(Action.done())
    assert info["revealed"] and info["true_progress"] == pytest.approx(deferred / (len(LATE.stages) + 1))
    assert len(info["observed_trajectory"].steps) == len(LATE.stages) + 2


def test_a_counted_judge_counts_marks_and_spans_and_passes_the_rest_through():
    inner = SimpleNamespace(identity="j", probe=lambda env: "page", own_criteria=lambda t: ["c"],
                            mark=lambda t, c, seed=None: [True], segment=lambda t, seed=None: [])
    judge = CountedJudge(inner)
    assert judge.probe(None) == "page" and judge.own_criteria(None) == ["c"] and judge.calls == 0
    judge.mark(None, ["c"], seed=1)
    judge.mark(None, ["c"], seed=2)
    judge.segment(None, seed=3)
    assert judge.calls == 3 and judge.identity == "j"


def test_round_draws_differ_between_episodes_and_repeat_for_one_episode():
    def trajectory(*elements):
        return Trajectory("t", "i", steps=[TrajectoryStep(parsed_action={"kind": "click", "element": e}) for e in elements])

    a, b = trajectory(0, 1), trajectory(1, 0)  # same length, same round seed: a group's two rollouts
    assert list(round_draws(0, 7, a, 4)) == list(round_draws(0, 7, trajectory(0, 1), 4))
    assert list(round_draws(0, 7, a, 4)) != list(round_draws(0, 7, b, 4))
    assert list(round_draws(0, 7, a, 4)) != list(round_draws(0, 8, a, 4))
