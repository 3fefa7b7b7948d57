"""Which of the agent's processes the evaluation stops (`agent_processes`), and what it keeps.

The rules first, on a process table shaped like the one a desktop shows after an agent's turn
(taken from a real sandbox: buses and what they activate in the bus's session, a terminal
whose shells each have a session of their own, Chrome launched by the task's setup with its
renderers, a crash handler in a session of its own); then for real, on a sandbox where the
agent's processes were started the way an agent starts them: typed into a terminal, with
``setsid``, as a window of their own."""

from __future__ import annotations

import json
import time

import pytest

from gui_gym.actions import Action
from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.backends.desktop.inside import agent_processes
from gui_gym.backends.desktop.accounts import EVALUATOR_ID, SUDO_ID, USER_ID
from gui_gym.backends.desktop.inside.agent_processes import Process, Sessions, leftovers
from gui_gym.runtime.waiting import wait_until

BOOT_SESSIONS = {7, 10, 13, 29}
"""The session bus (7), the sound server (10), openbox (13), the dock (29)."""
LAUNCHED = {49, 52}
"""Chrome and the socat in front of its DevTools port, launched by the task's setup."""
X_CLIENTS = {13, 29, 49, 190, 223, 400}
PROGRAMS = {300: "/usr/bin/pulseaudio", 310: "/home/user/pulseaudio", 320: "/usr/bin/vlc"}


def process(pid: int, ppid: int, session: int, command: str, uid: int = USER_ID, gid: int = USER_ID,
            state: str = "S") -> Process:
    return Process(pid, ppid, session, state, 0, uid, gid, command)


TABLE = {p.pid: p for p in [
    process(7, 2, 7, "dbus-daemon"), process(11, 1, 10, "pulseaudio"), process(13, 2, 13, "openbox"),
    process(29, 2, 29, "tint2"), process(92, 1, 7, "gvfsd"), process(190, 1, 7, "at-spi2-registryd"),
    process(223, 1, 7, "gnome-terminal-server"),
    process(49, 2, 49, "chromium"), process(72, 49, 49, "chromium"), process(158, 72, 49, "chromium"),
    process(52, 2, 52, "socat"), process(53, 52, 52, "socat"),
    process(66, 1, 65, "chrome_crashpad"),
    process(250, 223, 250, "bash"), process(252, 250, 250, "bash"), process(283, 252, 250, "sleep"),
    process(268, 223, 268, "bash"),
    process(256, 1, 256, "sh"), process(284, 256, 256, "sleep"),
    process(400, 250, 250, "python3"), process(401, 400, 250, "sh"),
    process(300, 1, 299, "pulseaudio"), process(310, 1, 309, "pulseaudio"), process(320, 250, 250, "vlc"),
    process(330, 256, 330, "sh", uid=SUDO_ID, gid=SUDO_ID),
    process(340, 2, 1, "bash", gid=EVALUATOR_ID),
    process(350, 250, 250, "defunct", state="Z"),
]}
"""pid 400: a Python window the agent opened from its terminal (an X client), 401 what it runs;
300: a sound server the agent restarted, 310 a script named like one; 320: VLC without a window;
330: a loop as sudo's root; 340: a command of the evaluation's own."""


def test_only_what_the_evaluation_may_need_keeps_running():
    stopped = leftovers(TABLE, BOOT_SESSIONS | LAUNCHED, X_CLIENTS, lambda p: PROGRAMS.get(p.pid, "/usr/bin/" + p.command))
    assert [p.pid for p in stopped] == [250, 256, 268, 330, 66, 252, 283, 284, 310]
    # kept: the desktop's sessions (buses, what they activated, the terminal's server), the task's
    # Chrome with its renderers and socat, the window the agent opened and what it runs in its
    # session, the sound server and VLC the agent started; never touched: other ids, zombies
    # stopped: each terminal's shell (session leaders first) and its jobs, the setsid loop, the
    # script named like the sound server, the crash handler, sudo's root's loop


def test_a_session_number_given_again_to_a_new_leader_is_not_the_recorded_session(monkeypatch):
    """A session's number is its leader's pid: once the session is empty, the kernel may give it
    to a process of the agent's that then calls setsid; its start tells it apart."""
    leaders = {5: process(5, 1, 5, "dbus-daemon")}
    monkeypatch.setattr(agent_processes, "_read", lambda pid: leaders.get(pid))
    sessions = Sessions()
    sessions.add(5)
    sessions.add(6)  # its leader already gone (the sound server forks and its first process exits)
    assert 5 in sessions and 6 in sessions and 8 not in sessions
    leaders[5] = Process(5, 1, 5, "S", 999, USER_ID, USER_ID, "sh")  # the number again, a later start
    leaders[6] = Process(6, 1, 6, "S", 999, USER_ID, USER_ID, "sh")
    assert 5 not in sessions and 6 not in sessions
    leaders[6] = Process(6, 1, 4, "S", 999, USER_ID, USER_ID, "sh")  # the pid again, not a session's leader
    assert 6 in sessions


