"""Process trees from /proc: finding everything under a process, telling a zombie from a
live one, killing a tree, signalling a process already gone."""

from __future__ import annotations

import os
import signal
import subprocess

from gui_gym.runtime.processes import descendants, kill_tree, parent, running, signal_quietly
from gui_gym.runtime.waiting import wait_until


def test_kill_tree_kills_a_process_and_everything_under_it():
    shell = subprocess.Popen(["bash", "-c", "sleep 300 & sleep 300 & wait"])
    assert wait_until(lambda: len(descendants(shell.pid)) == 2, timeout_s=10)
    children = descendants(shell.pid)
    assert all(parent(pid) == shell.pid for pid in children) and parent(shell.pid) == os.getpid()
    assert running(shell.pid) and all(running(pid) for pid in children)
    kill_tree(shell.pid)
    assert wait_until(lambda: not running(shell.pid), timeout_s=10), "a killed child that is not reaped is a zombie"
    shell.wait(timeout=10)
    assert wait_until(lambda: not any(running(pid) for pid in children), timeout_s=10)
    assert parent(shell.pid) is None and descendants(shell.pid) == []
    signal_quietly(shell.pid, signal.SIGKILL)  # a process already gone is no error
