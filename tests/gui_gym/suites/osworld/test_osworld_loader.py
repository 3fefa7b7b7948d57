"""The OSWorld task loader on the 369 real task files, the bundled sample, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.osworld.loader import load_task_file, load_tasks, parse_evaluator, parse_task


def test_all_369_real_tasks_load_with_every_field(osworld_tasks: Path):
    specs = load_tasks(osworld_tasks)
    assert len(specs) == 369 and len({s.id for s in specs}) == 369
    assert {s.domain for s in specs} == {"chrome", "gimp", "libreoffice_calc", "libreoffice_impress",
                                         "libreoffice_writer", "multi_apps", "os", "thunderbird", "vlc", "vs_code"}
    multi = [s for s in specs if s.evaluator.multi]
    assert multi and all(len(s.evaluator.funcs) == len(s.evaluator.results) == len(s.evaluator.options)
                         for s in multi)
    assert sum(s.evaluator.infeasible for s in specs) == 29
    assert sum(s.evaluator.conj == "or" for s in specs) == 25
    assert all("possibility_of_env_change" in s.raw for s in specs)
    assert any(s.evaluator.postconfig for s in specs)


@pytest.mark.parametrize("index, count", [("test_nogdrive.json", 361), ("test_small.json", 39),
                                          ("test_infeasible.json", 28)])
def test_index_files_select_tasks(osworld_tasks: Path, index: str, count: int):
    assert len(load_tasks(osworld_tasks, index=index)) == count


def test_domain_filter_and_a_folder_without_index(osworld_tasks: Path):
    calc = load_tasks(osworld_tasks, domains=["libreoffice_calc"])
    assert len(calc) == 47 and {s.domain for s in calc} == {"libreoffice_calc"}
    assert len(load_tasks(osworld_tasks / "examples" / "os")) == 24
    with pytest.raises(TaskConfigError, match=r"unknown domain\(s\) \['excel'\]"):
        load_tasks(osworld_tasks, domains=["excel"])
    with pytest.raises(MissingResourceError, match="index file .*test_none.json' not found; available here"):
        load_tasks(osworld_tasks, index="test_none.json")


def test_bundled_sample_loads_and_every_task_has_an_oracle():
    from gui_gym.suites.osworld import oracles

    specs = load_tasks("sample")
    assert len(specs) >= 15
    assert {s.domain for s in specs} >= {"os", "text_editor", "libreoffice_calc", "libreoffice_writer"}
    assert all(oracles.has_oracle(s.id) for s in specs)
    assert sum(s.evaluator.infeasible for s in specs) >= 2


def test_evaluator_normalisation_follows_osworld(tmp_path: Path):
    path = tmp_path / "t.json"
    single = parse_evaluator({"func": "exact_match", "result": {"type": "rule"}, "options": {"a": 1}}, path)
    assert single.funcs == ("exact_match",) and single.conj == "and" and single.options == ({"a": 1},)
    assert single.expecteds == (None,)
    multi = parse_evaluator({"func": ["a", "b"], "conj": "or", "result": [{"type": "x"}, {"type": "y"}],
                             "expected": [{"type": "rule"}, None]}, path)
    assert multi.multi and multi.options == ({}, {}) and multi.expecteds == ({"type": "rule"}, None)
    assert parse_evaluator({"func": "infeasible"}, path).infeasible


@pytest.mark.parametrize("evaluator, message", [
    ({"func": 3}, r"evaluator.func' must be a metric name or a list of names, received 3"),
    ({"func": "a", "conj": "xor"}, r"evaluator.conj' must be 'and' or 'or', received 'xor'"),
    ({"func": ["a", "b"], "result": [{"type": "x"}]}, r"evaluator.result' must be a list of 2 entries"),
    ({"func": ["a", "b"], "options": {"k": 1}}, r"evaluator.options' must be a list parallel to func"),
    ({"func": "a", "options": [{}]}, r"evaluator.options' is a list but func is a single name"),
])
def test_malformed_evaluators_name_file_and_field(tmp_path: Path, evaluator: dict, message: str):
    with pytest.raises(TaskConfigError, match=message):
        parse_evaluator(evaluator, tmp_path / "bad.json")


def test_malformed_task_files(tmp_path: Path):
    bad_json = tmp_path / "broken.json"
    bad_json.write_text("{")
    with pytest.raises(TaskConfigError, match=r"broken.json: not valid JSON"):
        load_task_file(bad_json)
    with pytest.raises(TaskConfigError, match=r"field 'instruction' must be a non-empty string"):
        parse_task({"id": "x", "evaluator": {"func": "a"}}, tmp_path / "x.json")
    with pytest.raises(TaskConfigError, match=r"field 'config\[0\]' must be an object with a string 'type'"):
        parse_task({"id": "x", "instruction": "y", "config": [{"parameters": {}}], "evaluator": {"func": "a"}},
                   tmp_path / "x.json")
    index_dir = tmp_path / "set"
    (index_dir / "examples" / "os").mkdir(parents=True)
    (index_dir / "test_all.json").write_text(json.dumps({"os": ["ghost"]}))
    with pytest.raises(TaskConfigError, match=r"task os/ghost is listed but .*ghost.json does not exist"):
        load_tasks(index_dir)
