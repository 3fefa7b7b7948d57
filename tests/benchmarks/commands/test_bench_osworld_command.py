"""``gui-bench osworld check``: the no-op agents on real OSWorld-Verified tasks in the local
sandbox (on the default desktop, GNOME), and the command's errors."""

from __future__ import annotations

import json

import pytest

from gui_gym.benchmarks.cli import COMMANDS, main
from gui_gym.benchmarks.commands.osworld import TASKS_VARIABLE

CHECKED = {
    "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa": "os (infeasible)",
    "e0df059f-28a6-4169-924f-b9623e7184cc": "os: rename a Desktop folder",
    "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2": "os: maximum volume (scored 1 untouched while the sandbox's audio started at 100 %)",
}


def test_the_command_is_registered():
    assert COMMANDS["osworld"] == "gui_gym.benchmarks.commands.osworld"


@pytest.mark.slow
def test_the_noop_agents_score_as_on_osworld_s_vm(osworld_tasks, tmp_path, capsys):
    out = tmp_path / "noop.json"
    code = main(["osworld", "check", "--tasks-root", str(osworld_tasks), "--tasks",
                 ",".join(CHECKED), "--cache", str(tmp_path / "cache"), "--screen-size", "1280x800",
                 "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    records = json.loads(out.read_text())
    assert {(r["task_id"], r["answer"]) for r in records} == {(t, a) for t in CHECKED for a in ("DONE", "FAIL")}
    assert all(r["got"] == r["expected"] for r in records), printed
    assert "MISMATCH" not in printed
    assert "os          3           1          3        3           0" in printed


@pytest.mark.slow
@pytest.mark.timeout(2400)  # 38 GNOME episodes, each waiting for its desktop to boot: 10 to 15 min on 2 loaded cores
def test_an_untouched_desktop_solves_no_task_that_downloads_nothing(osworld_tasks, tmp_path, capsys):
    """The DONE agent over every feasible task runnable here without downloads: the one no-op
    episode whose score reads the desktop's state (FAIL and infeasible tasks are scored by
    OSWorld's rule alone, which the evaluator's tests pin). A task scoring 1 here would start
    from a state OSWorld's VM does not have."""
    from gui_gym.benchmarks.harness.noop_check import default_cache, offline_runnable
    from gui_gym.suites.osworld.loader import load_tasks

    cache = default_cache(tmp_path / "cache")
    feasible = [s.id for s in offline_runnable(load_tasks(osworld_tasks), cache) if not s.evaluator.infeasible]
    code = main(["osworld", "check", "--tasks-root", str(osworld_tasks), "--tasks", ",".join(feasible),
                 "--cache", str(cache.root), "--answers", "DONE"])
    printed = capsys.readouterr().out
    assert code == 0 and "MISMATCH" not in printed, printed
    assert printed.count("ok       ") == len(feasible) >= 35, printed


def test_without_a_task_folder_the_error_names_the_option_and_the_variable(monkeypatch, capsys):
    monkeypatch.delenv(TASKS_VARIABLE, raising=False)
    assert main(["osworld", "check"]) == 2
    assert f"pass --tasks-root or set ${TASKS_VARIABLE}" in capsys.readouterr().err


def test_a_folder_without_examples_is_refused(tmp_path, capsys):
    assert main(["osworld", "check", "--tasks-root", str(tmp_path)]) == 2
    assert "has no examples/ folder" in capsys.readouterr().err


def test_an_unknown_agent_is_refused(osworld_tasks, capsys):
    assert main(["osworld", "check", "--tasks-root", str(osworld_tasks), "--answers", "WAIT"]) == 2
    assert "--answers takes DONE, FAIL" in capsys.readouterr().err


def test_a_selection_outside_the_offline_tasks_says_so(osworld_tasks, tmp_path, capsys):
    code = main(["osworld", "check", "--tasks-root", str(osworld_tasks), "--tasks",
                 "domain:os", "--tasks", "domain:vs_code", "--cache", str(tmp_path)])
    assert code == 2
    assert "--tasks 'domain:vs_code' selects nothing" in capsys.readouterr().err
