"""The process-tree helper: a tree found under its root, killed whole, and a dead process told
from a live one."""

from __future__ import annotations

import os
import signal
import subprocess

from gui_gym.processes import alive, descendants, kill_tree, signal_quietly
from gui_gym.waiting import wait_until


def test_kill_tree_kills_a_process_and_everything_under_it():
    shell = subprocess.Popen(["bash", "-c", "sleep 300 & sleep 300 & wait"])
    assert wait_until(lambda: len(descendants(shell.pid)) == 2, timeout_s=10)
    children = descendants(shell.pid)
    assert all(alive(pid) for pid in children) and os.getpid() not in children
    kill_tree(shell.pid)
    shell.wait(timeout=10)
    assert wait_until(lambda: not any(alive(pid) for pid in children), timeout_s=10)
    assert not alive(shell.pid)  # reaped: gone from /proc
    signal_quietly(shell.pid, signal.SIGKILL)  # a process already gone is no error
    assert descendants(shell.pid) == []
