"""``gui-bench list``: every GUI/* id with its task count and what it needs, or one env's
tasks with the suite's facts."""

from __future__ import annotations

import argparse
import json

from gui_gym.errors import GUIGymError
from gui_gym.registration import make as make_env

HELP = "list the GUI/* env ids, their task counts and what each needs; or one env's tasks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", help="list this env's tasks with the suite's facts (domain, difficulty, ...)")


def describe_env(env_id: str) -> tuple[str, str]:
    """(task count, what the env needs / why it cannot be made) for `list`."""
    try:
        env = make_env(env_id, {})
    except GUIGymError as exc:
        return "-", f"unavailable: {exc}"
    try:
        unwrapped = env.unwrapped
        count = str(len(unwrapped.task_ids))
        needs = getattr(unwrapped.suite, "needs", None)
        if needs is None:
            backend = type(getattr(unwrapped, "backend", None)).__name__
            needs = "Chromium (found automatically; $GUI_GYM_CHROMIUM overrides)" if backend == "BrowserBackend" \
                else f"what its {backend} drives"
        return count, f"ready; needs {needs}"
    except GUIGymError as exc:
        return "-", f"unavailable: {exc}"
    finally:
        env.close()


def run(args: argparse.Namespace) -> int:
    from gui_gym.registration import ENV_IDS

    if args.env:
        env = make_env(args.env, {})
        try:
            suite = env.unwrapped.suite
            for task_id in env.unwrapped.task_ids:
                facts = {k: v for k, v in suite.describe(task_id).items() if k != "task_id"}
                print(task_id + ("  " + json.dumps(facts, ensure_ascii=False) if facts else ""))
        finally:
            env.close()
        return 0
    rows = [(env_id, *describe_env(env_id)) for env_id in ENV_IDS]
    width = max(len(r[0]) for r in rows)
    print(f"{'env id'.ljust(width)}  tasks  status")
    for env_id, count, status in rows:
        print(f"{env_id.ljust(width)}  {count.rjust(5)}  {status}")
    return 0
