"""What each OSWorld task needs, and which of those needs this install meets.

A task needs setup step types (``config`` and ``postconfig``), getters, metrics (with their
options: ``compare_table`` rule types, for instance), and sometimes the network (files to
download that are not cached, web pages, a proxy). `needs` lists them; `unmet` says what is
missing here; `report` prints the per-domain table::

    python -m gui_gym.suites.osworld.coverage ../shared/data/osworld-verified
"""

from __future__ import annotations

import argparse
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.getters import GETTER_TYPES, NETWORK_GETTERS
from gui_gym.suites.osworld.loader import OSWorldTaskSpec, load_tasks
from gui_gym.suites.osworld.metrics import has_metric
from gui_gym.suites.osworld.setup import STEP_TYPES

WEB_STEPS = frozenset({"chrome_open_tabs", "googledrive", "login", "update_browse_history", "proxy"})


@dataclass(frozen=True)
class Needs:
    """Everything one task asks of the install."""

    setup_types: frozenset[str]
    getters: frozenset[str]
    metrics: tuple[tuple[str, dict], ...]
    downloads: tuple[str, ...]
    """URLs of files the task fetches (setup ``download`` and ``cloud_file`` getters)."""
    web: bool
    """The task opens web pages or services (it needs the internet whatever is cached)."""


def needs(spec: OSWorldTaskSpec) -> Needs:
    steps = (*spec.config, *spec.evaluator.postconfig)
    getters = spec.evaluator.getters
    downloads = [f["url"] for s in steps if s.type == "download" for f in s.parameters.get("files", [])]
    for getter in getters:
        if getter.get("type") in NETWORK_GETTERS:
            paths = getter["path"] if getter.get("multi") else [getter["path"]]
            downloads.extend(paths)
    web = spec.proxy or any(s.type in WEB_STEPS for s in steps)
    return Needs(setup_types=frozenset(s.type for s in steps),
                 getters=frozenset(g["type"] for g in getters),
                 metrics=tuple(zip(spec.evaluator.funcs, spec.evaluator.options)),
                 downloads=tuple(downloads), web=web)


def unmet(spec: OSWorldTaskSpec, cache: FileCache | None = None, network: bool = True) -> dict[str, list[str]]:
    """What this install lacks to run `spec`, by kind (empty lists: all met). With a `cache`,
    downloads not cached count as needing the network; `network` says whether it is there."""
    need = needs(spec)
    missing_net: list[str] = []
    if not network:
        if need.web:
            missing_net.append("web access")
        if cache is not None:
            missing_net.extend(url for url in need.downloads if not _cached(cache, spec, url))
        elif need.downloads:
            missing_net.append(f"{len(need.downloads)} file download(s)")
    return {
        "setup": sorted(need.setup_types - set(STEP_TYPES)),
        "getters": sorted(need.getters - GETTER_TYPES),
        "metrics": sorted({f for f, options in need.metrics if not has_metric(f, options)}),
        "network": missing_net,
    }


def _cached(cache: FileCache, spec: OSWorldTaskSpec, url: str) -> bool:
    """Whether a download of `url` for this task is in the cache (under any file name)."""
    task_dir = cache.task_dir(spec.id)
    prefix = str(uuid.uuid5(uuid.NAMESPACE_URL, url))
    return task_dir.is_dir() and any(p.name.startswith(prefix) for p in task_dir.iterdir())


def runnable(spec: OSWorldTaskSpec) -> bool:
    """Every setup type, getter and metric the task needs is implemented here."""
    gaps = unmet(spec)
    return not (gaps["setup"] or gaps["getters"] or gaps["metrics"])


def coverage_table(specs: Iterable[OSWorldTaskSpec]) -> list[dict[str, object]]:
    """Per domain (and a total row): tasks, and how many have every setup type / getter /
    metric / all three they need, and how many of those need no internet."""
    rows: dict[str, Counter] = defaultdict(Counter)
    for spec in specs:
        gaps, need = unmet(spec), needs(spec)
        for domain in (spec.domain, "TOTAL"):
            row = rows[domain]
            row["tasks"] += 1
            row["setup"] += not gaps["setup"]
            row["getters"] += not gaps["getters"]
            row["metrics"] += not gaps["metrics"]
            complete = not (gaps["setup"] or gaps["getters"] or gaps["metrics"])
            row["runnable"] += complete
            row["offline"] += complete and not need.web and not need.downloads
    order = sorted(d for d in rows if d != "TOTAL") + ["TOTAL"]
    return [{"domain": d, **{k: rows[d][k] for k in ("tasks", "setup", "getters", "metrics", "runnable", "offline")}}
            for d in order]


def format_table(rows: list[dict[str, object]]) -> str:
    headers = ["domain", "tasks", "setup", "getters", "metrics", "runnable", "offline"]
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in headers]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    for row in rows:
        lines.append("  ".join(str(row[h]).ljust(w) if i == 0 else str(row[h]).rjust(w)
                               for i, (h, w) in enumerate(zip(headers, widths))))
    return "\n".join(lines)


def missing_counts(specs: Iterable[OSWorldTaskSpec]) -> dict[str, Counter]:
    """How many tasks each missing setup type / getter / metric blocks."""
    counts: dict[str, Counter] = {"setup": Counter(), "getters": Counter(), "metrics": Counter()}
    for spec in specs:
        for kind, names in unmet(spec).items():
            if kind in counts:
                counts[kind].update(names)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Per-domain coverage of OSWorld tasks by this install.")
    parser.add_argument("tasks", help="'sample' or a folder holding examples/ and test_all.json")
    parser.add_argument("--index", default=None, help="index file (default test_all.json when present)")
    parser.add_argument("--top", type=int, default=10, help="how many missing items to list per kind")
    args = parser.parse_args(argv)
    specs = load_tasks(args.tasks, index=args.index)
    print(f"{len(specs)} tasks loaded from {args.tasks}")
    print("columns: tasks whose needs of that kind are all met; runnable = setup + getters + metrics; "
          "offline = runnable without internet")
    print(format_table(coverage_table(specs)))
    for kind, counter in missing_counts(specs).items():
        if counter:
            top = ", ".join(f"{name} ({n})" for name, n in counter.most_common(args.top))
            print(f"missing {kind}: {top}")


if __name__ == "__main__":
    main()
