"""Agreement of verdicts with ground truth: counts, rates, undefined rates, the printed line."""

from __future__ import annotations

from gui_gym.suites.mind2web.agreement import agreement, agreement_of


def test_agreement_counts_and_rates():
    pairs = [(True, True)] * 3 + [(True, False)] + [(False, True)] * 2 + [(False, False)] * 4
    result = agreement(pairs)
    assert (result.tp, result.fp, result.fn, result.tn, result.n) == (3, 1, 2, 4, 10)
    assert (result.accuracy, result.precision, result.recall) == (0.7, 0.75, 0.6)
    assert result.describe() == "accuracy 70.0%  precision 75.0%  recall 60.0%  (n=10: tp 3, fp 1, fn 2, tn 4)"
    none = agreement([(False, False)])
    assert (none.precision, none.recall) == (None, None) and "precision -  recall -" in none.describe()
    assert agreement([]).to_dict() == {"n": 0, "tp": 0, "fp": 0, "fn": 0, "tn": 0, "accuracy": None,
                                       "precision": None, "recall": None}


def test_judge_errors_and_unknown_truth_are_left_out():
    rows = [{"status": "success", "ground_truth": True}, {"status": "error", "ground_truth": True},
            {"status": "failure", "ground_truth": None}, {"status": "failure", "ground_truth": True}]
    assert agreement_of(rows).to_dict() == {"n": 2, "tp": 1, "fp": 0, "fn": 1, "tn": 0, "accuracy": 0.5,
                                            "precision": 1.0, "recall": 0.5}
