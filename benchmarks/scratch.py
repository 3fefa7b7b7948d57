"""Temporary folders of `gui-bench run`'s workers, removed when the worker is gone.

A worker killed at its episode's wall-clock limit cannot clean up after itself, and what runs
under it writes temporary files: Chromium's profile (``playwright_chromiumdev_profile-*``),
Playwright's artifacts, Chromium's own scratch files. Each worker therefore gets a folder of its
own as ``TMPDIR``, which every one of those honours, and the parent removes the folder once the
worker has exited, however it exited. A run that is itself killed (``kill -9``) leaves its
folders behind; the next run removes those of runs whose process is gone.

    <system temp>/gui-bench-<uid>/<run pid>-<random>/w<n>-<random>/

Names are short on purpose: Chromium puts a Unix socket in ``TMPDIR``, and a socket path has
at most 107 bytes.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from gui_gym.processes import alive

log = logging.getLogger(__name__)


def _base() -> Path:
    """The folder that holds every run's scratch folders, created private to this user. A
    path someone else owns (a shared /tmp) is never used: a fresh private folder replaces it."""
    base = Path(tempfile.gettempdir()) / f"gui-bench-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        info = base.lstat()
        if base.is_symlink() or not base.is_dir() or info.st_uid != os.getuid():
            raise PermissionError(f"{base} is not a folder of this user")
    except OSError as exc:
        log.warning("gui-bench: cannot use %s for scratch files (%s); using a fresh folder", base, exc)
        return Path(tempfile.mkdtemp(prefix="gui-bench-"))
    return base


class Scratch:
    """The scratch folders of one run: `worker_dir` for each worker, `remove` when it is gone,
    `close` at the end of the run. Creating it removes what dead runs left."""

    def __init__(self) -> None:
        base = _base()
        for stale in base.iterdir():
            owner = stale.name.split("-", 1)[0]
            if owner.isdigit() and int(owner) != os.getpid() and not alive(int(owner)):
                shutil.rmtree(stale, ignore_errors=True)
        self.root = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))

    def worker_dir(self, number: int) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"w{number}-", dir=self.root))

    @staticmethod
    def remove(folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
