"""Is the desktop working? Read from ``/proc`` inside the sandbox, which (with a private PID
namespace) lists only the desktop's own processes.

A thread in state R (running or waiting for a CPU) means an application has work queued:
after an action that is the surest sign it has not answered yet, even on a loaded host where
it gets no CPU for a while and its window does not change. Our own server's threads (which
take the screenshots) are left out, and so is the X server: it runs whenever a frame is
captured, so counting it would make every capture look like work (a wait for a second of
quiet then never ends), while an application that draws is itself running.

Work that draws nothing shows here too: a command still running in a terminal (the terminal's
foreground process group is not its shell's: `terminal_jobs`), however idle it looks (``sleep
1; echo ... >> file``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
IGNORED_COMMANDS = frozenset({b"Xvfb", b"Xorg", b"Xwayland"})
"""Display servers: they do the capturing's work, not the applications'."""


@dataclass(frozen=True)
class Process:
    """One line of the process table (``/proc/<pid>/stat``)."""

    pid: int
    state: str
    """``R`` running, ``S`` sleeping, ``Z`` exited but not reaped..."""
    ppid: int
    group: int
    """Process group."""
    session: int
    tty: int
    """Controlling terminal (0: none)."""
    foreground: int
    """The foreground process group of its terminal (-1: none)."""
    cpu_ticks: int
    """CPU time used, its own and its reaped children's, in clock ticks."""


def _stat(path: Path) -> list[bytes] | None:
    """The fields of a ``stat`` file after the command name (which may hold spaces), or None
    when the process or thread is gone."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()


def process_table() -> dict[int, Process]:
    """Every visible process, by pid."""
    table = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(entry / "stat")
        if fields is None:
            continue
        pid = int(entry.name)
        table[pid] = Process(pid, fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[4]), int(fields[5]),
                             sum(int(value) for value in fields[11:15]))
    return table


def tree(table: dict[int, Process], roots: set[int]) -> set[int]:
    """`roots` (those still in the table) and every process under them."""
    found = {pid for pid in roots if pid in table}
    grew = True
    while grew:
        children = {p.pid for p in table.values() if p.ppid in found} - found
        found |= children
        grew = bool(children)
    return found


def is_running(pid: int) -> bool:
    """Whether one of the process's threads is running or runnable."""
    try:
        threads = list((PROC / str(pid) / "task").iterdir())
    except OSError:  # the process exited while we looked
        return False
    return any((fields := _stat(thread / "stat")) is not None and fields[0] == b"R" for thread in threads)


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
            fields = _stat(task / "stat")
            if fields is not None and fields[0] == b"R":
                count += 1
    return count


def busy() -> bool:
    """True while some thread of the desktop (other than this server) is running."""
    return running_threads() > 0


def terminal_jobs(table: dict[int, Process]) -> list[int]:
    """Sessions on a terminal (a shell in a terminal window) running a command in the
    foreground: the terminal's foreground process group is not the shell's own. Their leaders."""
    return [p.pid for p in table.values()
            if p.pid == p.session and p.tty and p.foreground not in (-1, p.group)]


def terminal_sessions(table: dict[int, Process]) -> set[int]:
    """Every process of a session that has a terminal: what the agent typed, foreground or not."""
    sessions = {p.session for p in table.values() if p.pid == p.session and p.tty}
    return {p.pid for p in table.values() if p.session in sessions}


class NewPrograms:
    """What an action started: the processes started after it was made, and with
    `expect_window` (a key chord that opens a window, ctrl+alt+t) the window it opens.

    `starting` says whether the action's start is still under way: with `expect_window`, until
    a new normal window is managed and the screen has changed; otherwise, while the screen has
    not changed and some new process runs, or ran within the last `quiet_s` (a terminal that
    an action opened starts as two new processes, the command and the terminal's server, which
    take turns). A key that launches goes through several processes before anything starts
    (the window manager, the settings daemon's keys, GNOME Terminal's client and server), more
    than a second on a loaded machine: without waiting for the window, the step returned with
    no terminal on the screen and the agent's typing went to the app behind it."""

    def __init__(self, quiet_s: float = 0.5, exclude_pid: int | None = None, expect_window: bool = False,
                 display: str = ":0"):
        self.quiet_s = quiet_s
        self.exclude = exclude_pid if exclude_pid is not None else os.getpid()
        self.before = {int(entry.name) for entry in PROC.iterdir() if entry.name.isdigit()}
        self.last_running = time.monotonic()
        self._conn = None
        self._windows: set[int] = set()
        if expect_window:
            from Xlib import display as xdisplay

            from gui_gym.backends.desktop.inside.ewmh import client_windows

            self._conn = xdisplay.Display(display)
            self._windows = {w.id for w in client_windows(self._conn)}

    def new(self) -> list[int]:
        """The processes started since, still there."""
        return [int(entry.name) for entry in PROC.iterdir()
                if entry.name.isdigit() and int(entry.name) not in self.before and int(entry.name) != self.exclude]

    def starting(self, shown: bool) -> bool:
        """Whether the start is still under way, `shown` saying whether the screen changed."""
        if self._conn is not None:
            return not (shown and self.new_window())
        if shown:
            return False
        new = self.new()
        if not new:
            return False
        now = time.monotonic()
        if any(is_running(pid) for pid in new):
            self.last_running = now
        return now - self.last_running < self.quiet_s

    def new_window(self) -> bool:
        """Whether a normal window that was not there before is managed now."""
        from gui_gym.backends.desktop.inside.ewmh import client_windows

        return any(w.id not in self._windows and "NORMAL" in w.types for w in client_windows(self._conn))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
