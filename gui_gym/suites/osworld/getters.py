"""OSWorld getters: what an evaluator compares, fetched from the desktop or the task.

``get_<type>(ctx, config)`` as in OSWorld, for the types in `GETTERS`. File getters return a
host path (or a list, with ``multi``/``gives``), or None when the desktop has no such file,
which the evaluator scores 0. ``cloud_file`` goes through the file cache (OSWorld's layout);
``local_file`` reads a file shipped next to the task file (the bundled sample's gold files).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gui_gym.backends.desktop.client import ServerError
from gui_gym.suites.osworld.context import EpisodeContext

logger = logging.getLogger(__name__)


def _files(config: dict[str, Any]) -> tuple[list[str], list[str], set[int]]:
    """(sources, destination names, indices given to the metric) of a file getter."""
    if config.get("multi", False):
        paths, dests = list(config["path"]), list(config["dest"])
    else:
        paths, dests = [config["path"]], [config.get("dest") or Path(config["path"]).name]
    return paths, dests, set(config.get("gives", [0]))


def _pick(found: list[Any]) -> Any:
    return found[0] if len(found) == 1 else found


def get_vm_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Files copied from the desktop into the episode's scratch folder."""
    paths, dests, gives = _files(config)
    found: list[Path | None] = []
    for index, (path, dest) in enumerate(zip(paths, dests)):
        data = ctx.client.get_file(path)
        target = ctx.scratch / dest
        if data is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if index in gives:
            found.append(target if data is not None else None)
    return _pick(found)


def get_cloud_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Files from URLs, through the file cache."""
    paths, dests, gives = _files(config)
    found = []
    for index, (url, dest) in enumerate(zip(paths, dests)):
        local = ctx.cache.fetch(url, ctx.task_cache / dest)
        if index in gives:
            found.append(local)
    return _pick(found)


def get_local_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """A file on this host (relative paths: next to the task file), copied to ``dest``."""
    source = ctx.local_path(config["path"])
    if not source.exists():
        return None
    target = ctx.scratch / config.get("dest", source.name)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copyfile(source, target)
    return target


def get_cache_file(ctx: EpisodeContext, config: dict[str, Any]) -> Path | None:
    """A file a setup step wrote (``execute`` with ``stdout``), or one in the task's cache."""
    for folder in (ctx.scratch, ctx.task_cache):
        candidate = folder / config["path"]
        if candidate.exists():
            return candidate
    return None


def get_rule(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    return config["rules"]


def get_vm_command_line(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    result = ctx.client.execute(config["command"], shell=bool(config.get("shell", False)))
    return result.get("output")


def get_vm_command_error(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    result = ctx.client.execute(config["command"], shell=bool(config.get("shell", False)))
    return result.get("error")


def get_vm_terminal_output(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    try:
        return ctx.client.terminal_output()
    except ServerError as exc:  # OSWorld's getter gives None too
        logger.info("no terminal output from the VM: %s", exc)
        return None


def get_accessibility_tree(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    try:
        return ctx.client.accessibility_tree()
    except ServerError as exc:  # OSWorld's getter gives None too
        logger.info("no accessibility tree from the VM: %s", exc)
        return None


def get_list_directory(ctx: EpisodeContext, config: dict[str, Any]) -> dict | None:
    return ctx.client.list_directory(config["path"])


def get_vm_screen_size(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, int]:
    width, height = ctx.client.screen_size()
    return {"width": width, "height": height}


def get_vm_window_size(ctx: EpisodeContext, config: dict[str, Any]) -> dict[str, int] | None:
    return ctx.client.window_size(config["app_class_name"])


def get_content_from_vm_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """A piece of a desktop file: for ``file_type: xlsx`` and ``file_content: last_row``, the
    last row of the first sheet as strings."""
    local = get_vm_file(ctx, {"path": config["path"], "dest": Path(config["path"]).name})
    if local is None:
        return None
    if config.get("file_type") != "xlsx" or config.get("file_content") != "last_row":
        raise NotImplementedError(f"content_from_vm_file: {config.get('file_type')}/{config.get('file_content')} "
                                  "is not supported (only xlsx/last_row)")
    from gui_gym.suites.osworld.metrics.common import require

    workbook = require("openpyxl", "openpyxl", "content_from_vm_file").load_workbook(local, data_only=True)
    rows = [row for row in workbook.worksheets[0].iter_rows(values_only=True) if any(v is not None for v in row)]
    return [str(v) for v in rows[-1]] if len(rows) > 1 else None


GETTERS: dict[str, Callable[[EpisodeContext, dict[str, Any]], Any]] = {
    "vm_file": get_vm_file, "cloud_file": get_cloud_file, "local_file": get_local_file,
    "cache_file": get_cache_file, "rule": get_rule, "vm_command_line": get_vm_command_line,
    "vm_command_error": get_vm_command_error, "vm_terminal_output": get_vm_terminal_output,
    "accessibility_tree": get_accessibility_tree, "list_directory": get_list_directory,
    "vm_screen_size": get_vm_screen_size, "vm_window_size": get_vm_window_size,
    "content_from_vm_file": get_content_from_vm_file,
}
"""Getter type (the ``type`` of a result/expected config) -> getter."""

NETWORK_GETTERS = frozenset({"cloud_file"})
"""Getters that may need the internet (unless their files are cached)."""
