"""The repository's agents/, trainers/ and benchmarks/ import under one name each
(gui_gym/installed_names.py): from the checkout's root, where their bare names are reachable, a
bare import is refused with the name to use, so no module loads twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_in_checkout(code: str) -> subprocess.CompletedProcess:
    """``python -c code`` from the checkout's root, the working folder first on ``sys.path``."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("folder", ["agents", "trainers", "benchmarks"])
def test_a_bare_name_is_refused_with_the_installed_name(folder):
    result = run_in_checkout(f"import {folder}")
    assert result.returncode != 0
    assert f"import it by that name" in result.stderr and f"'gui_gym.{folder}'" in result.stderr


def test_the_installed_names_import_from_the_checkout():
    result = run_in_checkout("import gui_gym.agents, gui_gym.trainers, gui_gym.benchmarks.cli; print('ok')")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_verls_plugins_load_once_whatever_name_a_second_import_uses():
    """The issue's case: the plug-ins registered under the installed name, then the bare name. The
    second import is refused before it can register PAGE's estimator a second time."""
    result = run_in_checkout("import gui_gym.trainers.verl_plugins\n"
                             "try:\n    import trainers.verl_plugins.advantages\n"
                             "except ImportError as exc:\n    print('refused:', exc)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused:") and "already been registered" not in result.stdout + result.stderr
