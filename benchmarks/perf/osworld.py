"""Reset, step, episode time and memory of ``GUI/OSWorld-v0`` on the local provider, next to the
fixed waits of OSWorld's own runner.

    python -m gui_gym.benchmarks.perf.osworld                      # every bundled sample task
    python -m gui_gym.benchmarks.perf.osworld --task sample-calc-sum-column --screen 1920x1080
    python -m gui_gym.benchmarks.perf.osworld --pool-size 1          # only the warm pool, no cold baseline
    python -m gui_gym.benchmarks.perf.osworld --shell gnome --shell openbox --pool-size 1   # the two desktops

Each task is reset and solved by its oracle. Reset time is the env's ``reset_time_s`` (a fresh
sandboxed desktop, the task's setup steps, settling); step time is ``step_time_s`` of the
non-final steps (parse, action, settle by screen stability, screenshot); evaluation time is
the final step's ``evaluate_time_s`` (the wait for the desktop to be idle, postconfig, getters,
metrics); episode time is the whole of it, reset to score; memory is the resident memory of
this process and every process under it (the current desktop sandbox and the pooled one) at
the end of each episode. OSWorld's runner
(``lib_run_single``) sleeps 60 s after every reset and 20 s before every evaluation, and its
``DesktopEnv.step`` pauses 2 s by default after every action; those waits are printed beside
ours (OSWorld's own reset, reverting a VM snapshot, comes on top of its 60 s).

By default the whole set runs twice in one process: with ``pool_size=0`` (every episode's
desktop boots when its reset asks) and with the warm pool (``pool_size=1``: the next desktop
boots while the current episode runs), and the median resets are printed with their ratio.
With more than one ``--shell`` each runs the same way, one after the other. The load average is
printed beside them: on a shared machine a figure means little without it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass, field

import gymnasium as gym

import gui_gym  # noqa: F401 - registers the GUI/* ids
from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS
from gui_gym.benchmarks.perf.desktop_shell import resident_mib
from gui_gym.runtime.processes import descendants

OSWORLD_RESET_WAIT_S = 60.0
OSWORLD_EVAL_WAIT_S = 20.0
OSWORLD_STEP_PAUSE_S = 2.0


@dataclass
class TaskTiming:
    task_id: str
    reset_s: float
    step_s: list[float] = field(default_factory=list)
    settle_s: list[float] = field(default_factory=list)
    evaluate_s: float = 0.0
    score: float = 0.0
    episode_s: float = 0.0
    memory_mib: float = 0.0
    """Resident memory of this process and its descendants at the end of the episode."""


def measure(env: gym.Env, task_id: str) -> TaskTiming:
    base = env.unwrapped
    started = time.monotonic()
    _, info = env.reset(options={"task_id": task_id})
    timing = TaskTiming(task_id, info["reset_time_s"])
    terminated = truncated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(base.oracle_action())
        if terminated or truncated:
            timing.evaluate_s, timing.score = info.get("evaluate_time_s", 0.0), reward
        else:
            timing.step_s.append(info["step_time_s"])
            timing.settle_s.append(info["settle_time_s"])
    timing.episode_s = time.monotonic() - started
    timing.memory_mib = sum(resident_mib([os.getpid(), *descendants(os.getpid())]).values())
    return timing


def table(timings: list[TaskTiming]) -> str:
    rows = [("task", "reset s", "steps", "step s (mean)", "settle s", "eval s", "episode s", "MiB", "score")]
    for t in timings:
        rows.append((t.task_id, f"{t.reset_s:.2f}", str(len(t.step_s)),
                     f"{statistics.mean(t.step_s):.2f}" if t.step_s else "-",
                     f"{statistics.mean(t.settle_s):.2f}" if t.settle_s else "-", f"{t.evaluate_s:.2f}",
                     f"{t.episode_s:.1f}", f"{t.memory_mib:.0f}", f"{t.score:g}"))
    steps = [s for t in timings for s in t.step_s]
    rows.append(("ALL (median)", f"{statistics.median(t.reset_s for t in timings):.2f}", str(len(steps)),
                 f"{statistics.median(steps):.2f}" if steps else "-", "",
                 f"{statistics.median(t.evaluate_s for t in timings):.2f}",
                 f"{statistics.median(t.episode_s for t in timings):.1f}",
                 f"{statistics.median(t.memory_mib for t in timings):.0f}", ""))
    rows.append(("OSWorld fixed waits", f"{OSWORLD_RESET_WAIT_S:.0f} + revert", "", f"{OSWORLD_STEP_PAUSE_S:.0f} + action",
                 "", f"{OSWORLD_EVAL_WAIT_S:.0f} + eval", "", "", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     for row in rows)


def run(task_ids: list[str] | None, size: tuple[int, int], pool_size: int, shell: str = DEFAULT_SHELL) -> list[TaskTiming]:
    env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample", screen_size=size, pool_size=pool_size,
                   shell=shell)
    try:
        return [measure(env, task_id) for task_id in (task_ids or env.unwrapped.task_ids)]
    finally:
        env.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", help="a sample task id (repeatable; default: all)")
    parser.add_argument("--screen", default="1920x1080", help="screen size WxH (default OSWorld's 1920x1080)")
    parser.add_argument("--pool-size", type=int, action="append", dest="pool_sizes",
                        help="desktops booted ahead (repeatable; default: 0 then 1, compared)")
    parser.add_argument("--shell", action="append", choices=SHELLS, dest="shells",
                        help=f"the desktop (repeatable; default {DEFAULT_SHELL})")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.screen.lower().split("x"))
    medians = {}
    for shell in args.shells or [DEFAULT_SHELL]:
        for pool_size in args.pool_sizes or [0, 1]:
            timings = run(args.task, (width, height), pool_size, shell)
            medians[shell, pool_size] = statistics.median(t.reset_s for t in timings)
            print(f"GUI/OSWorld-v0, local provider, shell={shell}, {width}x{height}, pool_size={pool_size}, "
                  f"oracle solutions, load average {os.getloadavg()[0]:.2f}")
            print(table(timings))
            print()
    base = next(iter(medians))
    for (shell, pool_size), median in medians.items():
        print(f"median reset, shell={shell}, pool_size={pool_size}: {median:.2f} s ({median / medians[base]:.2f}x "
              f"of shell={base[0]}, pool_size={base[1]})")


if __name__ == "__main__":
    main()
