"""Stage 1 of the learning benchmark: the splits chosen from the base's measurement on the
candidates, the cache that keeps a resumed run on the same tasks, and the measurement itself on
TextWeb (sampled success, progress spread, plan-conditioned success)."""

import json

import torch

from gui_gym.benchmarks.learning.tasks import (CandidateStats, Thresholds, cached_selection, choose_splits,
                                       measure_candidates, selection_lines)


def candidate(task_id, success, sd, plan):
    return CandidateStats(task_id, success, 0.5, sd, plan)


CANDIDATES = [candidate("learn", 0.25, 0.3, 0.5), candidate("expert", 0.0, 0.3, 0.3),
              candidate("compound", 0.06, 0.2, 0.3), candidate("flat", 0.0, 0.05, 0.1)]


def test_splits_follow_the_thresholds_expert_only_first():
    splits = choose_splits(CANDIDATES)
    # "compound" has plan success too, but 6 % is not ~0: the plan is not what it lacks
    assert splits == {"learnable": ["learn"], "expert_only": ["expert"], "compound": ["compound"], "unused": ["flat"]}
    assert choose_splits(CANDIDATES, Thresholds(expert_success=0.1))["expert_only"] == ["expert", "compound"]
    lines = selection_lines(CANDIDATES, splits)
    assert lines[3] == "| expert | 0.0 | 0.50 | 0.30 | 30.0 | expert_only |"


def test_the_measurement_is_cached(tmp_path):
    path = tmp_path / "task_selection.json"
    calls = []
    measure = lambda: calls.append(1) or CANDIDATES  # noqa: E731
    first = cached_selection(path, measure)
    again = cached_selection(path, measure)
    assert calls == [1] and first == again and json.loads(path.read_text())["splits"]["learnable"] == ["learn"]


def test_the_base_is_measured_plain_and_on_the_plan():
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.agents.policies.element.policy import DENSE
    from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates

    torch.manual_seed(0)
    templates = make_templates(2, seed=5, hidden=(1,), conventions=CONVENTIONS[8:])
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 10, hidden=0)
    policy.prior.weight.data[0, DENSE.index("plan_next")] = 30.0  # follow the plan's next line, nothing else: plain = chance
    stats = measure_candidates(policy, lambda: TextWebEnv(templates), [t.task_id for t in templates], 2, 2)
    assert [s.task_id for s in stats] == [t.task_id for t in templates]
    for s in stats:
        assert s.plan_success == 1.0 and s.success < 1.0 and 0 <= s.progress_sd <= 0.5
        assert 0 <= s.progress_mean < 1  # plain: chance clicks, which may all miss the first stage
