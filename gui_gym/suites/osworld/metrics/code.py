"""``check_python_file_by_test_suite`` (OSWorld's ``vscode.py``): a task-provided test file
run against the agent's Python files.

OSWorld imports the test file on its own host, in the folder where its getters put the files
they copied (the task's cache folder: every file of a ``multi`` getter, not only the ones it
gives the metric), with that folder as working directory and first on the import path. gui-gym
never runs the agent's code on the host: the test file and every file beside the result files
(the episode's copies of the desktop files: a test that imports the task's other modules finds
them) go to a fresh folder on the desktop (the task's VM, or the local sandbox), and a fixed
harness runs the test there with the desktop's Python, as OSWorld would (``test_function_name``
called; a bool, a number clipped to [0, 1], or anything else by its truth value; every failure
scores 0). The evaluator passes the runner (`EpisodeContext.run_python`): on our desktop the
folder and the run are out of the agent's reach, and the harness answers on a pipe of its own,
not on the standard output the tested code prints to.
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
folder, result_fd, name = sys.argv[1], int(sys.argv[2]), sys.argv[4]
test_file = os.path.join(folder, sys.argv[3])
def report(score):
    sys.stdout.flush()
    os.write(result_fd, ("GUI-GYM-SCORE " + json.dumps(score) + "\n").encode())
    os._exit(0)
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
"""Runs inside the desktop (``harness.py FOLDER RESULT_FD TEST_FILE FUNCTION``), in the folder
that holds the test file and the copies of the agent's files; it imports what it needs before
that folder goes on the import path, and answers on RESULT_FD."""

PythonRunner = Callable[[dict[str, bytes], list[str]], str]
"""(files by name, arguments) -> what ``python -I <folder>/harness.py <folder> <result fd>
<arguments...>`` wrote on its result descriptor, run on the desktop in a fresh folder holding
the files."""


def check_python_file_by_test_suite(result: Any, expected: Any, *, run_python: PythonRunner | None = None,
                                    **options: Any) -> float:
    if not expected or not Path(expected).is_file():
        return 0.0
    if run_python is None:
        raise RuntimeError("check_python_file_by_test_suite runs the test on the desktop; the evaluator gives the runner")
    results = [Path(p) for p in (result if isinstance(result, list) else [result]) if p and Path(p).is_file()]
    beside = {path for folder in {p.parent for p in results} for path in folder.iterdir() if path.is_file()}
    files = {path.name: path.read_bytes() for path in sorted(beside | set(results))}
    test_name = Path(expected).name
    files[test_name] = Path(expected).read_bytes()
    output = run_python({**files, "harness.py": HARNESS.encode()},
                        [test_name, options.get("test_function_name", "test")])
    for line in reversed(output.splitlines()):
        if line.startswith("GUI-GYM-SCORE "):
            return float(json.loads(line.split(" ", 1)[1]))
    logger.info("check_python_file_by_test_suite: the harness gave no score: %s", output[-300:])
    return 0.0
