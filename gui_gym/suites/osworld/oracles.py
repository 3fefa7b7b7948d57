"""Oracle solutions of the bundled sample tasks (OSWorld's own tasks have none).

A solution is a list of steps; a step is an `Action`, a pyautogui string (read by our
allow-list parser, as an agent's would be), or a function of the backend returning either,
evaluated when the step is reached so positions can be read off the live desktop. The
solutions are keyboard-driven wherever the apps allow it, so they do not depend on the
screen size or on where windows open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from gui_gym.action_formats import pyautogui_code
from gui_gym.actions import Action

Step = Action | str | Callable[[Any], Action | str]

SAVE = "pyautogui.hotkey('ctrl', 's')"
TERMINAL_CLASS = "gnome-terminal"


READY_QUIET_S = 1.0
READY_TIMEOUT_S = 30.0


def _focus(window_name: str, by_class: bool = False) -> Callable[[Any], Action]:
    """Wait until the screen has been still for a while (an app that just started may still
    be building its toolbars, which takes the keyboard focus), bring a window to the front
    through the desktop's server, then a no-op wait: for solutions that type into one window
    whatever the stacking is."""
    def step(backend: Any) -> Action:
        backend.wait_for_screen(READY_TIMEOUT_S, expect_change=False, quiet_s=READY_QUIET_S)
        backend.client.activate_window(window_name, by_class=by_class)
        return Action.wait(0)
    return step


def _click_center(backend: Any) -> Action:
    """A click in the middle of the screen: inside the document of a LibreOffice window,
    which the window manager opens covering the screen."""
    width, height = backend.screen_size
    return Action.click(width // 2, height // 2)


def _office(window_name: str) -> list[Step]:
    """Focus a LibreOffice window, put the keyboard into the document (a click in it) and go
    to its start."""
    return [_focus(window_name), _click_center, "pyautogui.hotkey('ctrl', 'home')"]


def _in_terminal(command: str) -> list[Step]:
    return [_focus(TERMINAL_CLASS, by_class=True), Action.type(command + "\n")]


SOLUTIONS: dict[str, list[Step]] = {
    "sample-os-write-greeting": _in_terminal("echo 'hello world' > ~/notes.txt"),
    "sample-os-archive-report": _in_terminal("mkdir -p ~/archive && mv ~/Desktop/report.txt ~/archive/"),
    "sample-os-count-rows": _in_terminal("tail -n +2 ~/data.csv | wc -l > ~/count.txt"),
    "sample-os-delete-logs": _in_terminal("rm ~/logs/*.log"),
    "sample-os-make-executable": _in_terminal("chmod +x ~/run.sh"),
    "sample-os-special-characters": _in_terminal("""echo 'x < y > z | w & "q"' > ~/expr.txt"""),
    "sample-os-infeasible-bluetooth": ["FAIL"],
    "sample-editor-write-todo": [_focus("todo.txt"), Action.type("buy milk\ncall bob\nfix bike\n"), SAVE],
    "sample-editor-replace-name": [
        _focus("letter.txt"), "pyautogui.hotkey('ctrl', 'a')",
        Action.type("Dear Alex,\nthe meeting with Alex moved to Friday.\nBest, Kim\n"), SAVE],
    "sample-editor-append-setting": [_focus("settings.ini"), "pyautogui.hotkey('ctrl', 'end')",
                                     Action.type("debug = true\n"), SAVE],
    "sample-calc-sum-column": [
        *_office("sales.xlsx"), "pyautogui.press('right')", Action.type("\n" * 6 + "=SUM(B2:B6)\n"), SAVE],
    "sample-calc-pass-column": [
        *_office("scores.xlsx"), "pyautogui.press('right', presses=2)",
        Action.type("Passed\n" + "".join(f'=IF(B{row}>=50;"yes";"no")\n' for row in range(2, 7))), SAVE],
    "sample-calc-bold-header": [*_office("inventory.xlsx"), "pyautogui.hotkey('shift', 'right')",
                                "pyautogui.hotkey('ctrl', 'b')", SAVE],
    "sample-calc-fix-csv": [
        "pyautogui.press('enter')", *_office("cities.csv - LibreOffice Calc"), "pyautogui.press('right')",
        Action.type("\n\nParis\n"), SAVE],
    "sample-calc-infeasible-macro-store": ["FAIL"],
    "sample-writer-append-paragraph": [
        *_office("report.docx"), "pyautogui.hotkey('ctrl', 'end')", Action.type("\nRevenue grew by 12 percent."),
        SAVE],
    "sample-writer-center-title": [*_office("memo.docx"), "pyautogui.hotkey('ctrl', 'e')", SAVE],
    "sample-writer-page-break": [
        *_office("essay.docx"), "pyautogui.press('end')", "pyautogui.hotkey('ctrl', 'enter')", SAVE],
}
"""Sample task id -> its solution."""


def has_oracle(task_id: str) -> bool:
    return task_id in SOLUTIONS


def solve(task_id: str, backend: Any) -> Iterator[Action]:
    """The solution of `task_id`, one action at a time, each step resolved when reached."""
    if task_id not in SOLUTIONS:
        raise NotImplementedError(f"task {task_id!r} has no oracle solution (only the bundled sample tasks do)")
    for step in SOLUTIONS[task_id]:
        value = step(backend) if callable(step) else step
        if isinstance(value, Action):
            yield value
        else:
            yield from pyautogui_code.parse_many(value)
