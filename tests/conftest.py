"""Shared fixtures. A benchmark's real data (OSWorld's task files, AndroidWorld's task list) is
read in place from where an environment variable points, never copied; see `DATA_VARIABLES`."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from tests.cube_venv import has_cube

# The CUBE test files need cube-standard (Python >= 3.12). In an interpreter without it they are
# not collected: tests/gui_gym/test_cube_venv.py runs them in the CUBE venv and fails with them.
collect_ignore = [] if has_cube() else ["gui_gym/test_cube_task.py", "gui_gym/suites/test_suites_cube.py"]

# One thread per OpenMP/BLAS pool, set before any test imports torch or numpy: the suite runs
# one pytest-xdist worker per core, and a worker whose torch spreads each op over every core
# oversubscribes them; the spinning threads cost CPU, not just time (the tiny-model tests take
# ~3x the CPU with two threads per worker on two cores). Subprocesses inherit it. A value
# already set in the environment wins.
for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

DATA_VARIABLES = {
    "osworld": ("GUI_GYM_OSWORLD_TASKS", "OSWorld's evaluation_examples folder (examples/<domain>/<id>.json, "
                "test_*.json)", Path.is_dir),
    "androidworld": ("GUI_GYM_ANDROIDWORLD_TASKS", "AndroidWorld's task_metadata.json", Path.is_file),
}
"""The benchmark data the tests read, by name: (the variable that points at it, what it must point
at, the check that it does). The data is not ours to ship; `.ci/run` sets every variable, so CI
skips none of the tests that need it."""


def benchmark_data(name: str) -> Path:
    """Where the variable for `name` points. Unset: the test is skipped, the reason naming the
    variable (a bare clone runs the rest). Set but wrong: an error, not a skip, so a mistyped path
    in CI cannot silently drop tests."""
    variable, what, exists = DATA_VARIABLES[name]
    value = os.environ.get(variable, "")
    if not value:
        pytest.skip(f"needs {what}: set {variable} to its path")
    path = Path(value)
    if not exists(path):
        raise FileNotFoundError(f"{variable} points at {path}, which is not {what}")
    return path


@pytest.fixture(scope="session")
def osworld_tasks() -> Path:
    """OSWorld(-Verified)'s evaluation_examples folder, from $GUI_GYM_OSWORLD_TASKS."""
    return benchmark_data("osworld")


@pytest.fixture(scope="session")
def androidworld_tasks() -> Path:
    """AndroidWorld's task_metadata.json, from $GUI_GYM_ANDROIDWORLD_TASKS."""
    return benchmark_data("androidworld")


@pytest.fixture(scope="module", autouse=True)
def _one_playwright_driver_per_module():
    """The module's envs share one Playwright driver (a node process, ~0.8 s of CPU to start)
    instead of starting one each; it stops when the module ends. Nothing starts in a module
    without a browser."""
    from gui_gym.backends.browser.playwright_driver import DRIVERS

    with DRIVERS.held():
        yield


@pytest.fixture(scope="module")
def osworld_ref():
    """OSWorld's own metric modules (desktop-env 1.0.2, installed once under ``.cache/``),
    importable for the tests of one module; see `osworld_reference.Reference`."""
    from tests.osworld_reference import Reference

    with Reference() as ref:
        yield ref


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Test files with the most slow tests first; otherwise the order stays. pytest-xdist hands
    out whole files in this order (`scripts/test`: ``--dist loadfile --no-loadscope-reorder``),
    so the long files start early and the many short ones fill the end, rather than a long
    file starting last while the other workers have nothing left to do."""
    slow = Counter(item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.nodeid.split("::")[0]])  # stable: a file's tests stay together, in order


def pytest_terminal_summary(terminalreporter) -> None:
    """The parity table (ours against OSWorld's metric code) when parity tests ran."""
    from tests.osworld_reference import format_tallies

    lines = list(format_tallies())
    if lines:
        terminalreporter.section("OSWorld metric parity (cases, agreeing, documented differences)")
        for line in lines:
            terminalreporter.write_line(line)
