"""OSWorld(-Verified) task files as a suite: loading (`loader`), setup steps (`setup`),
getters and metrics (`getters`, `metrics/`), evaluation (`evaluator`), oracles and coverage.
The ``GUI/OSWorld-v0`` entry point, which puts the suite on a desktop behind OSWorld's server
protocol, is `gui_gym.envs.osworld`."""

from __future__ import annotations

from gui_gym.suites.osworld.loader import OSWorldTaskSpec, load_tasks
from gui_gym.suites.osworld.suite import OSWorldSuite, OSWorldTask

__all__ = ["OSWorldSuite", "OSWorldTask", "OSWorldTaskSpec", "load_tasks"]
