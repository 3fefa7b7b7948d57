"""OSWorld's evaluation rules: FAIL and infeasible, conj "and"/"or", missing results, and
postconfig, with rule getters (no desktop) and a stand-in VM for postconfig; and the bounds on
the evaluator's work on agent-made files, attacked with files that explode when parsed."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from tests.gui_gym.suites.osworld.test_osworld_setup import ctx, vm  # noqa: F401 - fixtures

from gui_gym.actions import Action
from gui_gym.runtime.bounded_call import Bounds
from gui_gym.suites.osworld.context import EvaluationLimits
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


def workbook(rows: int, columns: int) -> bytes:
    """A valid xlsx of `rows` x `columns` numbers, written as XML: it compresses to a few
    hundred KiB and takes GiBs to load."""
    cells = "".join(f'<c t="n"><v>{c}</v></c>' for c in range(columns))
    sheet = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
             'spreadsheetml/2006/main"><sheetData>' + "".join(f'<row r="{r}">{cells}</row>' for r in range(1, rows + 1))
             + "</sheetData></worksheet>")
    parts = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
        'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
        '2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
        'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
        'org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": sheet,
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return out.getvalue()


def peak_kib() -> int:
    """This process's peak resident memory since the last `restart_peak`."""
    return int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0])


def restart_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


XLSX_BOUNDS = EvaluationLimits(work=Bounds(memory_bytes=512 << 20, cpu_s=10, wall_s=600))
"""The workbook runs out of CPU seconds first (80 s of CPU and +470 MiB in the host before);
CPU seconds, unlike wall-clock ones, do not depend on the machine's load."""
TEXT_BOUNDS = EvaluationLimits(work=Bounds(memory_bytes=512 << 20, cpu_s=600, wall_s=600))
"""The text file runs out of memory first."""


@pytest.mark.parametrize("func, path, content, limits, bound", [
    ("compare_table", "/home/user/report.xlsx", lambda: workbook(100_000, 10), XLSX_BOUNDS, "10 CPU-second bound"),
    ("diff_text_file", "/home/user/log.txt", lambda: b"ab\n" * 12_000_000, TEXT_BOUNDS, "512 MiB memory bound"),
])
def test_an_agents_file_that_explodes_in_parsing_scores_zero_with_a_warning_and_the_host_stays_small(
        vm, ctx, func, path, content, limits, bound):  # noqa: F811
    """The attack: a small file that takes GiBs or minutes to parse (a 302 KiB workbook of 100k
    rows, 36 MB of short lines compared line by line). Both were parsed in the env's own
    process: +470 MiB and 80 CPU-seconds, +1 GiB."""
    vm.files[path] = data = content()
    (ctx.spec.folder / "gold").write_bytes(workbook(2, 2) if func == "compare_table" else b"12:00:00 gold\n")
    ctx.limits = limits
    ev = evaluator(func=func, result={"type": "vm_file", "path": path, "dest": Path(path).name},
                   expected={"type": "local_file", "path": "gold", "dest": "gold" + Path(path).suffix},
                   options={"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]}
                   if func == "compare_table" else {})
    restart_peak()
    before = peak_kib()
    result = evaluate(ctx, ev, None)
    grown_mib = (peak_kib() - before) >> 10
    assert result.score == 0.0 and len(result.warnings) == 1, result
    assert result.warnings[0].startswith(f"{func}: not scored, the agent's content went past a bound:")
    assert bound in result.warnings[0] or (bound.endswith("memory bound") and "MemoryError" in result.warnings[0])
    assert grown_mib < 4 * (len(data) >> 20) + 64, f"the host grew by {grown_mib} MiB"  # the file's bytes, no more


def test_a_getter_copies_no_file_past_its_cap(vm, ctx):  # noqa: F811
    vm.files["/home/user/huge.txt"] = b"x" * (3 << 20)
    ctx.limits = EvaluationLimits(max_file_bytes=1 << 20)
    ev = evaluator(func="file_contains", result={"type": "vm_file", "path": "/home/user/huge.txt", "dest": "h.txt"},
                   expected=rule({"expected": ["x"]}))
    result = evaluate(ctx, ev, None)
    assert result.score == 0.0 and "over the 1048576 bytes allowed" in result.warnings[0]
    assert not (ctx.scratch / "h.txt").exists()


def test_an_ordinary_file_is_scored_in_the_worker_as_before(vm, ctx):  # noqa: F811
    vm.files["/home/user/report.xlsx"] = workbook(3, 2)
    (ctx.spec.folder / "gold").write_bytes(workbook(3, 2))
    ev = evaluator(func="compare_table", result={"type": "vm_file", "path": "/home/user/report.xlsx", "dest": "r.xlsx"},
                   expected={"type": "local_file", "path": "gold", "dest": "gold.xlsx"},
                   options={"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]})
    result = evaluate(ctx, ev, None)
    assert result.score == 1.0 and result.warnings == []
