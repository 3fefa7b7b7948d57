"""Process trees: find, kill and outlive nothing. One helper for the harness's workers (a
browser and its renderers under each) and the desktop sandbox (a whole session under its
bubblewrap process).

Linux only where it matters: the tree is read from ``/proc`` (elsewhere none is found) and
`die_with_parent` uses ``PR_SET_PDEATHSIG``.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (children first, then theirs), read from ``/proc``."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # the process ended while we looked
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def signal_quietly(pid: int, sig: int, *, group: bool = False) -> None:
    """Send `sig` to `pid` (its process group with `group`); a process already gone is fine."""
    try:
        (os.killpg if group else os.kill)(pid, sig)
    except ProcessLookupError:
        pass


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and everything under it (a browser, its renderers, a driver)."""
    for target in [pid, *descendants(pid)]:
        signal_quietly(target, signal.SIGKILL)


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies, even by ``kill -9``; a browser
    driver under it sees its pipe close and takes the browser down with it. Call it first
    thing in a child (or pass it as a process pool's ``initializer``)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        parent = mp.parent_process()
        if parent is not None and os.getppid() != parent.pid:  # the parent died before the call
            os._exit(1)
