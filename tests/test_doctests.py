"""Every ``>>>`` example in the packages runs as a doctest: a docstring example is a promise
to a reader, so it must hold. Examples that need what a test machine lacks (an OSWorld VM,
the live web) say so with ``# doctest: +SKIP``; nothing else is skipped."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"gui_gym": "gui_gym", "agents": "gui_gym.agents", "trainers": "gui_gym.trainers",
            "benchmarks": "gui_gym.benchmarks"}
"""The repository's folders and the modules they install as (setup.py)."""
NEEDS_MORE_THAN_A_TEST_MACHINE = {"gui_gym.envs.osworld", "gui_gym.envs.mind2web"}
"""Their examples need an OSWorld VM or the live web; every example in them is skipped."""


def _modules_with_examples() -> dict[str, Path]:
    found = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT / folder).with_suffix("").parts
                found[".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    return found


MODULES = _modules_with_examples()


def test_examples_are_found_and_skipped_only_where_a_machine_is_missing():
    assert "gui_gym.wrappers.progress" in MODULES and "gui_gym.trainers.rollout" in MODULES
    for name, source in MODULES.items():
        skipped = "+SKIP" in source.read_text(encoding="utf-8")
        assert skipped == (name in NEEDS_MORE_THAN_A_TEST_MACHINE), name


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
