"""Where the CUBE tests run: the Python >= 3.12 venv `scripts/setup.sh` makes (``.venv-cube``),
or the interpreter ``$GUI_GYM_CUBE_PYTHON`` names. CUBE (cube-standard) needs Python >= 3.12;
the main test venv may be older, so the tests that need CUBE run in that venv, in a child
pytest (tests/gui_gym/test_cube_venv.py); under an interpreter without CUBE they skip, saying so."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-cube"
VARIABLE = "GUI_GYM_CUBE_PYTHON"


def cube_python() -> Path | None:
    """The interpreter of the CUBE venv, or None where there is none (no Python >= 3.12 here)."""
    named = os.environ.get(VARIABLE)
    if named:
        if not Path(named).is_file():
            raise FileNotFoundError(f"{VARIABLE} points at {named}, which is not an interpreter")
        return Path(named)
    python = VENV / "bin" / "python"
    return python if python.is_file() else None


def has_cube() -> bool:
    """Whether this interpreter has cube-standard (its ``cube.benchmark``, not any ``cube``)."""
    try:
        return importlib.util.find_spec("cube.benchmark") is not None
    except ModuleNotFoundError:
        return False


def require_cube() -> None:
    """Skip the calling test module unless this interpreter has CUBE."""
    if not has_cube():
        pytest.skip("needs cube-standard (Python >= 3.12): tests/gui_gym/test_cube_venv.py runs this file in "
                    f"{VENV.name} (scripts/setup.sh makes it where a Python >= 3.12 exists)", allow_module_level=True)
