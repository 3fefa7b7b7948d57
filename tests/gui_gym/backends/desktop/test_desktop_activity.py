"""What `activity` reads from the process table: a terminal's command still running, the
processes of a tree, and the programs an action started."""

from __future__ import annotations

import subprocess
import sys

from gui_gym.backends.desktop.inside.activity import NewPrograms, Process, terminal_jobs, terminal_sessions, tree
from gui_gym.runtime.waiting import wait_until


def process(pid: int, ppid: int = 1, group: int | None = None, session: int | None = None, tty: int = 0,
            foreground: int = -1) -> Process:
    return Process(pid, "S", ppid, group or pid, session or pid, tty, foreground, 0)


SHELL_AT_ITS_PROMPT = process(10, tty=34816, foreground=10)
SHELL_RUNNING_SLEEP = process(20, tty=34817, foreground=21)
SLEEP = process(21, ppid=20, group=21, session=20, tty=34817, foreground=21)
BACKGROUND_JOB = process(11, ppid=10, group=11, session=10, tty=34816, foreground=10)
APP = process(30)
"""A shell waiting at its prompt with a job in the background, a shell whose foreground job is
``sleep``, and an app started outside any terminal."""
TABLE = {p.pid: p for p in (SHELL_AT_ITS_PROMPT, SHELL_RUNNING_SLEEP, SLEEP, BACKGROUND_JOB, APP)}


def test_a_terminal_whose_foreground_is_not_its_shell_runs_a_command():
    assert terminal_jobs(TABLE) == [20]


def test_a_terminal_s_session_holds_its_shell_and_every_job_of_it_but_no_app():
    assert terminal_sessions(TABLE) == {10, 11, 20, 21}


def test_a_tree_is_its_roots_still_there_and_everything_under_them():
    assert tree(TABLE, {20, 99}) == {20, 21}
    assert tree(TABLE, {1}) == set()


def test_new_programs_are_those_started_after_it_was_made_and_start_while_they_run():
    """(On the host other processes come and go too; in the sandbox only the desktop's do.)"""
    programs = NewPrograms(quiet_s=0.05)
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert child.pid in programs.new()
        assert wait_until(lambda: programs.starting(shown=False), 10)
        assert not programs.starting(shown=True)  # the screen shows it: started
    finally:
        child.kill()
        child.wait()
    assert child.pid not in programs.new()
