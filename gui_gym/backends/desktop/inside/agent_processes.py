"""The processes the agent leaves running, stopped when the evaluation begins.

When the agent is done its processes still run, as ``user`` or as the root ``sudo`` gives
(`accounts.SUDO_ID`): a loop it left in a terminal can rewrite a checker script the evaluation
downloads between its download and its run, or trace the evaluation's commands. OSWorld's
getters need much of the desktop alive, though (Chrome's renderers behind the DevTools port,
VLC's HTTP status, the sound server, the accessibility bus, a clipboard's owner), so not
everything can stop. `stop_leftovers` stops (``SIGSTOP``, never resumed: the desktop ends with
the episode) every process of the agent's ids but those the evaluation may need:

- **the sessions the desktop and the task started** (`Sessions`): the desktop's own at boot
  (buses and what they activate, the window manager or GNOME Shell, the sound server) and
  each program the task's setup launched (Chrome, the ``socat`` in front of its DevTools port);
  a session cannot be joined, only started, so the agent's terminals and ``setsid`` are never
  among them;
- **X clients and what they started in their own session**: the apps on the screen and their
  helper processes (Chrome's renderers), and a clipboard's owner (``xsel``): the X server
  names each client's process, which the process cannot forge;
- **the programs getters query while they run, wherever started** (`KEPT_PROGRAMS`, read from
  the kernel's ``/proc/<pid>/exe``, which names a file of the read-only system: the sound
  server an agent restarted, a VLC or Chromium without a window), and what they started in
  their session.

Everything else stops: the terminals' shells and their jobs, background loops, scripts started
with ``nohup`` or ``setsid``, anything orphaned. Shells stop first: a shell that saw its job
stop would print "Stopped" in its terminal. A stopped process still shows in ``ps``, as tasks
that look for one expect, and a stopped shell still saves its history when its terminal is
killed (the kernel sends the hangup with a ``SIGCONT``), which four tasks' evaluations do
before they read ``~/.bash_history``. That resumes it, and a job it resumes in turn, if either
ignores the hangup; and a kept process may resume one (same user). What this cannot stop at
all is code the agent put inside a kept process (a macro, an extension, a window of its own):
the files the evaluation brings are guarded apart (`guarded_files`) and its commands run under
a group the agent's processes cannot trace (`Session.evaluating`), docs/security.md.
"""

from __future__ import annotations

import ctypes
import os
import signal
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gui_gym.backends.desktop.accounts import EVALUATOR_ID, SUDO_ID, USER_ID

PROC = Path("/proc")
AGENT_IDS = frozenset({USER_ID, SUDO_ID})
KEPT_PROGRAMS = frozenset({"pulseaudio", "vlc", "chromium", "soffice.bin"})
"""Programs (the file name of their executable, under ``/usr``) whose running state a getter or
a postconfig step reads: ``pactl``'s sound server, VLC's HTTP status, Chrome's DevTools port,
the LibreOffice instance a ``--convert-to`` hands its work to."""
SYSTEM_PREFIX = "/usr/"
"""Where kept programs live: the host's read-only system, where the agent can put no file."""
MAX_PASSES = 8
"""Rounds of stopping: a process a leftover started while the first round ran is found in the next."""


@dataclass(frozen=True)
class Process:
    """What `stop_leftovers` reads of one process (``/proc/<pid>/stat`` and ``status``)."""

    pid: int
    ppid: int
    session: int
    state: str
    start_ticks: int
    uid: int
    gid: int
    command: str


def process_table() -> dict[int, Process]:
    """Every visible process, by pid (those that end while they are read are left out)."""
    table = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            process = _read(int(entry.name))
            if process is not None:
                table[process.pid] = process
    return table


def _read(pid: int) -> Process | None:
    try:
        stat = (PROC / str(pid) / "stat").read_bytes()
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return None
    command, fields = stat[stat.index(b"(") + 1:stat.rindex(b")")], stat[stat.rindex(b")") + 2:].split()
    ids = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith(("Uid:", "Gid:"))}
    return Process(pid, int(fields[1]), int(fields[3]), fields[0].decode(), int(fields[19]), ids["Uid"], ids["Gid"],
                   command.decode(errors="replace"))


