"""Processes we start and what we do when they stop answering: find a process tree, kill it,
and bound a blocking call by killing what it waits on.

A call into a process that hangs (a frozen browser answering no protocol message) cannot be
interrupted from Python; killing the process it waits on makes the call fail at once, which
the caller turns into an infrastructure error and a relaunch. `deadline` arms that kill.
"""

from __future__ import annotations

import collections
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (Linux /proc; elsewhere none are found)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children[ppid].append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and everything under it (a browser, its renderers, a driver)."""
    for target in [pid, *descendants(pid)]:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@contextmanager
def deadline(timeout_s: float, on_expiry: Callable[[], None]) -> Iterator[threading.Event]:
    """Run the block; if it is still running after `timeout_s`, call `on_expiry` from a
    watchdog thread (it should kill whatever the block waits on). Yields an event that is set
    once the deadline has fired, so the block's caller can tell a kill from a plain failure."""
    fired = threading.Event()

    def expire() -> None:
        fired.set()
        on_expiry()

    timer = threading.Timer(timeout_s, expire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()
