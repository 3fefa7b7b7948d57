"""Is the desktop working? Read from ``/proc`` inside the sandbox, which (with a private PID
namespace) lists only the desktop's own processes.

A thread in state R (running or waiting for a CPU) means an application has work queued:
after an action that is the surest sign it has not answered yet, even on a loaded host where
it gets no CPU for a while and its window does not change. Our own server's threads (which
take the screenshots) are left out, and so is the X server: it runs whenever a frame is
captured, so counting it would make every capture look like work (a wait for a second of
quiet then never ends), while an application that draws is itself running.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
IGNORED_COMMANDS = frozenset({b"Xvfb", b"Xorg", b"Xwayland"})
"""Display servers: they do the capturing's work, not the applications'."""


def running_threads(exclude_pid: int | None = None) -> int:
    """How many threads of the visible processes (but `exclude_pid`'s and the display
    server's) are running or runnable."""
    exclude = str(exclude_pid if exclude_pid is not None else os.getpid())
    count = 0
    for proc in PROC.iterdir():
        if not proc.name.isdigit() or proc.name == exclude:
            continue
        try:
            if (proc / "comm").read_bytes().strip() in IGNORED_COMMANDS:
                continue
            tasks = list((proc / "task").iterdir())
        except OSError:  # the process exited while we looked
            continue
        for task in tasks:
            try:
                stat = (task / "stat").read_bytes()
            except OSError:
                continue
            if stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] == b"R":
                count += 1
    return count


def busy() -> bool:
    """True while some thread of the desktop (other than this server) is running."""
    return running_threads() > 0
