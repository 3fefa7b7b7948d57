"""Process trees on Linux, read from /proc: what an env or a worker started, whether it still
runs, and how to take it all down. One helper for the harness's workers (a browser and its
renderers under each), the envs' own processes and the desktop sandbox (a whole session under
its bubblewrap process).

Envs start processes that start processes (Playwright's driver starts Chromium, which starts
its zygotes and renderers); killing one leaves the others running unless the whole tree is
found first. Elsewhere than Linux no tree is found and the callers fall back to what their
libraries do; `die_with_parent` uses Linux's ``PR_SET_PDEATHSIG``.
"""

from __future__ import annotations

import collections
import ctypes
import multiprocessing as mp
import os
import signal
import sys
from pathlib import Path

_PROC = Path("/proc")


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name, or None when there is no such
    process (the name may hold spaces and parentheses, so it is cut at the last ')')."""
    try:
        return (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants(pid: int) -> list[int]:
    """Every process under `pid`, children first (Linux /proc; elsewhere none are found)."""
    if not _PROC.is_dir():
        return []
    children: dict[int, list[int]] = collections.defaultdict(list)
    for entry in _PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:  # None: the process ended while we looked
                children[int(fields[1])].append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def parent(pid: int) -> int | None:
    """The parent of `pid`, or None when it is gone (or /proc is absent)."""
    fields = _stat_fields(pid)
    return int(fields[1]) if fields is not None else None


def running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a killed child nobody has reaped yet)."""
    fields = _stat_fields(pid)
    if fields is None:
        return not _PROC.is_dir() and _exists(pid)
    return fields[0] != "Z"


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_quietly(pid: int, sig: int, *, group: bool = False) -> None:
    """Send `sig` to `pid` (its process group with `group`); a process already gone is fine.
    A group holding a process we may not signal (a sandboxed child under another uid) still
    gets its leader signalled."""
    try:
        (os.killpg if group else os.kill)(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        if not group:
            raise
        signal_quietly(pid, sig)


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and everything under it (a browser, its renderers, a driver). The tree
    is read first: children whose parent is gone are re-parented and could not be found."""
    for target in [pid, *descendants(pid)]:
        signal_quietly(target, signal.SIGKILL)


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies, even by ``kill -9``; a browser
    driver under it sees its pipe close and takes the browser down with it. Call it first
    thing in a child (or pass it as a process pool's ``initializer``)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        parent_process = mp.parent_process()
        if parent_process is not None and os.getppid() != parent_process.pid:  # the parent died before the call
            os._exit(1)
