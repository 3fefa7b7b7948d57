"""Process trees on Linux, read from /proc: what an env or a worker started, whether it still
runs, and how to take it all down.

Envs start processes that start processes (Playwright's driver starts Chromium, which starts
its zygotes and renderers); killing one leaves the others running unless the whole tree is
found first. Elsewhere than Linux no tree is found and the callers fall back to what their
libraries do.
"""

from __future__ import annotations

import collections
import os
import signal
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
            if fields is not None:
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


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and everything under it (a browser, its renderers, a driver). The tree
    is read first: children whose parent is gone are re-parented and could not be found."""
    for target in [pid, *descendants(pid)]:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass
