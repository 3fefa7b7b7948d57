"""The sandbox's launcher finds the folders an unprivileged id cannot pass through (every
sandbox start runs the rest of it: the interpreter may live under such a folder)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from gui_gym.backends.desktop.launcher import blocking_ancestor


def test_the_topmost_closed_folder_above_a_path_blocks_it():
    base = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="gui-gym-launcher-"))
    try:
        os.chmod(base, 0o755)
        (base / "locked" / "deeper" / "venv").mkdir(parents=True)
        (base / "open" / "venv").mkdir(parents=True)
        os.chmod(base / "locked", 0o700)
        os.chmod(base / "locked" / "deeper", 0o700)
        assert blocking_ancestor(str(base / "locked" / "deeper" / "venv")) == str(base / "locked")
        assert blocking_ancestor(str(base / "open" / "venv")) is None
        assert blocking_ancestor(str(base / "locked")) is None  # the folder itself is bound, not passed through
    finally:
        shutil.rmtree(base)
