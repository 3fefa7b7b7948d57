"""AndroidWorld's task list, read from a path, with which tasks gui-gym implements."""

from __future__ import annotations

import json

import pytest

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.android import AndroidWorldSuite, load_catalog
from gui_gym.suites.android.catalog import ENV_VAR
from gui_gym.suites.android.tasks import TASKS


def test_all_116_tasks_with_the_implemented_ones_marked(androidworld_tasks):
    entries = load_catalog(androidworld_tasks, TASKS)
    assert len(entries) == 116 and len({e.task_name for e in entries}) == 116
    implemented = {e.task_name for e in entries if e.implemented}
    assert implemented == {name for name, cls in TASKS.items() if cls.source == "androidworld"}
    assert all(e.faithful == (e.implemented and not TASKS[e.task_name].fidelity) for e in entries)
    wifi = next(e for e in entries if e.task_name == "SystemWifiTurnOn")
    assert (wifi.task_template, wifi.difficulty, wifi.optimal_steps, wifi.faithful) == \
        ("Turn wifi {on_or_off}.", "easy", 3, True)


def test_templates_are_androidworlds(androidworld_tasks):
    """The goal templates are AndroidWorld's code's; its metadata file words some differently."""
    metadata = {e.task_name: e.task_template for e in load_catalog(androidworld_tasks, TASKS)}
    for name in ("SystemWifiTurnOn", "ClockTimerEntry", "ContactsAddContact", "FilesDeleteFile", "OpenAppTaskEval",
                 "TurnOffWifiAndTurnOnBluetooth", "SystemCopyToClipboard"):
        assert TASKS[name].template == metadata[name], name


def test_the_suite_describes_with_the_list(androidworld_tasks):
    suite = AndroidWorldSuite(androidworld_tasks)
    assert suite.describe("FilesDeleteFile") == {
        "task_id": "FilesDeleteFile", "domain": "files", "apps": ["files"], "complexity": 2.2, "max_steps": 22,
        "source": "androidworld", "template": TASKS["FilesDeleteFile"].template, "faithful": True,
        "difficulty": "medium", "tags": ["data_edit", "parameterized"], "optimal_steps": 4}
    assert suite.describe("ClockAddAlarm")["source"] == "gui-gym" and "difficulty" not in suite.describe("ClockAddAlarm")


def test_asking_for_an_unimplemented_androidworld_task_says_so(androidworld_tasks, tmp_path):
    records = json.loads(androidworld_tasks.read_text()) + [
        {"task_name": "PhoneMakeCall", "task_template": "Call {number}.", "difficulty": "easy", "tags": [],
         "optimal_steps": "3"}]  # one of AndroidWorld's disabled phone tasks
    path = tmp_path / "task_metadata.json"
    path.write_text(json.dumps(records))
    suite = AndroidWorldSuite(path)
    assert not next(e for e in suite.catalog if e.task_name == "PhoneMakeCall").implemented
    with pytest.raises(TaskConfigError, match=r"AndroidWorld task 'PhoneMakeCall' is not implemented by gui-gym"):
        suite.make_task("PhoneMakeCall", 0)
    with pytest.raises(TaskConfigError, match=r"unknown task id 'SystemWifiTurnOnn' .*did you mean"):
        AndroidWorldSuite(androidworld_tasks).make_task("SystemWifiTurnOnn", 0)


def test_the_list_comes_from_the_environment_or_nowhere(androidworld_tasks, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert AndroidWorldSuite().catalog is None
    monkeypatch.setenv(ENV_VAR, str(androidworld_tasks))
    assert len(AndroidWorldSuite().catalog) == 116
    monkeypatch.setenv(ENV_VAR, "/nonexistent/task_metadata.json")
    with pytest.raises(MissingResourceError, match=rf"\${ENV_VAR} points at '/nonexistent/task_metadata.json'"):
        AndroidWorldSuite()


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ('{"a": 1}', "expected a list of task records, received dict"),
    ('[{"task_name": "X"}]', r"entry 0: missing field\(s\) \['difficulty', 'optimal_steps', 'tags', 'task_template'\]"),
    ('[{"task_name": "X", "task_template": "", "difficulty": "trivial", "tags": [], "optimal_steps": "1"}]',
     "entry 0: difficulty must be one of"),
    ('[{"task_name": "X", "task_template": "", "difficulty": "easy", "tags": [], "optimal_steps": "many"}]',
     "entry 0: optimal_steps must be an integer, received 'many'"),
])
def test_malformed_lists_name_the_file_entry_and_field(tmp_path, content, message):
    path = tmp_path / "task_metadata.json"
    path.write_text(content)
    with pytest.raises(TaskConfigError, match=message):
        load_catalog(path, TASKS)


def test_a_list_missing_an_implemented_task_is_refused(tmp_path, androidworld_tasks):
    records = [r for r in json.loads(androidworld_tasks.read_text()) if r["task_name"] != "ClockTimerEntry"]
    path = tmp_path / "task_metadata.json"
    path.write_text(json.dumps(records))
    with pytest.raises(TaskConfigError, match=r"\['ClockTimerEntry'\] implemented by gui-gym are not in this list"):
        AndroidWorldSuite(path)
