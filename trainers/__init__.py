"""The trainers (GRPO, PAGE, BEPA) and ``gui-train``. They need the train extra (torch,
transformers); `main`, the command's entry point, checks for it before importing any trainer,
so a core install gets one line naming the extra rather than a traceback from ``import torch``."""

from __future__ import annotations

import sys

from gui_gym.installed_names import refuse_bare_name

refuse_bare_name(__name__)


def main(argv: list[str] | None = None) -> int:
    """``gui-train``: `gui_gym.trainers.cli.main` once the train extra is known to be there."""
    from gui_gym.errors import MissingDependencyError
    from gui_gym.extras import require_extra

    try:
        require_extra("train", "gui-train")
    except MissingDependencyError as exc:
        print(f"gui-train: error: {exc}", file=sys.stderr)
        return 2
    from gui_gym.trainers.cli import main as train_main

    return train_main(argv)
