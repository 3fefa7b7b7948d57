"""The no-op check's rules and report: what each no-op agent must score, which tasks run here
offline, the per-domain table and the per-task line (the check itself runs in
``test_bench_osworld_command.py``)."""

from __future__ import annotations

from gui_gym.benchmarks.harness.noop_check import (NoopResult, domain_table, expected_score, offline_runnable,
                                                   result_line, run_noop)
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.coverage import needs
from gui_gym.suites.osworld.loader import load_tasks


def test_done_scores_zero_everywhere_and_fail_one_exactly_on_infeasible_tasks():
    assert expected_score("DONE", infeasible=False) == expected_score("DONE", infeasible=True) == 0.0
    assert expected_score("FAIL", infeasible=True) == 1.0
    assert expected_score("FAIL", infeasible=False) == 0.0


def test_offline_runnable_leaves_out_downloads_web_pages_and_what_the_sandbox_lacks(osworld_tasks, tmp_path):
    specs = load_tasks(osworld_tasks)
    chosen = {s.id for s in offline_runnable(specs, FileCache(tmp_path, allow_download=False))}
    by_id = {s.id: s for s in specs}
    assert "e0df059f-28a6-4169-924f-b9623e7184cc" in chosen  # os: rename a Desktop folder, no file to fetch
    assert "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2" in chosen  # os: maximum volume
    assert not any(by_id[t].domain == "vs_code" for t in chosen)  # VS Code is not installable here
    assert "b6781586-6346-41cd-935a-a6b1487918fc" not in chosen  # timedatectl: systemd is not in the sandbox
    downloading = next(s for s in specs if s.domain == "libreoffice_calc")
    assert downloading.id not in chosen  # every Calc task downloads its workbook


def test_a_cached_download_makes_its_task_runnable_offline(osworld_tasks, tmp_path):
    specs = load_tasks(osworld_tasks, domains=["libreoffice_calc"])
    cache = FileCache(tmp_path, allow_download=False)
    spec = specs[0]
    assert needs(spec).downloads and offline_runnable([spec], cache) == []
    for url in needs(spec).downloads:
        path = cache.download_path(spec.id, url, url.rsplit("/", 1)[-1])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    assert offline_runnable([spec], cache) == [spec]


def test_the_table_counts_per_domain_and_in_total():
    results = [NoopResult("a", "os", "DONE", False, 0.0, 0.0), NoopResult("a", "os", "FAIL", False, 0.0, 0.0),
               NoopResult("b", "os", "DONE", True, 0.0, 0.0), NoopResult("b", "os", "FAIL", True, 1.0, 1.0),
               NoopResult("c", "vlc", "DONE", False, 0.0, 1.0, read="'100\\n'"),
               NoopResult("c", "vlc", "FAIL", False, 0.0, None, error="MissingResourceError: no file")]
    rows = {row["domain"]: row for row in domain_table(results)}
    assert rows["os"] == {"domain": "os", "tasks": 2, "infeasible": 1, "DONE=0 ok": 2, "FAIL ok": 2, "mismatches": 0}
    assert rows["vlc"]["DONE=0 ok"] == 0 and rows["vlc"]["mismatches"] == 2
    assert rows["total"]["tasks"] == 3 and rows["total"]["mismatches"] == 2
    assert list(rows) == ["os", "vlc", "total"]
    only_fail = {row["domain"]: row for row in domain_table([r for r in results if r.answer == "FAIL"])}
    assert only_fail["os"]["infeasible"] == 1 and only_fail["os"]["DONE=0 ok"] == 0


def test_a_mismatch_line_says_what_the_evaluator_read_or_why_it_did_not_run():
    assert result_line(NoopResult("a", "os", "DONE", False, 0.0, 0.0)).startswith("ok")
    line = result_line(NoopResult("c", "os", "DONE", False, 0.0, 1.0, read="exact_match=1.0 read '100\\n'"))
    assert line.startswith("MISMATCH os/c DONE: expected 0, got 1") and "read '100\\n'" in line
    assert "got error -- MissingResourceError" in result_line(
        NoopResult("c", "os", "FAIL", False, 0.0, None, error="MissingResourceError: no file"))


class _BrokenEnv:
    """An env whose reset fails as a task's setup can (a file missing from the cache)."""

    def reset(self, options):
        raise FileNotFoundError(f"no such task file for {options['task_id']}")


def test_a_setup_that_fails_is_that_task_s_result_not_the_end_of_the_check():
    outcome = run_noop(_BrokenEnv(), "t", "os", False, "DONE")
    assert outcome.got is None and not outcome.ok
    assert outcome.error == "FileNotFoundError: no such task file for t"
