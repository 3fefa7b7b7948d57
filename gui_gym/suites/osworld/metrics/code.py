"""``check_python_file_by_test_suite`` (OSWorld's ``vscode.py``): a task-provided test file
run against the agent's Python files.

OSWorld imports the test file on its own host, where it imports the agent's code. gui-gym
never runs the agent's code on the host: the files are put in a fresh folder on the desktop
(the task's VM, or the local sandbox) and a fixed harness runs the test there with the
desktop's Python, as OSWorld would (the test folder as working directory and first on the
import path; ``test_function_name`` called; a bool, a number clipped to [0, 1], or anything
else by its truth value; every failure scores 0). The evaluator passes the runner.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

HARNESS = r'''
import importlib.util, json, os, sys, uuid
folder, name = sys.argv[1], sys.argv[3]
test_file = os.path.join(folder, sys.argv[2])
def report(score): print("GUI-GYM-SCORE " + json.dumps(score)); sys.exit(0)
os.chdir(folder)
sys.path.insert(0, folder)
try:
    spec = importlib.util.spec_from_file_location("dynamic_test_module_" + uuid.uuid4().hex[:8], test_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
except BaseException:
    report(0.0)
test = getattr(module, name, None)
if not callable(test):
    report(0.0)
try:
    value = test()
except BaseException:
    report(0.0)
if isinstance(value, bool):
    report(1.0 if value else 0.0)
if isinstance(value, (int, float)):
    report(max(0.0, min(1.0, float(value))))
report(1.0 if value else 0.0)
'''
"""Runs inside the desktop: the test file's directory holds copies of the agent's files."""

PythonRunner = Callable[[dict[str, bytes], list[str]], str]
"""(files by name, arguments) -> the standard output of ``python3 <folder>/harness.py
<folder> <arguments...>`` run on the desktop in a fresh folder holding the files."""


def check_python_file_by_test_suite(result: Any, expected: Any, *, run_python: PythonRunner | None = None,
                                    **options: Any) -> float:
    if not expected or not Path(expected).is_file():
        return 0.0
    if run_python is None:
        raise RuntimeError("check_python_file_by_test_suite runs the test on the desktop; the evaluator gives the runner")
    files = {Path(p).name: Path(p).read_bytes() for p in (result if isinstance(result, list) else [result])
             if p and Path(p).is_file()}
    test_name = Path(expected).name
    files[test_name] = Path(expected).read_bytes()
    output = run_python({"harness.py": HARNESS.encode(), **files},
                        [test_name, options.get("test_function_name", "test")])
    for line in reversed(output.splitlines()):
        if line.startswith("GUI-GYM-SCORE "):
            return float(json.loads(line.split(" ", 1)[1]))
    logger.info("check_python_file_by_test_suite: the harness gave no score: %s", output[-300:])
    return 0.0
