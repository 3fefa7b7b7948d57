"""Which files of an evaluation's downloads stay on the host.

OSWorld's postconfig downloads files to the desktop just before scoring: checker scripts that
its commands run, reference files those commands read, and gold files that a ``vm_file``
getter then copies back out as the metric's expected side. A file written into the agent's
home is within the agent's reach for the rest of the evaluation: a process it left running
can replace it, or copy it over its own result. So a download the desktop never needs is kept
on the host instead (the episode's `EpisodeContext.held`), and the getters read it there.

A download is held when nothing on the desktop can read it during the evaluation:

- the evaluation runs no command but ``python -c`` lines (key presses: a checker script or a
  shell command may read any file, named or not), and
- the file's name appears in none of the evaluator's steps, commands, result getters or
  options, save its own download, ``open`` steps and window steps (the ones that open it in an
  app and save it again), and the expected getters that read it back.

An ``open`` step of a held file is skipped: it is not on the desktop. Its window steps find no
window, as OSWorld's do when a window is missing. OSWorld opens such a gold workbook in the
desktop's LibreOffice and saves it before reading it; here the file is compared as downloaded
(docs/osworld.md).
"""

from __future__ import annotations

import json
import posixpath

from gui_gym.suites.osworld.loader import Evaluator

COMMAND_STEPS = frozenset({"execute", "command", "launch"})
COMMAND_GETTERS = frozenset({"vm_command_line", "vm_command_error"})
FILE_STEPS = frozenset({"download", "open", "activate_window", "close_window"})
"""Steps that may name a held file: its download, and opening it in an app and saving it."""


def held_downloads(evaluator: Evaluator) -> frozenset[str]:
    """The ``path`` of each postconfig download the evaluation keeps on the host (the rules
    in the module docstring), as the task names it."""
    downloads = [entry["path"] for step in evaluator.postconfig if step.type == "download"
                 for entry in step.parameters.get("files", [])]
    if not downloads or _runs_commands(evaluator):
        return frozenset()
    rest = json.dumps([[step.type, step.parameters] for step in evaluator.postconfig if step.type not in FILE_STEPS]
                      + [list(evaluator.results), list(evaluator.options)])
    return frozenset(path for path in downloads if posixpath.basename(path) not in rest)


def _runs_commands(evaluator: Evaluator) -> bool:
    """Whether the evaluation runs anything on the desktop but ``python -c`` lines."""
    for step in evaluator.postconfig:
        if step.type in COMMAND_STEPS:
            command = step.parameters.get("command")
            if not (isinstance(command, list) and len(command) > 2 and command[0] in ("python", "python3")
                    and command[1] == "-c"):
                return True
    return any(getter.get("type") in COMMAND_GETTERS for getter in evaluator.getters)
