"""Online-Mind2Web task files as a suite: loading (`loader`), the suite in live and local mode
(`suite`), the agent's action history as the judge reads it (`history`), judge agreement
(`agreement`); the local task set's maker is `gui_gym.benchmarks.samples.mind2web_local`. The ``GUI/OnlineMind2Web-v0`` entry
point is `gui_gym.envs.mind2web`; the judge's reward wrapper is
`gui_gym.wrappers.webjudge_reward`."""

from __future__ import annotations

from gui_gym.suites.mind2web.loader import LEVELS, Mind2WebTaskSpec, TaskFile, load_task_file
from gui_gym.suites.mind2web.suite import Mind2WebSuite

__all__ = ["LEVELS", "Mind2WebSuite", "Mind2WebTaskSpec", "TaskFile", "load_task_file"]
