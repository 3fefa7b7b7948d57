"""Temporary folders of `gui-bench run`'s workers, removed when the worker is gone.

A worker killed at its episode's wall-clock limit cannot clean up after itself, and what runs
under it writes temporary files: Chromium's profile (``playwright_chromiumdev_profile-*``),
Playwright's artifacts, Chromium's own scratch files. Each worker therefore gets a folder of its
own as ``TMPDIR``, which every one of those honours, and the parent removes the folder once the
worker has exited, however it exited. A run that is itself killed (``kill -9``) leaves its
folders behind; the next run removes those of runs whose process is gone.

    <system temp>/gui-bench-<uid>/<run pid>[.<k>]/w<n>/

Names are short on purpose: Chromium puts a Unix socket in ``TMPDIR``
(``org.chromium.Chromium.XXXXXX/SingletonSocket``) and refuses to start when its path passes
107 bytes; with these names a system temp path of up to about 40 characters leaves room. Where
it is longer, workers keep the ``TMPDIR`` they inherit (and a killed one may leave its profile
there), with a warning.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from gui_gym.runtime.processes import running

log = logging.getLogger(__name__)

SOCKET_PATH_MAX = 107
CHROMIUM_SOCKET = "/org.chromium.Chromium.XXXXXX/SingletonSocket"
"""The path Chromium puts under its TMPDIR (`SOCKET_PATH_MAX` bounds it)."""


def _base() -> Path:
    """The folder that holds every run's scratch folders, created private to this user. A
    path someone else owns (a shared /tmp) is never used: a fresh private folder replaces it."""
    base = Path(tempfile.gettempdir()) / f"gui-bench-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        if base.is_symlink() or not base.is_dir() or base.lstat().st_uid != os.getuid():
            raise PermissionError(f"{base} is not a folder of this user")
    except OSError as exc:
        log.warning("gui-bench: cannot use %s for scratch files (%s); using a fresh folder", base, exc)
        return Path(tempfile.mkdtemp(prefix="gui-bench-"))
    return base


class Scratch:
    """The scratch folders of one run: `worker_dir` for each worker (None when the system
    temp path is too long for one), `remove` when it is gone, `close` at the end of the run.
    Creating it removes what dead runs left."""

    def __init__(self) -> None:
        base = _base()
        for stale in base.iterdir():
            owner = stale.name.split(".", 1)[0]
            if owner.isdigit() and not running(int(owner)):
                shutil.rmtree(stale, ignore_errors=True)
        self.root = base / str(os.getpid())
        for k in range(1, 1000):  # another run of this process holds the plain name
            try:
                self.root.mkdir(mode=0o700)
                break
            except FileExistsError:
                self.root = base / f"{os.getpid()}.{k}"
        self._warned = False

    def worker_dir(self, number: int) -> Path | None:
        folder = self.root / f"w{number}"
        if len(str(folder)) + len(CHROMIUM_SOCKET) > SOCKET_PATH_MAX:
            if not self._warned:
                self._warned = True
                log.warning("gui-bench: the temporary folder %s is too long for per-worker scratch folders "
                            "(Chromium's socket path would pass %d bytes); workers use TMPDIR as it is, and a killed "
                            "one may leave its browser profile there. A shorter TMPDIR avoids that.",
                            self.root.parent.parent, SOCKET_PATH_MAX)
            return None
        folder.mkdir(mode=0o700)
        return folder

    @staticmethod
    def remove(folder: Path | None) -> None:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        self.remove(self.root)
