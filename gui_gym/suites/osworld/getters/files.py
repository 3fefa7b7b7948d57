"""OSWorld's file getters: files copied from the desktop (``vm_file``), downloaded through
the file cache (``cloud_file``), shipped with the task (``local_file``), written by setup
steps (``cache_file``), and a piece of a desktop file (``content_from_vm_file``).

File getters return host paths as strings (one, or a list with ``multi``/``gives``), None
for a desktop file that does not exist, as OSWorld's do. Desktop files go to the episode's
scratch folder, cloud files to the task's cache (OSWorld keeps both in one folder per task;
metrics that look next to a file, such as ``sheet_print``, find what its getter put there).
"""

from __future__ import annotations

import datetime
import os
import shutil
from pathlib import Path
from typing import Any

from gui_gym.suites.osworld.context import EpisodeContext


def _files(config: dict[str, Any]) -> tuple[list[str], list[str], set[int]]:
    """(sources, destination names, indices given to the metric) of a file getter."""
    if config.get("multi", False):
        paths, dests = list(config["path"]), list(config["dest"])
    else:
        dest = config.get("dest") or Path(config["path"]).name
        if config.get("time_suffix", False):
            stem, ext = os.path.splitext(dest)
            dest = f"{stem}_{datetime.datetime.now().strftime(config.get('time_format', '%Y%m%d_%H%M%S'))}{ext}"
        paths, dests = [config["path"]], [dest]
    return paths, dests, set(config.get("gives", [0]))


def _pick(found: list[Any]) -> Any:
    return found[0] if len(found) == 1 else found


def get_vm_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Files copied from the desktop into the episode's scratch folder."""
    paths, dests, gives = _files(config)
    found: list[str | None] = []
    for index, (path, dest) in enumerate(zip(paths, dests)):
        data = ctx.get_file(path)
        target = ctx.scratch / dest
        if data is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if index in gives:
            found.append(str(target) if data is not None else None)
    return _pick(found)


def get_cloud_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """Files from URLs, through the file cache."""
    paths, dests, gives = _files(config)
    found = []
    for index, (url, dest) in enumerate(zip(paths, dests)):
        local = ctx.cache.fetch(url, ctx.task_cache / dest)
        if index in gives:
            found.append(str(local))
    return _pick(found)


def get_local_file(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    """A file on this host (relative paths: next to the task file), copied to ``dest``."""
    source = ctx.local_path(config["path"])
    if not source.exists():
        return None
    target = ctx.scratch / config.get("dest", source.name)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copyfile(source, target)
    return str(target)


def get_cache_file(ctx: EpisodeContext, config: dict[str, Any]) -> str | None:
    """A file a setup step wrote (``execute`` with ``stdout``), or one in the task's cache."""
    for folder in (ctx.scratch, ctx.task_cache):
        candidate = folder / config["path"]
        if candidate.exists():
            return str(candidate)
    return None


def get_content_from_vm_file(ctx: EpisodeContext, config: dict[str, Any]) -> Any:
    """A piece of a desktop file: for ``file_type: xlsx`` and ``file_content: last_row``, the
    last row pandas reads from the first sheet, as strings (OSWorld's reading)."""
    local = get_vm_file(ctx, {"path": config["path"], "dest": os.path.basename(config["path"])})
    if config["file_type"] != "xlsx":
        raise NotImplementedError(f"File type {config['file_type']} not supported")
    if config["file_content"] != "last_row":
        return None
    return ctx.bounded(f"{__name__}:last_row", local)


def last_row(path: str) -> list[str]:
    """The last row pandas reads from the first sheet of a workbook, as strings (run in the
    evaluator's bounded worker: the workbook is the agent's)."""
    from gui_gym.suites.osworld.metrics.common import require

    frame = require("pandas", "pandas", "content_from_vm_file").read_excel(path)
    return frame.iloc[-1].astype(str).tolist()
