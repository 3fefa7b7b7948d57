"""``python -m gui_gym.suites.osworld <tasks> [--index ...]``: print the per-domain coverage
of an OSWorld task set by this install (see `coverage`)."""

from gui_gym.suites.osworld.coverage import main

main()
