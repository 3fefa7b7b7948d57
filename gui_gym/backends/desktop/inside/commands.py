"""How the desktop runs the commands of task files: OSWorld's conventions, and Python that no
module the agent left behind can steer.

The server runs every command as ``user``, in the home, where the agent may have left
anything. A plain ``python`` puts the working folder (for ``-c``) or the script's folder first
on its import path, reads ``PYTHON*`` variables and runs the user's site-packages, with their
``.pth`` files and ``usercustomize``: a ``json.py`` in the home, or one beside a checker script
the evaluation downloaded, would be imported in place of the standard library's. So:

- a setup step's ``python -c CODE`` (OSWorld's key presses through pyautogui) gets ``-I``;
- ``python SCRIPT ARGS...`` (a checker script a task downloads and runs, in a setup step or a
  getter) runs in isolated Python too, with the user's site-packages appended after every
  other folder: the packages a task's ``pip install`` put there are still found, no module
  named like one of the standard library's or an installed package's is taken from there, and
  none of its ``.pth`` files or ``usercustomize`` runs. The script's own folder is not on the
  path (OSWorld's checker scripts are single files);
- a getter's ``python -c CODE`` runs as OSWorld runs it: it is the task's check of the user's
  own Python (multi_apps/69acbb55 asks whether it imports a package the agent installed).

A shell line is rewritten only when it is one simple command (no pipe, list, redirection or
substitution), which is how the tasks write ``python SCRIPT``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

PYTHONS = frozenset({"python", "python3"})
"""The names task files call Python by."""
RUN_SCRIPT = ("import runpy, site, sys; sys.argv = sys.argv[1:]; sys.path.append(site.getusersitepackages()); "
              "runpy.run_path(sys.argv[0], run_name='__main__')")
"""``python -I -c RUN_SCRIPT SCRIPT ARGS...``: SCRIPT as ``__main__``, with the user's
site-packages last on the path and none of its start-up code."""
SHELL_SYNTAX = frozenset("|&;<>()$`\\\"'*?[]{}~\n")


def normalize_command(command: str | Sequence[str], shell: bool, setup: bool = False) -> str | list[str]:
    """OSWorld's conventions: a string without a shell is split like a shell would; with a
    shell a list is joined; ``~/`` at the start of an argument is the home folder. Python lines
    are isolated as the module docstring says (`setup`: the command is a setup step's)."""
    if shell:
        line = command if isinstance(command, str) else shlex.join(command)
        simple = isolated_python(shlex.split(line), setup) if _simple(line) else None
        return shlex.join(simple) if simple else line
    parts = shlex.split(command) if isinstance(command, str) else list(command)
    if not parts:
        raise ValueError("empty command")
    parts = [os.path.expanduser(p) if p.startswith("~/") else p for p in parts]
    return isolated_python(parts, setup) or parts


def isolated_python(parts: list[str], setup: bool) -> list[str] | None:
    """The isolated form of a Python command line, or None when it is not one to isolate."""
    if len(parts) < 2 or os.path.basename(parts[0]) not in PYTHONS:
        return None
    if parts[1] == "-c":
        return [parts[0], "-I", *parts[1:]] if setup else None
    if parts[1].startswith("-"):
        return None
    return [parts[0], "-I", "-c", RUN_SCRIPT, *parts[1:]]


def _simple(line: str) -> bool:
    """Whether a shell line is one command of plain words (what `isolated_python` may rewrite)."""
    return not (set(line) & SHELL_SYNTAX)
