"""Which postconfig downloads stay on the host (`held_files`): the rule on made-up evaluators,
and what it decides for the verified tasks."""

from __future__ import annotations

import json
from pathlib import Path

from gui_gym.suites.osworld.held_files import held_downloads
from gui_gym.suites.osworld.loader import parse_task

GOLD = "/home/user/Sales_gold.xlsx"
CTRL_S = {"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; pyautogui.hotkey('ctrl', 's')"]}}


def evaluator(postconfig: list[dict], result: dict, expected: dict) -> object:
    task = {"id": "t", "instruction": "x", "config": [],
            "evaluator": {"postconfig": postconfig, "func": "compare_table", "result": result, "expected": expected}}
    return parse_task(task, Path("/tasks/t.json")).evaluator


def download(path: str) -> dict:
    return {"type": "download", "parameters": {"files": [{"url": "https://files.example/x", "path": path}]}}


def vm_file(path: str) -> dict:
    return {"type": "vm_file", "path": path, "dest": Path(path).name}


def test_a_gold_file_only_the_expected_side_reads_stays_on_the_host():
    opened = [download(GOLD), {"type": "open", "parameters": {"path": GOLD}},
              {"type": "activate_window", "parameters": {"window_name": "Sales_gold.xlsx - LibreOffice Calc"}}, CTRL_S]
    assert held_downloads(evaluator(opened, vm_file("/home/user/Sales.xlsx"), vm_file(GOLD))) == {GOLD}
    assert held_downloads(evaluator([download(GOLD)], vm_file("/home/user/Sales.xlsx"),
                                    {"type": "rule", "rules": {}})) == {GOLD}  # read by nothing


def test_a_download_the_desktop_may_read_goes_to_the_desktop():
    run_checker = [download(GOLD), download("/home/user/check.py")]
    command = {"type": "vm_command_line", "command": "python /home/user/check.py", "shell": True}
    assert held_downloads(evaluator(run_checker, command, {"type": "rule", "rules": {}})) == frozenset()
    diff = [download(GOLD), {"type": "execute", "parameters": {"command": ["diff", "Sales_gold.xlsx", "Sales.xlsx"]}}]
    assert held_downloads(evaluator(diff, vm_file("/home/user/Sales.xlsx"), vm_file(GOLD))) == frozenset()
    assert held_downloads(evaluator([download(GOLD)], vm_file(GOLD), vm_file(GOLD))) == frozenset()  # the result


def test_the_verified_tasks_hold_the_gold_files_of_two_of_their_fifteen_postconfig_downloads(osworld_tasks):
    held, kept = {}, {}
    for path in sorted((osworld_tasks / "examples").glob("*/*.json")):
        spec = parse_task(json.loads(path.read_text()), path)
        downloads = [e["path"] for s in spec.evaluator.postconfig if s.type == "download" for e in s.parameters["files"]]
        if downloads:
            (held if held_downloads(spec.evaluator) else kept)[spec.id[:8]] = downloads
            assert held_downloads(spec.evaluator) in (frozenset(), frozenset(downloads))
    assert held == {"4e6fcf72": ["/home/user/Employee_Age_By_Birthday_gold.xlsx"],
                    "6f4073b8": ["/home/user/Desktop/ConferenceCity_Gold.xlsx"]}
    # the other 13 run a checker on the desktop (eval.sh x6, check_password.sh, five Python
    # checkers, one with its gold file, one with a wheel it pip-installs) or diff what they downloaded
    assert len(kept) == 13 and sum(len(files) for files in kept.values()) == 15
