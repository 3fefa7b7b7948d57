"""How reliably ctrl+alt+t opens a terminal right after a reset, as an agent presses it.

    python -m gui_gym.benchmarks.perf.terminal_shortcut --tasks-root DIR              # both shells, 20 resets each
    python -m gui_gym.benchmarks.perf.terminal_shortcut --tasks-root DIR --shell gnome --episodes 40

Agents trained on OSWorld's VM open a terminal first thing, often while the task's app is still
starting. Each episode resets a task of OSWorld-Verified that launches an app (VLC, Chrome, GIMP,
Impress; ``--task`` to choose), presses ctrl+alt+t as one step and looks at the desktop through
the server: whether a terminal window is mapped and holds the focus when the step returns
(what the agent's next screenshot shows and where its typing goes), and whether one appears at
all within `--grace` seconds. Counts per shell are printed with the load average: on a shared
machine a figure means little without it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass

import gymnasium as gym

import gui_gym  # noqa: F401 - registers the GUI/* ids
from gui_gym.backends.desktop.shell import SHELLS
from gui_gym.runtime.waiting import wait_until

TASKS = ("vlc/8ba5ae7a-5ae5-4eab-9fcc-5dd4fe3abf89", "chrome/bb5e4c0d-f964-439c-97b6-bdb9747de3f4",
         "gimp/d52d6308-ec58-42b7-a2c9-de80e4837b2b", "libreoffice_impress/2cd43775-7085-45d8-89fa-9e35c0a915cf",
         "os/e0df059f-28a6-4169-924f-b9623e7184cc")
"""Tasks whose setup launches an app (and one that launches none), in turn."""
TERMINAL_CLASSES = ("gnome-terminal-server", "lxterminal")
WINDOWS = "wmctrl -lx; xprop -root _NET_ACTIVE_WINDOW"


@dataclass
class Press:
    task: str
    reset_s: float
    step_s: float
    at_return: bool
    """A terminal was mapped and focused when the step returned."""
    opened: bool
    """A terminal was mapped within the grace period."""
    focused: bool
    """A terminal held the focus at the end of the grace period."""


def terminal_state(env: gym.Env) -> tuple[bool, bool]:
    """(a terminal window is mapped, a terminal window is the active one), read on the desktop."""
    output = env.unwrapped.backend.client.execute(["sh", "-c", WINDOWS])["output"]
    active = output.rsplit("#", 1)[-1].strip() if "#" in output else ""
    terminals = [line.split()[0] for line in output.splitlines()
                 if len(line.split()) > 2 and line.split()[2].split(".")[0] in TERMINAL_CLASSES]
    return bool(terminals), any(active and int(window, 16) == int(active, 16) for window in terminals)


def press_once(env: gym.Env, task_id: str, grace_s: float) -> Press:
    _, info = env.reset(options={"task_id": task_id})
    _, _, _, _, step = env.step("pyautogui.hotkey('ctrl', 'alt', 't')")
    mapped, active = terminal_state(env)
    opened = mapped or bool(wait_until(lambda: terminal_state(env)[0], grace_s, interval_s=0.25))
    focused = terminal_state(env)[1]
    return Press(task_id, info["reset_time_s"], step["step_time_s"], mapped and active, opened, focused)


def run(shell: str, tasks_root: str, tasks: list[str], episodes: int, grace_s: float, size: tuple[int, int]) -> list[Press]:
    env = gym.make("GUI/OSWorld-v0", tasks=tasks_root, provider="local", shell=shell, screen_size=size,
                   allow_download=False)
    try:
        return [press_once(env, tasks[i % len(tasks)].split("/")[-1], grace_s) for i in range(episodes)]
    finally:
        env.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks-root", default=os.environ.get("GUI_GYM_OSWORLD_TASKS"),
                        help="OSWorld's evaluation_examples folder (default $GUI_GYM_OSWORLD_TASKS)")
    parser.add_argument("--shell", action="append", choices=SHELLS, help="repeatable; default: every shell")
    parser.add_argument("--task", action="append", help=f"domain/id, in turn (default: {', '.join(TASKS)})")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--grace", type=float, default=10.0, help="seconds a terminal may take to appear at all")
    parser.add_argument("--screen", default="1920x1080", help="screen size WxH (default OSWorld's 1920x1080)")
    args = parser.parse_args(argv)
    if not args.tasks_root:
        parser.error("pass --tasks-root or set $GUI_GYM_OSWORLD_TASKS")
    size = tuple(int(v) for v in args.screen.lower().split("x"))
    for shell in args.shell or SHELLS:
        presses = run(shell, args.tasks_root, args.task or list(TASKS), args.episodes, args.grace, size)
        print(f"shell={shell}, {len(presses)} resets, load average {os.getloadavg()[0]:.2f}")
        for press in presses:
            print(f"  {press.task[:8]} reset {press.reset_s:5.1f} s  step {press.step_s:4.1f} s  "
                  f"at return {'yes' if press.at_return else 'NO '}  opened {'yes' if press.opened else 'NO '}  "
                  f"focused {'yes' if press.focused else 'NO'}")
        count = len(presses)
        print(f"  terminal shown and focused when the step returned: {sum(p.at_return for p in presses)}/{count}; "
              f"opened within {args.grace:g} s: {sum(p.opened for p in presses)}/{count}; "
              f"focused then: {sum(p.focused for p in presses)}/{count}; median reset "
              f"{statistics.median(p.reset_s for p in presses):.1f} s, median step {statistics.median(p.step_s for p in presses):.1f} s")


if __name__ == "__main__":
    main()
