"""An OSWorld file cache a cluster can carry: fill it where there is internet, check it where
there is none.

Most OSWorld tasks download their files at setup (``download`` steps) or evaluation
(``cloud_file`` getters). The cache keeps them in OSWorld's own layout (`context.FileCache`:
``<cache>/<task id>/<uuid5(url)>_<name>`` and ``<cache>/<task id>/<dest>``), so an OSWorld
``cache/`` folder is one as it is. `fill` downloads what is missing and writes
``manifest.json`` at the cache's top: per file its task, URL, path (relative to the cache), size
and SHA-256. `verify` checks a copied cache against its manifest, offline.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.getters import NETWORK_GETTERS
from gui_gym.suites.osworld.loader import OSWorldTaskSpec

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class CacheEntry:
    """One file a task downloads, and where the cache keeps it."""

    task_id: str
    url: str
    path: Path


def cache_entries(spec: OSWorldTaskSpec, cache: FileCache) -> list[CacheEntry]:
    """Every file `spec` downloads (setup and postconfig ``download`` steps, ``cloud_file``
    getters), at the path the episode will look for it."""
    entries = []
    for step in (*spec.config, *spec.evaluator.postconfig):
        if step.type == "download":
            for file in step.parameters.get("files", []):
                entries.append(CacheEntry(spec.id, file["url"], cache.download_path(spec.id, file["url"], file["path"])))
    for getter in spec.evaluator.getters:
        if getter.get("type") in NETWORK_GETTERS:
            urls = getter["path"] if getter.get("multi") else [getter["path"]]
            dests = getter["dest"] if getter.get("multi") else [getter["dest"]]
            entries.extend(CacheEntry(spec.id, url, cache.task_dir(spec.id) / dest) for url, dest in zip(urls, dests))
    return list({(e.url, e.path): e for e in entries}.values())


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fill(specs: Iterable[OSWorldTaskSpec], cache: FileCache) -> tuple[list[dict], list[str]]:
    """Download every missing file of `specs` into `cache` and write its manifest (merged with
    the one already there). The manifest's records, and one line per file that could not be had."""
    fetcher = FileCache(cache.root, allow_download=True)
    records = {(r["url"], r["path"]): r for r in read_manifest(cache.root)}
    failures = []
    for spec in specs:
        for entry in cache_entries(spec, cache):
            try:
                fetcher.fetch(entry.url, entry.path)
            except MissingResourceError as exc:
                log.warning("OSWorld cache: %s", exc)
                failures.append(f"{entry.task_id}: {exc}")
                continue
            relative = str(entry.path.relative_to(cache.root))
            records[(entry.url, relative)] = {"task_id": entry.task_id, "url": entry.url, "path": relative,
                                              "size": entry.path.stat().st_size, "sha256": sha256(entry.path)}
    ordered = sorted(records.values(), key=lambda r: (r["path"], r["url"]))
    Path(cache.root).mkdir(parents=True, exist_ok=True)
    (Path(cache.root) / MANIFEST).write_text(json.dumps(ordered, indent=1) + "\n")
    return ordered, failures


def read_manifest(root: Path) -> list[dict]:
    """The manifest's records; [] when the cache has none yet."""
    path = Path(root) / MANIFEST
    if not path.is_file():
        return []
    try:
        records = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise TaskConfigError(f"{path} is not a cache manifest: {exc}") from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) and {"url", "path", "size", "sha256"} <= set(r)
                                                for r in records):
        raise TaskConfigError(f"{path} is not a cache manifest: expected a list of url/path/size/sha256 records")
    return records


def verify(root: Path, specs: Iterable[OSWorldTaskSpec] = ()) -> list[str]:
    """What is wrong with the cache at `root`, offline: files of its manifest that are missing,
    of another size or another SHA-256, and files `specs` need that it lacks. [] when sound."""
    root = Path(root)
    records = read_manifest(root)
    if not records and not (root / MANIFEST).is_file():
        return [f"{root} has no {MANIFEST} (fill it with `gui-bench osworld fetch --cache {root}`)"]
    problems: dict[str, str] = {}
    for record in records:
        name, path = record["path"], root / record["path"]
        if ".." in Path(name).parts or Path(name).is_absolute():
            problems[name] = "a path outside the cache"
        elif not path.is_file():
            problems[name] = f"missing ({record['url']})"
        elif path.stat().st_size != record["size"]:
            problems[name] = f"{path.stat().st_size} bytes, the manifest says {record['size']}"
        elif sha256(path) != record["sha256"]:
            problems[name] = "its SHA-256 differs from the manifest's"
    cache = FileCache(root, allow_download=False)
    for spec in specs:
        for entry in cache_entries(spec, cache):
            name = str(entry.path.relative_to(root))
            if not entry.path.is_file() and name not in problems:
                problems[name] = f"missing, task {entry.task_id} needs {entry.url}"
    return [f"{name}: {problem}" for name, problem in sorted(problems.items())]
