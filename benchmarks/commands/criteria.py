"""``gui-bench criteria``: PAGE's criteria per task, built from the successful trajectories of a
results folder with an OpenAI-compatible judge, into a versioned criteria store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gui_gym.errors import MissingResourceError
from gui_gym.judges.cache import CachedJudge
from gui_gym.judges.criteria import build_criteria
from gui_gym.models.chat import ChatModel
from gui_gym.models.openai_client import OpenAIClient

HELP = ("build PAGE's evaluation criteria per task from the successful trajectories of a results folder, "
        "with an OpenAI-compatible judge, into a versioned criteria store")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", help="a gui-bench results folder")
    parser.add_argument("--store", help="criteria store folder (default: RESULTS_DIR/criteria)")
    parser.add_argument("--judge-base-url", help="OpenAI-compatible API root (default: $GUI_GYM_JUDGE_BASE_URL)")
    parser.add_argument("--judge-model", help="served model name (default: $GUI_GYM_JUDGE_MODEL)")
    parser.add_argument("--judge-api-key", help="API key (default: $GUI_GYM_JUDGE_API_KEY or $OPENAI_API_KEY)")
    parser.add_argument("--temperature", type=float, default=0.0, help="judge sampling temperature (default 0)")
    parser.add_argument("--timeout", type=float, default=120.0, help="per-request timeout in seconds")
    parser.add_argument("--max-iters", type=int, help="judge calls per task at most (default: one per trajectory)")
    parser.add_argument("--task", action="append", help="only this task id (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="judge sampling seed")
    parser.add_argument("--no-cache", action="store_true", help="do not cache judge answers in STORE/.judge-cache")


def run(args: argparse.Namespace) -> int:
    results = Path(args.results_dir)
    if not results.is_dir():
        print(f"gui-bench criteria: results folder {results} does not exist", file=sys.stderr)
        return 2
    store = Path(args.store or results / "criteria")
    try:
        judge: ChatModel = OpenAIClient(args.judge_model, args.judge_base_url, args.judge_api_key,
                                   temperature=args.temperature, timeout_s=args.timeout)
    except (MissingResourceError, ValueError) as exc:
        print(f"gui-bench criteria: {exc}", file=sys.stderr)
        return 2
    if not args.no_cache:
        judge = CachedJudge(judge, store / ".judge-cache")
    try:
        summary = build_criteria(args.results_dir, judge, store, max_iters=args.max_iters,
                                 task_ids=args.task or None, seed=args.seed)
    finally:
        judge.close()
    if not summary:
        print(f"gui-bench criteria: no successful trajectories under {results}", file=sys.stderr)
        return 2
    for task_id, entry in summary.items():
        if entry["version"] is None:
            print(f"{task_id}: no criteria ({len(entry['errors'])} judge error(s)): {entry['errors'][-1:]}")
        else:
            print(f"{task_id}: v{entry['version']}, {len(entry['criteria'])} criteria from "
                  f"{len(entry['trajectories'])} trajectory(ies), {'stable' if entry['stable'] else 'not stable'}")
    print(f"criteria store: {store}")
    return 0 if all(entry["version"] is not None for entry in summary.values()) else 1
