"""When the desktop is ready for the agent, and when it is done with the agent's work: checks,
not OSWorld's fixed sleeps (60 s after a reset, 20 s before the evaluation).

- `apps_ready`: every program the task's setup launched is up. No splash screen is on the
  desktop (GIMP's "Querying new plug-ins", LibreOffice's logo); each launched program that
  shows windows has a normal window mapped; and all of them are idle by CPU for `QUIET_S`.
  A program that has shown no window while idle for `WINDOWLESS_QUIET_S` draws none (a port
  forwarder, a launcher whose window belongs to a server elsewhere); one whose window has been
  up for `BUSY_WITH_WINDOW_S` counts as started even while busy (a video that plays keeps its
  player busy for good). Then the screen holds still. Without this a reset returned while
  GIMP's splash was up, and the main window that came later took the keys the agent typed
  into its terminal.
- `desktop_idle`: no command the agent started in a terminal still runs (the terminal's
  foreground job is its shell, and nothing of a terminal's session is running), and no file in
  the home changed, for `QUIET_S`. A command that draws nothing (``pkill vlc; sleep 1; echo
  ... >> vlcrc``) is seen here and not on the screen.

Both are bounded by the caller and say what they still waited for when the bound came.
"""

from __future__ import annotations

import os
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from gui_gym.backends.desktop.inside import activity
from gui_gym.backends.desktop.inside.ewmh import client_windows

QUIET_S = 0.5
"""How long the desktop must hold quiet to count as ready or idle."""
IDLE_CPU_SHARE = 0.05
"""A program using less than this share of one CPU is idle (timers, a blinking caret)."""
WINDOWLESS_QUIET_S = 2.0
BUSY_WITH_WINDOW_S = 10.0
POLL_S = 0.1
WINDOW_TYPES = frozenset({"NORMAL", "DIALOG"})
"""Window types that show a program is up; a ``SPLASH`` shows it is still starting."""
MAX_HOME_ENTRIES = 20_000
"""Most files and folders of the home looked at for changes (the agent may make millions)."""
CLOCK_TICKS_S = os.sysconf("SC_CLK_TCK")


@dataclass
class Readiness:
    """How a wait ended: `ready` when the checks held within the bound; otherwise `pending`
    names what was still awaited."""

    ready: bool
    elapsed_s: float
    pending: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"ready": self.ready, "elapsed_s": self.elapsed_s, "pending": self.pending}


class _CpuHistory:
    """CPU time of a set of processes over the last seconds, to tell how long they were idle."""

    def __init__(self) -> None:
        self.samples: deque[tuple[float, int]] = deque()

    def add(self, now: float, ticks: int) -> None:
        self.samples.append((now, ticks))
        while len(self.samples) > 2 and now - self.samples[1][0] > max(WINDOWLESS_QUIET_S, QUIET_S) + 1:
            self.samples.popleft()

    def idle_for(self, seconds: float) -> bool:
        """Whether the CPU used over the last `seconds` stayed under `IDLE_CPU_SHARE` (False
        until the samples span that long)."""
        now, ticks = self.samples[-1]
        past = next(((t, v) for t, v in reversed(self.samples) if now - t >= seconds), None)
        if past is None:
            return False
        return max(0, ticks - past[1]) / CLOCK_TICKS_S <= IDLE_CPU_SHARE * (now - past[0])


def apps_ready(launched: list[int], timeout_s: float, display: str = ":0") -> Readiness:
    """Wait until the programs `launched` (pids) are up (see the module docstring)."""
    from Xlib import display as xdisplay

    started = time.monotonic()
    deadline = started + timeout_s
    history = _CpuHistory()
    window_since: dict[int, float] = {}
    conn = xdisplay.Display(display)
    try:
        while True:
            now = time.monotonic()
            table = activity.process_table()
            roots = [pid for pid in launched if pid in table and table[pid].state != "Z"]
            trees = {root: activity.tree(table, {root}) for root in roots}
            history.add(now, sum(table[pid].cpu_ticks for pids in trees.values() for pid in pids))
            windows = client_windows(conn)
            pending = ["a splash screen"] if any("SPLASH" in w.types for w in windows) else []
            quiet = history.idle_for(QUIET_S)
            for root, pids in trees.items():
                if any(w.pid in pids and w.types & WINDOW_TYPES for w in windows):
                    window_since.setdefault(root, now)
                    if not quiet and now - window_since[root] < BUSY_WITH_WINDOW_S:
                        pending.append(f"{_name(root)} (pid {root}) to go idle")
                elif not history.idle_for(WINDOWLESS_QUIET_S):
                    pending.append(f"a window of {_name(root)} (pid {root})")
            if not pending:
                return Readiness(True, now - started)
            if now >= deadline:
                return Readiness(False, now - started, pending)
            time.sleep(POLL_S)
    finally:
        conn.close()


def desktop_idle(home: Path, timeout_s: float, quiet_s: float = QUIET_S) -> Readiness:
    """Wait until nothing the agent started is at work: see the module docstring."""
    started = time.monotonic()
    deadline = started + timeout_s
    last_busy = started
    files = home_signature(home)
    while True:
        table = activity.process_table()
        pending = [f"the command in terminal session {leader}" for leader in activity.terminal_jobs(table)]
        if any(activity.is_running(pid) for pid in activity.terminal_sessions(table)):
            pending.append("a terminal's processes")
        now_files = home_signature(home)
        if now_files != files:
            pending.append(f"files in {home}")
            files = now_files
        now = time.monotonic()
        if pending:
            last_busy = now
        elif now - last_busy >= quiet_s:
            return Readiness(True, now - started)
        if now >= deadline:
            return Readiness(False, now - started, pending)
        time.sleep(POLL_S)


def home_signature(home: Path) -> int:
    """A checksum of the names, sizes and modification times under `home` (links not
    followed), over at most `MAX_HOME_ENTRIES` entries."""
    checksum, seen = 0, 0
    stack = [str(home)]
    while stack and seen < MAX_HOME_ENTRIES:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:  # gone, or not a folder any more
            continue
        for entry in entries:
            seen += 1
            try:
                info = entry.stat(follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                continue
            checksum = zlib.crc32(f"{entry.path}\0{info.st_size}\0{info.st_mtime_ns}".encode(), checksum)
    return checksum


def _name(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "comm").read_text().strip()
    except OSError:
        return "a program"
