"""``gui-bench osworld``: checks of OSWorld on the local desktop.

    gui-bench osworld check                                  # every task runnable here offline
    gui-bench osworld check --tasks domain:os --tasks-root DIR --json out.json
    gui-bench osworld check --shell openbox --tasks domain:os    # on the light openbox desktop
    gui-bench osworld coverage [--tasks-root DIR] [--quiet]  # what runs here, and why the rest does not
    gui-bench osworld fetch --cache DIR [--tasks ...]        # fill the file cache, write its manifest
    gui-bench osworld fetch --cache DIR --verify             # check a copied cache, offline

``check`` runs the two no-op agents (`gui_gym.benchmarks.harness.noop_check`) and prints per
task the score expected on OSWorld's VM, the score got, and for a mismatch what the evaluator
read; then the per-domain table. It exits 1 when any task mismatches. ``coverage`` prints which
tasks gui-gym evaluates and runs here, and for each one that does not run, the reason
(`gui_gym.suites.osworld.coverage`). ``fetch`` fills the OSWorld file
cache (OSWorld's own ``cache/`` layout) and its manifest, or with ``--verify`` checks one
(`gui_gym.suites.osworld.cache_manifest`); it exits 1 on any file it could not fetch or check. The task folder is
OSWorld's ``evaluation_examples`` layout (``examples/<domain>/<id>.json`` and ``test_all.json``):
``--tasks-root``, else ``$GUI_GYM_OSWORLD_TASKS``.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from gui_gym.benchmarks.harness.noop_check import (ANSWERS, as_records, default_cache, domain_table, offline_runnable,
                                                   result_line, run_check)
from gui_gym.benchmarks.harness.task_selection import select_tasks
from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS
from gui_gym.errors import HarnessError
from gui_gym.suites.osworld import OSWorldSuite
from gui_gym.suites.osworld.cache_manifest import MANIFEST, fill, read_manifest, verify
from gui_gym.suites.osworld.coverage import format_table, report
from gui_gym.suites.osworld.loader import load_tasks

HELP = ("OSWorld on the local desktop: `check` runs the no-op agents (DONE at once, FAIL at once) over the tasks; "
        "`coverage` says which tasks run here and why the others do not; `fetch` fills or verifies the offline file "
        "cache")
TASKS_VARIABLE = "GUI_GYM_OSWORLD_TASKS"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="osworld_command", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="no-op agents: DONE must score 0 everywhere, FAIL 1 exactly on "
                                             "infeasible tasks; prints each mismatch with what the evaluator read")
    check.add_argument("--tasks-root", help=f"OSWorld's evaluation_examples folder (default ${TASKS_VARIABLE})")
    check.add_argument("--index", help="index file in it (default test_all.json)")
    check.add_argument("--tasks", action="append", metavar="SPEC",
                       help="task ids, a file of ids, or domain:NAME; default every task runnable here offline")
    check.add_argument("--cache", help="OSWorld file cache to take downloads from (never downloads)")
    check.add_argument("--answers", default=",".join(ANSWERS), help="which no-op agents (default DONE,FAIL)")
    check.add_argument("--screen-size", default="1920x1080", help="desktop size WxH (default 1920x1080, OSWorld's)")
    check.add_argument("--json", help="also write every result to this JSON file")
    check.add_argument("--shell", choices=SHELLS, default=DEFAULT_SHELL,
                       help="the local desktop: gnome (the default: GNOME Shell, as on OSWorld's VM) or openbox (light)")
    coverage = actions.add_parser("coverage", help="which tasks are evaluable and runnable here (offline too), and "
                                                   "why each of the others cannot run on the local desktop")
    coverage.add_argument("--tasks-root", help=f"OSWorld's evaluation_examples folder (default ${TASKS_VARIABLE})")
    coverage.add_argument("--index", help="index file in it (default test_all.json)")
    coverage.add_argument("--quiet", action="store_true", help="the table and the reasons' counts, not each task")
    fetch = actions.add_parser("fetch", help="download the tasks' files into the cache and write its manifest "
                                             "(URL, path, size, sha256); --verify checks a cache offline")
    fetch.add_argument("--tasks-root", help=f"OSWorld's evaluation_examples folder (default ${TASKS_VARIABLE})")
    fetch.add_argument("--index", help="index file in it (default test_all.json)")
    fetch.add_argument("--tasks", action="append", metavar="SPEC", help="task ids, a file of ids, or domain:NAME; "
                                                                        "default every task")
    fetch.add_argument("--cache", help="the cache folder (default $GUI_GYM_OSWORLD_CACHE or ~/.cache/gui-gym/osworld)")
    fetch.add_argument("--verify", action="store_true",
                       help="download nothing: check the files against the manifest (and, with a task folder, that "
                            "every file the tasks need is there)")


def tasks_root(value: str | None) -> Path:
    """The task folder from the option, else the environment; a clear error without either."""
    root = value or os.environ.get(TASKS_VARIABLE)
    if not root:
        raise HarnessError(f"no OSWorld task folder: pass --tasks-root or set ${TASKS_VARIABLE} to OSWorld's "
                           "evaluation_examples folder (holding examples/ and test_all.json)")
    if not (Path(root) / "examples").is_dir():
        raise HarnessError(f"{root} is not an OSWorld task folder: it has no examples/ folder")
    return Path(root)


def run(args: argparse.Namespace) -> int:
    return {"check": check, "coverage": coverage, "fetch": fetch}[args.osworld_command](args)


def coverage(args: argparse.Namespace) -> int:
    root = tasks_root(args.tasks_root)
    print(report(load_tasks(root, index=args.index), str(root), args.quiet))
    return 0


def fetch(args: argparse.Namespace) -> int:
    cache = default_cache(args.cache)
    if args.verify:
        root = args.tasks_root or os.environ.get(TASKS_VARIABLE)
        specs = _chosen_specs(tasks_root(root), args) if root else []
        problems = verify(cache.root, specs)
        for problem in problems:
            print(f"BAD {problem}")
        count = len(read_manifest(cache.root))
        print(f"{cache.root}: {count} file(s) in the manifest, {len(problems)} problem(s)")
        return 1 if problems else 0
    specs = _chosen_specs(tasks_root(args.tasks_root), args)
    records, failures = fill(specs, cache)
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"{cache.root}: {len(records)} file(s) ({sum(r['size'] for r in records)} bytes) in {cache.root / MANIFEST}; "
          f"{len(failures)} could not be fetched")
    return 1 if failures else 0


def _chosen_specs(root: Path, args: argparse.Namespace) -> list:
    suite = OSWorldSuite(root, index=args.index, allow_download=False)
    ids = select_tasks(suite.task_ids, suite.describe, args.tasks, None) if args.tasks else suite.task_ids
    return [suite.specs[t] for t in ids]


def check(args: argparse.Namespace) -> int:
    import gymnasium as gym

    root = tasks_root(args.tasks_root)
    answers = [a.strip().upper() for a in args.answers.split(",") if a.strip()]
    if not answers or set(answers) - set(ANSWERS):
        raise HarnessError(f"--answers takes {', '.join(ANSWERS)} (comma-separated), received {args.answers!r}")
    try:
        width, height = (int(v) for v in args.screen_size.lower().split("x"))
    except ValueError as exc:
        raise HarnessError(f"--screen-size expects WxH such as 1920x1080, received {args.screen_size!r}") from exc
    cache = default_cache(args.cache)
    suite = OSWorldSuite(root, index=args.index, cache_dir=cache.root, allow_download=False)
    runnable = {s.id: s for s in offline_runnable(suite.specs.values(), cache)}
    chosen = select_tasks(list(runnable), suite.describe, args.tasks, None) if args.tasks else list(runnable)
    skipped = len(suite.specs) - len(runnable)
    print(f"no-op check of {len(chosen)} task(s) from {root} ({skipped} of {len(suite.specs)} are not runnable "
          f"here offline: `python -m gui_gym.suites.osworld {root}` says why); agents: {', '.join(answers)}",
          flush=True)
    if not chosen:
        raise HarnessError("no task to check: --tasks selects none of the tasks runnable here offline")

    def make_env():
        return gym.make("GUI/OSWorld-v0", tasks=root, index=args.index, provider="local", cache_dir=cache.root,
                        allow_download=False, screen_size=(width, height), shell=args.shell)

    results = run_check(make_env, [runnable[t] for t in chosen], answers,
                        report=lambda r: print(result_line(r), flush=True))
    print(format_table(domain_table(results)))
    if args.json:
        Path(args.json).write_text(json.dumps(as_records(results), indent=1))
    return 0 if all(r.ok for r in results) else 1
