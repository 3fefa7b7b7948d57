"""OSWorld's evaluation rules: FAIL and infeasible, conj "and"/"or", missing results, and
postconfig, with rule getters (no desktop) and a stand-in VM for postconfig."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.gui_gym.suites.osworld.test_osworld_setup import ctx, vm  # noqa: F401 - fixtures

from gui_gym.actions import Action
from gui_gym.suites.osworld.evaluator import evaluate
from gui_gym.suites.osworld.loader import parse_evaluator


def rule(value):
    return {"type": "rule", "rules": value}


def evaluator(**fields):
    return parse_evaluator(fields, Path("t.json"))


MATCH = {"expected": "a"}


@pytest.mark.parametrize("last, score", [(Action.fail(), 1.0), (Action.done(), 0.0), (None, 0.0)])
def test_infeasible_scores_one_only_for_a_final_fail(ctx, last, score):  # noqa: F811
    assert evaluate(ctx, evaluator(func="infeasible"), last).score == score


def test_a_final_fail_on_a_feasible_task_scores_zero(ctx):  # noqa: F811
    ev = evaluator(func="exact_match", result=rule("a"), expected=rule(MATCH))
    assert evaluate(ctx, ev, Action.done()).score == 1.0
    result = evaluate(ctx, ev, Action.fail())
    assert result.score == 0.0 and "infeasible" in result.details[0]["error"]


def test_conj_and_stops_at_the_first_zero_else_averages(ctx):  # noqa: F811
    ev = evaluator(func=["exact_match", "diff_text_file", "exact_match"],
                   result=[rule("b"), rule(None), rule("a")], expected=[rule(MATCH), rule(None), rule(MATCH)])
    result = evaluate(ctx, ev, None)
    assert result.score == 0.0 and len(result.details) == 1
    partial = evaluator(func=["exact_match", "fuzzy_match"], result=[rule("a"), rule("ab")],
                        expected=[rule(MATCH), rule({"expected": "abcd"})])
    assert evaluate(ctx, partial, None).score == pytest.approx((1.0 + 2 / 3) / 2)


def test_conj_or_stops_at_the_first_one_else_takes_the_max(ctx):  # noqa: F811
    ev = evaluator(func=["exact_match", "exact_match", "exact_match"], conj="or",
                   result=[rule("x"), rule("a"), rule("z")], expected=[rule(MATCH)] * 3)
    result = evaluate(ctx, ev, None)
    assert result.score == 1.0 and len(result.details) == 2
    fuzzy = evaluator(func=["fuzzy_match", "exact_match"], conj="or", result=[rule("ab"), rule("x")],
                      expected=[rule({"expected": "abcd"}), rule(MATCH)])
    assert evaluate(ctx, fuzzy, None).score == pytest.approx(2 / 3)


def test_missing_results_score_zero(ctx):  # noqa: F811
    ev = evaluator(func="compare_text_file", result={"type": "vm_file", "path": "/nope.txt", "dest": "n.txt"},
                   expected={"type": "local_file", "path": "g.txt"})
    result = evaluate(ctx, ev, None)
    assert result.score == 0.0 and "found nothing" in result.details[0]["note"]


def test_metric_errors_on_bad_files_score_zero_with_the_reason(vm, ctx):  # noqa: F811
    vm.files["/home/user/bad.docx"] = b"not a document"
    bad = {"type": "vm_file", "path": "/home/user/bad.docx", "dest": "bad.docx"}
    assert evaluate(ctx, evaluator(func="compare_docx_tables", result=bad, expected=bad), None).score == 0.0
    result = evaluate(ctx, evaluator(func="fuzzy_place_math", result=bad, expected=rule({"expected": []})), None)
    assert result.score == 0.0 and "Package not found" in result.details[0]["error"]
    assert len(result.details) == 1
    vm.files["/home/user/bad.xlsx"] = b"not a workbook"
    table = evaluator(func="compare_table", result={"type": "vm_file", "path": "/home/user/bad.xlsx", "dest": "b.xlsx"},
                      options={"rules": [{"type": "sheet_name"}]})
    assert evaluate(ctx, table, None).score == 0.0


def test_postconfig_runs_before_scoring(vm, ctx):  # noqa: F811
    vm.run = lambda command, shell: vm.files.update({"/home/user/saved.txt": b"saved"}) or {
        "status": "success", "output": "", "error": "", "returncode": 0}
    ev = evaluator(func="file_contains", result={"type": "vm_file", "path": "/home/user/saved.txt", "dest": "s.txt"},
                   expected=rule({"expected": ["saved"]}),
                   postconfig=[{"type": "execute", "parameters": {"command": ["save"]}}])
    assert evaluate(ctx, ev, None).score == 1.0
    assert ("/setup/execute", ["save"]) in vm.calls


def test_a_metric_that_raises_fails_the_whole_evaluation(ctx):  # noqa: F811
    """In OSWorld (``desktop_env.py::DesktopEnv.evaluate``) an exception in a metric ends the
    evaluation, so a later metric of an ``or`` cannot rescue the task: it scores 0."""
    ev = evaluator(func=["is_in_list", "exact_match"], conj="or", result=[rule(None), rule("a")],
                   expected=[rule({"expected": "x"}), rule(MATCH)])
    result = evaluate(ctx, ev, None)
    assert result.score == 0.0 and len(result.details) == 1 and "TypeError" in result.details[0]["error"]
