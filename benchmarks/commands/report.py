"""``gui-bench report``: the HTML report of a results folder, and its summary."""

from __future__ import annotations

import argparse

from gui_gym.benchmarks.harness.report import IMAGE_MODES
from gui_gym.benchmarks.harness.summary import finalize
from gui_gym.benchmarks.harness.summary import print_summary as _print_summary
from gui_gym.errors import GUIGymError
from gui_gym.registration import make as make_env

HELP = "write the HTML report of a results folder and print its summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="a gui-bench results folder")
    parser.add_argument("--images", choices=IMAGE_MODES, default=IMAGE_MODES[0],
                        help="screenshots referenced as the episodes' files (link, the default: open the report "
                             "from its folder), or embedded as WebP or PNG for one self-contained file")


def run(args: argparse.Namespace) -> int:
    from gui_gym.benchmarks.harness.report import build_report
    from gui_gym.benchmarks.harness.results import ResultsStore

    store = ResultsStore(args.dir)
    run = store.read_run(required=("env_id", "env_kwargs"))
    if run is None:
        path = build_report(store.root, images=args.images)
        print(f"report: {path}")
        return 0
    jobs = store.jobs_of_run()
    previous = store.read_summary() or {}
    try:
        env = make_env(run["env_id"], run["env_kwargs"])
    except GUIGymError:
        env = None  # the env cannot be made here: keep the suite's report from the run itself
    try:
        summary = finalize(store, jobs, env.unwrapped.suite if env is not None else None, previous.get("wall_s"),
                           images=args.images, suite_report=previous.get("suite_report"))
    finally:
        if env is not None:
            env.close()
    _print_summary(summary, store.root)
    return 0
