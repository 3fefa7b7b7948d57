"""The bundled local task file is what `mind2web_local` generates from LocalWeb: the Online-Mind2Web
fields, every instruction still the one its template produces at its seed, levels by the
benchmark's rule over the oracle's length, and a record regenerated in a browser exactly."""

from __future__ import annotations

import json

from gui_gym.suites.localweb.apps import APP_MODULES
from gui_gym.suites.localweb.suite import LocalWebSuite
from gui_gym.suites.mind2web.loader import LEVELS, level_of, load_task_file
from gui_gym.benchmarks.samples.mind2web_local import SELECTION, generate, local_task_id
from gui_gym.suites.mind2web.suite import LOCAL_TASK_FILE

BUNDLED = json.loads(LOCAL_TASK_FILE.read_text())


def test_the_bundled_file_follows_the_selection_and_the_benchmark_format():
    assert 20 <= len(BUNDLED) <= 40
    assert [(t["localweb"]["template"], t["localweb"]["seed"]) for t in BUNDLED] == list(SELECTION)
    assert {t["localweb"]["template"].split(".")[0] for t in BUNDLED} == set(APP_MODULES)
    assert {t["level"] for t in BUNDLED} == set(LEVELS)
    assert all(set(t) == {"task_id", "confirmed_task", "website", "reference_length", "level", "localweb"} for t in BUNDLED)
    assert len(load_task_file(LOCAL_TASK_FILE).tasks) == len(BUNDLED)


def test_every_task_is_still_its_templates_instruction_start_page_and_level():
    suite = LocalWebSuite()
    for task in BUNDLED:
        template, seed = task["localweb"]["template"], task["localweb"]["seed"]
        cls = suite.templates[template]
        assert task["task_id"] == local_task_id(template, seed)
        assert suite.make_task(template, seed).instruction == task["confirmed_task"], task["task_id"]
        assert task["website"] == f"/{cls.app}{cls.start_path}"
        assert task["level"] == level_of(task["reference_length"])


def test_a_record_regenerates_exactly_in_a_browser():
    record = next(t for t in BUNDLED if t["localweb"]["template"] == "mail.meeting-time")
    assert generate([("mail.meeting-time", record["localweb"]["seed"])]) == [record]
