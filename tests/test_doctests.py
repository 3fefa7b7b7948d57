"""Every ``>>>`` example in the packages runs as a doctest: a docstring example is a promise
to a reader, so it must hold. Examples that need what a test machine lacks (an OSWorld VM,
the live web) say so with ``# doctest: +SKIP``; nothing else is skipped."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gui_gym", "agents", "trainers", "benchmarks")
NEEDS_MORE_THAN_A_TEST_MACHINE = {"gui_gym.envs.osworld", "gui_gym.envs.mind2web"}
"""Their examples need an OSWorld VM or the live web; every example in them is skipped."""


def _modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = _modules_with_examples()


def test_examples_are_found_and_skipped_only_where_a_machine_is_missing():
    assert "gui_gym.wrappers.progress" in MODULES and "gui_gym.trainers.rollout" in MODULES
    for name in MODULES:
        source = (ROOT / (name.replace(".", "/") + ".py"))
        source = source if source.is_file() else ROOT / name.replace(".", "/") / "__init__.py"
        skipped = "+SKIP" in source.read_text(encoding="utf-8")
        assert skipped == (name in NEEDS_MORE_THAN_A_TEST_MACHINE), name


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
