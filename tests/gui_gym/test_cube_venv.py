"""The CUBE tests, run in the CUBE venv: cube-standard needs Python >= 3.12 and the main test
venv may be older, so this test runs each CUBE test file in a child pytest with the venv's
Python (`tests.cube_venv`), and fails with its output when that run fails. Skipped, saying why,
where there is no such venv (no Python >= 3.12 here), and where this interpreter has CUBE
itself (the files then run directly)."""

from __future__ import annotations

import subprocess

import pytest

from tests.cube_venv import ROOT, VENV, cube_python, has_cube

CUBE_TEST_FILES = ("tests/gui_gym/test_cube_task.py", "tests/gui_gym/suites/test_suites_cube.py")
CHILD_TIMEOUT_S = 900


@pytest.mark.slow
@pytest.mark.timeout(CHILD_TIMEOUT_S + 60)
@pytest.mark.parametrize("path", CUBE_TEST_FILES)
def test_the_cube_tests_pass_in_the_cube_venv(path):
    if has_cube():
        pytest.skip("this interpreter has CUBE: the file runs directly")
    python = cube_python()
    if python is None:
        pytest.skip(f"no CUBE venv ({VENV.name}): scripts/setup.sh makes it where a Python >= 3.12 exists "
                    "(python3.12/python3.13 on the PATH, or pyenv's)")
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", path],
                          cwd=ROOT, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    assert done.returncode == 0, f"{path} failed in {python}:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout[-2000:]
