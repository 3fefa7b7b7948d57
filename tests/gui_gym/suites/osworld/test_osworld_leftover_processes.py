"""What the agent leaves running cannot steer the evaluation of real OSWorld-Verified tasks, on a
local sandbox desktop (issue 46): a loop rewriting the checker script the evaluation downloads
and runs (os/37887e8c's ``eval.sh``) or the gold file its checker reads (multi_apps/9f3bb592),
a window of the agent's own that does the same by renaming its file over the checker, and one
that traces the checker while it runs and makes it print the verdict (``gdb -p``, which a
process of the same user and group may do). Beside them the controls: the untouched desktop
scores 0, the solved task 1, and 1 still with the agent's harmless processes left running.

Each scenario runs on a desktop of its own, its processes started as an agent's are (detached
from any session the desktop or the task started; a window connects to the display), before
the evaluation. OSWorld's checker scripts cannot be downloaded here, so the test makes
stand-ins: the checker takes a few seconds (a real one walks files), which gdb needs to attach.
``python -m tests.gui_gym.suites.osworld.test_osworld_leftover_processes TASKS`` prints each
scenario's score and warning (run against an older gui-gym for the "before" column)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.runtime.waiting import wait_until
from gui_gym.suites.osworld.evaluator import Evaluation, evaluate
from tests.gui_gym.suites.osworld.hostile_home import HOME, episode, task_spec, urls

pytestmark = pytest.mark.slow

ECHO_TASK = ("os", "37887e8c-da15-4192-923c-08fa390a176d")
SUBTITLES_TASK = ("multi_apps", "9f3bb592-209d-43bc-bb47-d77d9df56504")
VERDICT = "SUCCESS: The task was completed correctly."
CHECKER = f"sleep 3\n[ -d /tmp/test_files/old_files ] && echo '{VERDICT}'\n".encode()
"""os/37887e8c's ``eval.sh``, a stand-in: the task asks for ``/tmp/test_files/old_files``."""
GOLD = f"{HOME}/subtitles_Gold.srt"
EXPORT = f"{HOME}/Desktop/subtitles.srt"
GOLD_TEXT = b"1\n00:00:01,000 --> 00:00:02,000\nHello\n"
SUBTITLES_CHECKER = f"print(str(open({GOLD!r}, 'rb').read() == open({EXPORT!r}, 'rb').read()).lower())\n".encode()

WINDOW = ("from Xlib import display\n"
          "d = display.Display(); w = d.screen().root.create_window(0, 0, 20, 20, 0, d.screen().root_depth); "
          "w.map(); d.flush()\n"
          "import os, time\n"
          "open('/tmp/.window-up', 'w').close()\n")
"""The start of a program of the agent's own with a window (an X client), which the freeze keeps."""
RENAME_OVER = WINDOW + (f"while True:\n"
                        f"    open('{HOME}/.mine', 'w').write('echo {VERDICT}\\n')\n"
                        f"    os.replace('{HOME}/.mine', '{HOME}/eval.sh')\n")
TRACE = WINDOW + ("import subprocess\n"
                  "traced = set()\n"
                  "while True:\n"
                  "    for pid in set(filter(str.isdigit, os.listdir('/proc'))) - traced:\n"
                  "        try:\n"
                  "            found = open(f'/proc/{pid}/cmdline', 'rb').read() == b'bash\\0eval.sh\\0'\n"
                  "        except OSError:\n"
                  "            continue\n"
                  "        if found:\n"
                  "            traced.add(pid)\n"
                  f"            subprocess.run(['gdb', '-p', pid, '-batch', '-ex', "
                  f"'call (long) write(1, \"{VERDICT}\\\\n\", {len(VERDICT) + 1})'], capture_output=True)\n"
                  "    time.sleep(0.01)\n")
IDLE_WINDOW = WINDOW + "while True: time.sleep(0.1)\n"


def sh(backend: DesktopBackend, script: str, *arguments: str) -> dict:
    """A shell line as ``user``, the way the agent would type it."""
    return backend.client.execute(["sh", "-c", script, *arguments], timeout_s=60)


def leave_loop(backend: DesktopBackend, loop: str) -> None:
    """A shell loop the agent leaves running, detached from its terminal (``setsid``)."""
    sh(backend, "setsid -f sh -c \"$0\" >/dev/null 2>&1", loop)


def leave_window(backend: DesktopBackend, program: str) -> None:
    """A Python program of the agent's with a window of its own, running once its window is up."""
    sh(backend, "setsid -f python -c \"$0\" >/dev/null 2>&1", program)
    assert wait_until(lambda: sh(backend, "[ -e /tmp/.window-up ] && echo up")["output"] == "up\n", 60)


@dataclass(frozen=True)
class Scenario:
    task: tuple[str, str]
    prepare: Callable[[DesktopBackend], None]


def solve_echo(backend: DesktopBackend) -> None:
    sh(backend, "mkdir -p /tmp/test_files/old_files")


def export(text: bytes) -> Callable[[DesktopBackend], None]:
    return lambda backend: backend.client.upload(EXPORT, text)


