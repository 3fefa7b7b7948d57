"""A folder filled once per machine, under ``~/.cache/gui-gym``, shared by every clone and
every parallel test process: the test-only references and downloads live there, so a test
never waits for them under its own time limit after the first fill."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path
from typing import Callable


def filled_once(root: Path, key: str, stamp: str, stamp_text: str, fill: Callable[[Path], None]) -> Path:
    """``root/key``, filled by ``fill(folder)`` if its `stamp` file is missing. `key` names
    what the folder holds (a hash of it), so a folder never goes stale. A lock keeps parallel
    processes from filling it twice; the fill goes to a partial folder renamed when complete,
    so an interrupted fill leaves nothing that looks done."""
    target = root / key
    if (target / stamp).is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / stamp).is_file():
            return target
        partial = root / f"{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        fill(partial)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        (target / stamp).write_text(stamp_text)
    return target
