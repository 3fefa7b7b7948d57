"""Desktop metrics (OSWorld's ``basic_os.py``): GNOME favourites, the time zone, moved
files, the clipboard."""

from __future__ import annotations

import ast
from typing import Any


def check_gnome_favorite_apps(result: Any, rule: dict[str, Any]) -> float:
    """``gsettings get org.gnome.shell favorite-apps`` lists exactly the expected apps (any
    order). OSWorld ``eval``s that output on its host; here it is read as a Python literal
    (what a well-formed output is), never run as code: the desktop's output is the agent's."""
    apps = ast.literal_eval(result)
    expected = rule["expected"]
    return float(len(apps) == len(expected) and set(apps) == set(expected))


def is_utc_0(result: Any) -> float:
    """The fourth line of ``timedatectl`` (the time zone) ends with ``+0000)``."""
    return float(result.split("\n")[3].endswith("+0000)"))


def check_moved_jpgs(result: Any, rule: dict[str, Any]) -> float:
    """The folder (a directory tree) holds exactly the expected file names."""
    moved = [node["name"] for node in result["children"]]
    expected = rule["expected"]
    return float(len(moved) == len(expected) and set(moved) == set(expected))


def is_in_vm_clickboard(config: Any, terminal_output: Any) -> float:
    """The clipboard's text (the expected getter's command output) contains the expected
    string, or every string of an expected list."""
    expected = config["expected"]
    if not isinstance(expected, list):
        return float(expected in terminal_output)
    return float(all(item in terminal_output for item in expected))
