"""`gui-bench`: list the envs, run an agent on one, report a results folder.

    gui-bench run                                   # the oracle on GUI/LocalWeb-v0
    gui-bench run --env GUI/Demo-v0 --agent random --workers 2
    gui-bench run --agent openai --agent-arg base_url=http://127.0.0.1:8000/v1 --tasks domain:shop --limit 20
    gui-bench run --resume --out results/LocalWeb-v0/oracle/20250101-120000
    gui-bench report results/LocalWeb-v0/oracle/20250101-120000

Each subcommand is a module (`COMMANDS`) with a ``HELP`` line, ``add_arguments(parser)`` and
``run(args) -> exit code``, the argparse way; adding one is a module and a line in the table.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from gui_gym.errors import GUIGymError

COMMANDS: dict[str, str] = {
    "list": "gui_gym.benchmarks.commands.list_envs",
    "run": "gui_gym.benchmarks.commands.run",
    "report": "gui_gym.benchmarks.commands.report",
    "perf": "gui_gym.benchmarks.commands.perf",
    "judge": "gui_gym.benchmarks.commands.judge",
    "criteria": "gui_gym.benchmarks.commands.criteria",
    "osworld": "gui_gym.benchmarks.commands.osworld",
}
"""Subcommand name -> the module that implements it, imported when the CLI starts."""

logger = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gui-bench", description="Benchmark GUI agents on gui-gym envs.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, target in COMMANDS.items():
        try:
            module = importlib.import_module(target)
        except Exception as exc:  # one broken module must not take the other commands down
            logger.warning("gui-bench %s is unavailable: %s: %s", name, type(exc).__name__, exc)
            commands.add_parser(name, help=f"(unavailable: {type(exc).__name__}: {exc})")
            continue
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(command_run=module.run)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "command_run", None) is None:
        print(f"gui-bench {args.command}: unavailable in this install (see gui-bench --help)", file=sys.stderr)
        return 2
    try:
        return args.command_run(args)
    except GUIGymError as exc:
        print(f"gui-bench {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
