"""The versioned criteria store: a version per change, safe file names, and damaged files that
name themselves."""

from __future__ import annotations

import pytest

from gui_gym.errors import TaskConfigError
from gui_gym.judges.criteria_store import CriteriaStore


def test_store_versions_only_on_change(tmp_path):
    store = CriteriaStore(tmp_path)
    assert store.get("osworld/abc def") is None and store.versions("x") == []
    assert store.put("osworld/abc def", ["a", "b"], judge="j") == 1
    assert store.put("osworld/abc def", ["a", "b"]) == 1
    assert store.put("osworld/abc def", ["a", "b", "c"]) == 2
    assert store.get("osworld/abc def") == ["a", "b", "c"] and store.get("osworld/abc def", version=1) == ["a", "b"]
    assert store.path("osworld/abc def").name.startswith("osworld_abc_def-")
    with pytest.raises(TaskConfigError, match=r"have versions \[1, 2\], not 7"):
        store.get("osworld/abc def", version=7)
    with pytest.raises(ValueError, match="expected at least one criterion for task 'x', received none"):
        store.put("x", [])


def test_a_damaged_store_file_names_itself(tmp_path):
    store = CriteriaStore(tmp_path)
    store.path("t").write_text('{"task_id": "t", "versions": [{"criteria": "not a list"}]}')
    with pytest.raises(TaskConfigError, match=r"t.json: expected each version to hold 'criteria' as a list of strings"):
        store.get("t")
    store.path("u").write_text("[]")
    with pytest.raises(TaskConfigError, match=r"u.json: expected \{'task_id': 'u', 'versions'"):
        store.get("u")
