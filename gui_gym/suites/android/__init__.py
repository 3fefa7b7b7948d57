"""Android: ``GUI/Android-v0`` (AndroidWorld-style tasks on a device over adb) and
``GUI/AndroidControl-v0`` (offline step-wise evaluation on recorded episodes).

``GUI/Android-v0`` needs a running emulator or phone (see docs/android.md); its tasks are the
all 116 AndroidWorld tasks (`tasks.TASKS`, one module per app), with success read
from device state over adb. ``GUI/AndroidControl-v0`` needs nothing but files: by default the
small bundled sample, else a folder in the layout `androidcontrol` documents.
"""

from __future__ import annotations

import os
from typing import Any

from gui_gym.suites.android.androidcontrol import AndroidControlSuite, AndroidControlTask, load_episodes
from gui_gym.suites.android.catalog import CatalogEntry, load_catalog
from gui_gym.suites.android.suite import AndroidWorldSuite
from gui_gym.suites.android.tasks.base import AndroidWorldTask

__all__ = ["AndroidControlSuite", "AndroidControlTask", "AndroidWorldSuite", "AndroidWorldTask", "CatalogEntry",
           "load_catalog", "load_episodes", "make_androidcontrol_env", "make_env"]


def make_env(androidworld_tasks: str | os.PathLike | None = None, **kwargs: Any):
    """Entry point of ``GUI/Android-v0``: `AndroidConfig` fields (serial, adb_host, adb_port,
    screen_size, timeouts), `androidworld_tasks` (AndroidWorld's task_metadata.json, or
    $GUI_GYM_ANDROIDWORLD_TASKS) and `GUIEnv` kwargs. Actions default to AndroidWorld's
    JSONAction (``action_format="androidworld"``); the observation adds ``app``, the package
    in focus, and ``a11y_tree`` with ``observe_a11y=True``."""
    from gui_gym.backends.android import AndroidBackend, AndroidConfig
    from gui_gym.env import GUIEnv

    config = AndroidConfig.pop_from(kwargs)
    kwargs.setdefault("action_format", "androidworld")
    return GUIEnv(AndroidBackend(config), AndroidWorldSuite(androidworld_tasks), **kwargs)


def make_androidcontrol_env(data_dir: str | os.PathLike | None = None, mode: str = "high", **kwargs: Any):
    """Entry point of ``GUI/AndroidControl-v0``: episodes under `data_dir` (or
    $GUI_GYM_ANDROIDCONTROL_DIR, else the bundled sample), `mode` "high" (goal only) or "low"
    (the step instruction), and `GUIEnv` kwargs. Screenshots keep their recorded size.
    Actions default to AndroidControl's JSON, whose input_text does not press Enter."""
    from gui_gym.env import GUIEnv

    suite = AndroidControlSuite(data_dir, mode)
    kwargs.setdefault("action_format", "androidworld")
    kwargs["format_context"] = {"input_text_submits": False, **(kwargs.get("format_context") or {})}
    return GUIEnv(suite.make_backend(), suite, **kwargs)
