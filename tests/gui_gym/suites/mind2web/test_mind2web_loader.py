"""The Online-Mind2Web task-file loader: both instruction keys, JSON and JSON Lines, level
filters, the pinned-version check, and one clear error per malformed field."""

from __future__ import annotations

import hashlib
import json

import pytest

from gui_gym.errors import TaskConfigError
from gui_gym.suites.mind2web.loader import LEVELS, level_of, load_task_file, parse_levels

TASKS = [
    {"task_id": "a1", "website": "https://www.example.com/", "confirmed_task": "Find a red bike.",
     "reference_length": 4, "level": "easy"},
    {"task_id": "b2", "website": "https://shop.example.org/", "task_description": "Buy the cheapest lamp.",
     "reference_length": 8, "level": "medium", "annotator": "x"},
    {"task_id": "c3", "website": "https://maps.example.net/", "confirmed_task": "Plan a route.",
     "reference_length": 14, "level": "hard"},
]


def _write(path, records, jsonl=False):
    path.write_text("".join(json.dumps(r) + "\n" for r in records) if jsonl else json.dumps(records))
    return path


@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_both_instruction_keys_and_every_field_are_read(tmp_path, jsonl):
    path = _write(tmp_path / "tasks.json", TASKS, jsonl)
    loaded = load_task_file(path)
    assert [t.task_id for t in loaded.tasks] == ["a1", "b2", "c3"]
    assert [t.task for t in loaded.tasks] == ["Find a red bike.", "Buy the cheapest lamp.", "Plan a route."]
    second = loaded.by_id()["b2"]
    assert (second.website, second.reference_length, second.level, second.extra) == (
        "https://shop.example.org/", 8, "medium", {"annotator": "x"})
    assert loaded.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and loaded.path == path


def test_levels_filter_and_the_level_rule():
    assert [level_of(n) for n in (1, 5, 6, 10, 11, 40)] == ["easy", "easy", "medium", "medium", "hard", "hard"]
    assert parse_levels("easy, hard") == {"easy", "hard"} and parse_levels(["medium"]) == {"medium"}
    assert parse_levels(None) is None and LEVELS == ("easy", "medium", "hard")
    with pytest.raises(ValueError, match=r"levels must name some of \['easy', 'medium', 'hard'\], received 'eazy'"):
        parse_levels("eazy")


def test_level_filter_keeps_only_those_levels(tmp_path):
    path = _write(tmp_path / "tasks.json", TASKS)
    assert [t.task_id for t in load_task_file(path, levels="easy,hard").tasks] == ["a1", "c3"]
    with pytest.raises(TaskConfigError, match=r"no task has a level in \['medium'\]"):
        load_task_file(_write(tmp_path / "one.json", TASKS[:1]), levels="medium")


def test_a_pinned_file_must_match_its_hash(tmp_path):
    path = _write(tmp_path / "tasks.json", TASKS)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_task_file(path, pin=digest).sha256 == digest
    assert load_task_file(path, pin="sha256:" + digest.upper()).sha256 == digest
    _write(path, TASKS[:2])
    with pytest.raises(TaskConfigError, match=f"is pinned to {digest}: the tasks changed since the pin was taken"):
        load_task_file(path, pin=digest)


@pytest.mark.parametrize("change, message", [
    ({"task_id": ""}, r"task 0: expected a non-empty string 'task_id', received ''"),
    ({"confirmed_task": None}, r"task 'a1': expected the instruction as a non-empty string under 'confirmed_task' or "
                               r"'task_description', received None"),
    ({"website": 3}, r"task 'a1': expected 'website' as a non-empty URL string, received 3"),
    ({"reference_length": 0}, r"expected 'reference_length' as an integer >= 1, received 0"),
    ({"reference_length": True}, r"expected 'reference_length' as an integer >= 1, received True"),
    ({"level": "Easy"}, r"expected 'level' to be one of \['easy', 'medium', 'hard'\], received 'Easy'"),
])
def test_malformed_fields_are_named(tmp_path, change, message):
    with pytest.raises(TaskConfigError, match=message):
        load_task_file(_write(tmp_path / "tasks.json", [{**TASKS[0], **change}]))


def test_malformed_files_are_named(tmp_path):
    with pytest.raises(TaskConfigError, match="does not exist"):
        load_task_file(tmp_path / "missing.json")
    with pytest.raises(TaskConfigError, match="task_id 'a1' appears more than once"):
        load_task_file(_write(tmp_path / "dup.json", [TASKS[0], TASKS[0]]))
    (tmp_path / "bad.jsonl").write_text('{"task_id": "a"}\nnot json\n')
    with pytest.raises(TaskConfigError, match="line 2: expected one JSON task object per line"):
        load_task_file(tmp_path / "bad.jsonl")
    (tmp_path / "empty.json").write_text("[]")
    with pytest.raises(TaskConfigError, match="expected at least one task, the file holds none"):
        load_task_file(tmp_path / "empty.json")
    with pytest.raises(TaskConfigError, match="task 0: expected a JSON object, received list"):
        load_task_file(_write(tmp_path / "nested.json", [[1]]))