class Sessions:
    """The sessions the desktop and the task started (the kept ones), each with the start time
    of its leader: a session's number is its leader's pid, which the kernel may give to a new
    process once the session is empty, and a process of the agent's that then calls ``setsid``
    would hold the number again; it is told apart by its start."""

    def __init__(self) -> None:
        self._leaders: dict[int, int | None] = {}

    def add_all(self) -> None:
        """Every session that exists now (the desktop's, once it has started)."""
        for process in process_table().values():
            self.add(process.session)

    def add(self, session: int) -> None:
        leader = _read(session)
        self._leaders[session] = leader.start_ticks if leader is not None and leader.session == session else None

    def __contains__(self, session: int) -> bool:
        if session not in self._leaders:
            return False
        leader = _read(session)
        return leader is None or leader.session != session or leader.start_ticks == self._leaders[session]


def x_client_pids(display: str = ":0") -> set[int]:
    """The processes the X server knows as its clients (it reads each one's pid from the socket)."""
    from Xlib import display as xdisplay
    from Xlib.ext import res

    conn = xdisplay.Display(display)
    try:
        reply = conn.res_query_client_ids([{"client": 0, "mask": res.LocalClientPIDMask}])
    finally:
        conn.close()
    return {int(found.value[0]) for found in reply.ids if found.spec.mask & res.LocalClientPIDMask and found.value}


def executable(process: Process) -> str | None:
    """The program `process` runs (``/proc/<pid>/exe``), None when it cannot be read. The kernel
    shows it to the process's own ids only (our server may not trace), so this thread takes them
    for its file access (``setfsuid``: this thread alone, and back after)."""
    if os.getuid() != 0:
        return _readlink(process.pid)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.setfsgid(process.gid)
    libc.setfsuid(process.uid)
    try:
        return _readlink(process.pid)
    finally:
        libc.setfsuid(0)
        libc.setfsgid(0)


def _readlink(pid: int) -> str | None:
    try:
        return os.readlink(PROC / str(pid) / "exe")
    except OSError:
        return None


def leftovers(table: dict[int, Process], sessions: Sessions, x_clients: set[int],
              program: Callable[[Process], str | None] = executable) -> list[Process]:
    """The agent's processes in `table` that the evaluation does not need (the module docstring
    says which it needs), session leaders first."""
    agent = {pid: p for pid, p in table.items() if p.uid in AGENT_IDS and p.gid != EVALUATOR_ID and p.state != "Z"}
    kept = {pid for pid, p in agent.items() if p.session in sessions}
    roots = [pid for pid in agent if pid not in kept and (pid in x_clients or _kept_program(program(agent[pid])))]
    children: dict[int, list[int]] = defaultdict(list)
    for p in agent.values():
        children[p.ppid].append(p.pid)
    for root in roots:
        stack = [root]
        while stack:
            pid = stack.pop()
            kept.add(pid)
            stack += [child for child in children[pid] if agent[child].session == agent[root].session]
    return sorted((p for pid, p in agent.items() if pid not in kept), key=lambda p: (p.pid != p.session, p.pid))


def _kept_program(path: str | None) -> bool:
    return path is not None and path.startswith(SYSTEM_PREFIX) and os.path.basename(path) in KEPT_PROGRAMS


def stop_leftovers(sessions: Sessions, display: str = ":0") -> list[Process]:
    """Stop the agent's processes the evaluation does not need (`leftovers`), session leaders
    first; again while a round finds more (a leftover may have started one meanwhile). What was
    stopped."""
    stopped: dict[int, Process] = {}
    for _ in range(MAX_PASSES):
        found = [p for p in leftovers(process_table(), sessions, x_client_pids(display)) if p.pid not in stopped]
        if not found:
            break
        for p in found:
            try:
                os.kill(p.pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            stopped[p.pid] = p
    return list(stopped.values())