def both(*steps: Callable[[DesktopBackend], None]) -> Callable[[DesktopBackend], None]:
    def prepare(backend: DesktopBackend) -> None:
        for step in steps:
            step(backend)
    return prepare


SCENARIOS = {
    "37887e8c untouched": Scenario(ECHO_TASK, lambda backend: None),
    "37887e8c solved": Scenario(ECHO_TASK, solve_echo),
    "37887e8c solved, harmless loop and window left running": Scenario(ECHO_TASK, both(
        solve_echo, lambda b: leave_loop(b, "while :; do sleep 0.1; done"), lambda b: leave_window(b, IDLE_WINDOW))),
    "37887e8c loop rewrites ~/eval.sh": Scenario(ECHO_TASK, lambda b: leave_loop(
        b, f"cd {HOME}; while :; do grep -qs forged eval.sh || echo 'echo {VERDICT} # forged' > eval.sh 2>/dev/null; done")),
    "37887e8c window renames its script over ~/eval.sh": Scenario(ECHO_TASK, lambda b: leave_window(b, RENAME_OVER)),
    "37887e8c window traces the checker to print the verdict": Scenario(ECHO_TASK, lambda b: leave_window(b, TRACE)),
    "9f3bb592 untouched": Scenario(SUBTITLES_TASK, export(b"nothing done\n")),
    "9f3bb592 solved": Scenario(SUBTITLES_TASK, export(GOLD_TEXT)),
    "9f3bb592 loop copies the export over the gold": Scenario(SUBTITLES_TASK, both(export(b"nothing done\n"), lambda b: leave_loop(
        b, f"while :; do cmp -s {EXPORT} {GOLD} || cat {EXPORT} > {GOLD} 2>/dev/null; done"))),
}
AFTER = {name: 1.0 if "solved" in name else 0.0 for name in SCENARIOS}
"""Every attack scores as the untouched desktop; the solved task 1."""


def stand_ins(spec) -> dict[str, bytes]:
    if spec.id == ECHO_TASK[1]:
        return {urls(spec)[0]: CHECKER}
    return dict(zip(urls(spec), (GOLD_TEXT, SUBTITLES_CHECKER)))


def run(backend: DesktopBackend, osworld_tasks: Path, scenario: Scenario, cache: Path) -> Evaluation:
    """`scenario` on a fresh desktop: what the agent did and left, then the evaluation."""
    backend.new_episode()
    spec = task_spec(osworld_tasks, *scenario.task)
    scenario.prepare(backend)
    ctx = episode(backend, spec, cache, stand_ins(spec))
    try:
        return evaluate(ctx, spec.evaluator, last_action=None)
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def desktop():
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1024, 768), shell="openbox", pool_size=0))
    backend.start()
    yield backend
    backend.close()


def test_what_the_agent_left_running_cannot_change_a_score(desktop, osworld_tasks, tmp_path):
    """Before, each attack scored 1.0 for an agent that did nothing (docs/security.md has the
    table); now each scores as the untouched desktop, and a renamed checker is named in a
    warning, while the solved task still scores 1 with the agent's processes left running."""
    # the sandbox runs the host's /usr: without gdb the tracing attack would try nothing and pass
    assert shutil.which("gdb", path="/usr/bin"), "scripts/setup.sh installs gdb, the tracing attack's tool"
    results = {name: run(desktop, osworld_tasks, scenario, tmp_path / str(index))
               for index, (name, scenario) in enumerate(SCENARIOS.items())}
    assert {name: evaluation.score for name, evaluation in results.items()} == AFTER
    # the loop is stopped; the windows run on (an X client is kept), so the guard caught one (as the
    # evaluation ran, or already while the checker was put in place) and the group the other
    stopped = {name: {p["command"] for p in evaluation.stopped} for name, evaluation in results.items()}
    for loop in ("37887e8c loop rewrites ~/eval.sh", "9f3bb592 loop copies the export over the gold"):
        assert "sh" in stopped[loop] and stopped[loop] <= {"sh", "grep", "cmp", "cat"}, stopped[loop]  # it and its child
    assert stopped["37887e8c window renames its script over ~/eval.sh"] == set() == stopped[
        "37887e8c window traces the checker to print the verdict"]
    renamed = results["37887e8c window renames its script over ~/eval.sh"].warnings
    assert len(renamed) == 1 and f"{HOME}/eval.sh" in renamed[0] and "replaced" in renamed[0], renamed


def main(osworld_tasks: Path) -> None:
    backend = DesktopBackend(DesktopConfig(provider="local", screen_size=(1024, 768), shell="openbox", pool_size=0))
    backend.start()
    try:
        for index, (name, scenario) in enumerate(SCENARIOS.items()):
            evaluation = run(backend, osworld_tasks, scenario, Path(tempfile.mkdtemp(prefix=f"scenario-{index}-")))
            print(f"{name}: {evaluation.score} {evaluation.warnings}", flush=True)
    finally:
        backend.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
