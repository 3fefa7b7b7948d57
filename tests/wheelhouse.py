"""The wheels the distribution tests install into fresh venvs, downloaded once per machine.

`tests/test_distribution.py` installs the built wheel into fresh venvs, with gui-gym's core
dependencies and beside OpenAI's Agents SDK. Installing those from the package index at test
time made the test depend on the network half an hour into a run (a CI run failed on a
name-resolution error there). `wheelhouse_dir` downloads them instead with ``pip download``
into ``~/.cache/gui-gym/wheelhouse/<key>/`` (``$GUI_GYM_WHEELHOUSE_CACHE`` overrides the
folder above ``<key>``), where the key is a hash of the requirement list, so a folder never
goes stale and a fresh clone reuses it; the venvs then install with ``--no-index``. Running
``python -m tests.wheelhouse`` fills it ahead of the tests (`scripts/test` does, while the
index is being used for the set-up anyway). Nothing here is imported by the project.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.machine_cache import filled_once

CACHE_ENV_VAR = "GUI_GYM_WHEELHOUSE_CACHE"
REPO_ROOT = Path(__file__).resolve().parents[1]
OPENAI_AGENTS = "openai-agents==0.24.0"
"""OpenAI's Agents SDK, pinned: its top-level package is also called ``agents``."""


def requirements() -> list[str]:
    """gui-gym's core dependencies (as pyproject.toml declares them) and the SDK."""
    with open(REPO_ROOT / "pyproject.toml", "rb") as file:
        core = tomllib.load(file)["project"]["dependencies"]
    return [*core, OPENAI_AGENTS]


def wheelhouse_dir() -> Path:
    """The downloaded folder (downloaded on first use; later calls are instant)."""
    wanted = requirements()
    key = hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:12]
    root = Path(os.environ.get(CACHE_ENV_VAR) or Path.home() / ".cache" / "gui-gym" / "wheelhouse")

    def download(folder: Path) -> None:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--dest", str(folder), *wanted], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"downloading the distribution tests' wheels failed:\n{done.stderr}")

    return filled_once(root, key, ".downloaded", "\n".join(wanted) + "\n", download)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file():
            return target
        partial = root / f"{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                               "--dest", str(partial), *wanted], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"downloading the distribution tests' wheels failed:\n{done.stderr}")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        stamp.write_text("\n".join(wanted) + "\n")
    return target


if __name__ == "__main__":
    print(wheelhouse_dir())