# ---- on a real desktop ---------------------------------------------------------------------

XCLIENT = ("from Xlib import display; import subprocess, time\n"
           "d = display.Display(); w = d.screen().root.create_window(0, 0, 20, 20, 0, d.screen().root_depth); "
           "w.map(); d.flush()\n"
           "subprocess.Popen(['sleep', '1000'])\n"
           "while True: time.sleep(0.1)\n")
"""A window of the agent's own, and what it runs in its session."""


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1024, 768), shell="openbox", pool_size=0))
    backend.start()
    yield backend
    backend.close()


def sh(backend: DesktopBackend, script: str, timeout_s: float = 60) -> dict:
    return backend.client.execute(["sh", "-c", script], timeout_s=timeout_s)


def pids(backend: DesktopBackend, pattern: str) -> list[int]:
    """The processes whose command line matches `pattern` (one that cannot match its own line)."""
    return sorted(int(p) for p in sh(backend, f"pgrep -f {pattern!r} || true")["output"].split())


def state(backend: DesktopBackend, pid: int) -> str:
    return sh(backend, f"cut -d' ' -f3 /proc/{pid}/stat")["output"].strip()


def type_in_terminal(backend: DesktopBackend, line: str) -> None:
    """Open a terminal with ctrl+alt+t and type `line` into it, as the agent does."""
    count = len(pids(backend, "^bash$"))
    backend.execute(Action.hotkey("ctrl", "alt", "t"))
    assert wait_until(lambda: len(pids(backend, "^bash$")) > count, 30), "no terminal opened"
    time.sleep(1)  # the shell reads its start-up files before it reads the keyboard
    backend.execute(Action.type(line + "\n"))


@pytest.mark.slow
def test_the_agents_loops_stop_and_what_getters_query_keeps_running(desktop):
    """Before: every process the agent left ran through the evaluation. Now its terminals'
    shells, their jobs and a ``setsid`` loop stop (and stay stopped), while the task's Chrome
    (its DevTools port answers through the task's socat), the sound server, the accessibility
    bus, the terminal's window and a window of the agent's own keep running; the shells still
    save their history when the evaluation kills their terminal (four tasks read it); and what
    the evaluation then runs is the user's with the evaluator's group."""
    client = desktop.client
    client.launch(["google-chrome", "--remote-debugging-port=1337", "--headless=new"])
    client.launch(["socat", "tcp-listen:9222,fork,reuseaddr", "tcp:localhost:1337"])
    type_in_terminal(desktop, "(while :; do sleep 0.2; done) & echo typed-in-the-terminal")
    client.execute(["sh", "-c", "setsid -f sh -c 'while :; do sleep 0.2; done' >/dev/null 2>&1; "
                                "setsid -f python -c \"$0\" >/dev/null 2>&1", XCLIENT])
    assert wait_until(lambda: len(pids(desktop, "^sleep 1000$")) == 1 and "Browser" in sh(
        desktop, "curl -s localhost:9222/json/version || true")["output"], 60)  # the window is up: it ran its child
    window, chrome = pids(desktop, "[X]lib")[0], pids(desktop, "[r]emote-debugging-port")[0]
    windows_child = pids(desktop, "^sleep 1000$")[0]
    loops = pids(desktop, "^bash$") + pids(desktop, "[w]hile :; do sleep 0.2")  # the shell, its job, the setsid loop
    assert len(loops) == 3

    stopped = {p["pid"] for p in client.begin_evaluation()}

    assert set(loops) <= stopped and not {window, windows_child, chrome} & stopped
    assert {state(desktop, pid) for pid in loops} == {"T"}
    assert {state(desktop, pid) for pid in (window, chrome)} <= {"S", "R"}
    assert sh(desktop, "sleep 1; ps -o state= -p " + " ".join(map(str, loops)))["output"].split() == ["T"] * len(loops)
    assert "Browser" in json.loads(sh(desktop, "curl -s --max-time 10 localhost:9222/json/version")["output"])
    assert sh(desktop, "pactl info >/dev/null && echo sound")["output"] == "sound\n"
    assert "gnome-terminal" in client.accessibility_tree()
    assert sh(desktop, "id -u; id -g; id -G")["output"].split() == [str(USER_ID), str(EVALUATOR_ID),
                                                                     str(EVALUATOR_ID), str(USER_ID)]
    sh(desktop, "killall gnome-terminal-server")
    assert wait_until(lambda: "typed-in-the-terminal" in sh(desktop, "cat ~/.bash_history")["output"], 10)
