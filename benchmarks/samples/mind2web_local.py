"""Generate the bundled local Online-Mind2Web task file from LocalWeb, deterministically:

    python -m gui_gym.benchmarks.samples.mind2web_local [--out gui_gym/suites/mind2web/local_tasks.json]

Each entry of `SELECTION` (a LocalWeb template and a seed) becomes one task in the benchmark's
own format: ``confirmed_task`` is the template's instruction at that seed, ``website`` the URL
path of the app page the task starts on, ``reference_length`` the number of actions the
template's oracle takes (run through a real browser; the oracle must succeed, or nothing is
written), ``level`` Online-Mind2Web's level for that length, and ``localweb`` the mapping back
to the template. Rerun it whenever LocalWeb's templates change: the suite refuses a task whose
template no longer produces the file's instruction.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from gui_gym.errors import TaskConfigError
from gui_gym.suites.mind2web.loader import level_of
from gui_gym.suites.mind2web.suite import LOCAL_TASK_FILE

SELECTION: tuple[tuple[str, int], ...] = (
    ("shop.add-to-cart", 1), ("shop.product-info", 2), ("shop.cheapest-in-category", 3),
    ("shop.variant-quantity", 4), ("shop.filter-count", 5), ("shop.best-rated-under-budget", 6),
    ("mail.star", 1), ("mail.meeting-time", 2), ("mail.reply-latest", 3),
    ("mail.file-project", 4), ("mail.send-file", 5), ("mail.summarize-details", 6),
    ("calendar.delete-event", 1), ("calendar.event-end", 2), ("calendar.create-event", 3),
    ("calendar.reschedule", 4), ("calendar.invite-people", 5), ("calendar.room-conflict", 6),
    ("admin.security-toggle", 1), ("admin.user-role", 2), ("admin.invite-user", 3),
    ("admin.org-profile", 4), ("admin.create-api-key", 5), ("admin.audit-investigation", 6),
    ("wiki.infobox-fact", 1), ("wiki.watch-page", 2), ("wiki.fix-typo", 3),
    ("wiki.reply-talk", 4), ("wiki.event-river-tributary", 5), ("wiki.revert-vandalism", 6),
)
"""(LocalWeb template, seed): six tasks per app, easy to hard, answers and state changes."""


def local_task_id(template: str, seed: int) -> str:
    return f"{template}.s{seed}"


def measure(env: Any, template: str, seed: int) -> dict[str, Any]:
    """The task record of `template` at `seed`, its reference length measured by its oracle."""
    obs, info = env.reset(options={"task_id": template, "instance_seed": seed})
    base = env.unwrapped
    steps, done = 0, False
    while not done:
        action = base.oracle_action()
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 0 if action.is_terminal else 1
        done = terminated or truncated
    if not info["success"]:
        raise TaskConfigError(f"the oracle of {template!r} at seed {seed} did not succeed "
                              f"(score {info['score']}, action error {info['action_error']})")
    app = base.suite.templates[template].app
    return {"task_id": local_task_id(template, seed), "confirmed_task": base.task.instruction,
            "website": f"/{app}{base.suite.templates[template].start_path}", "reference_length": steps,
            "level": level_of(steps), "localweb": {"template": template, "seed": seed}}


def generate(selection: Sequence[tuple[str, int]] = SELECTION) -> list[dict[str, Any]]:
    import gymnasium as gym

    import gui_gym  # noqa: F401  registers the GUI/* ids this generator plays

    env = gym.make("GUI/LocalWeb-v0", apps=sorted({template.split(".")[0] for template, _ in selection}))
    tasks = []
    try:
        for template, seed in selection:
            tasks.append(measure(env, template, seed))
            print(f"{tasks[-1]['task_id']}: {tasks[-1]['reference_length']} steps", file=sys.stderr, flush=True)
        return tasks
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(LOCAL_TASK_FILE), help="where to write the task file")
    args = parser.parse_args(argv)
    tasks = generate()
    Path(args.out).write_text(json.dumps(tasks, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    levels = {level: sum(t["level"] == level for t in tasks) for level in ("easy", "medium", "hard")}
    print(f"wrote {len(tasks)} tasks to {args.out}: {levels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
