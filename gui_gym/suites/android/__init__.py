"""Android's suites: AndroidWorld's tasks on a device over adb (`suite`, its 116 tasks one
module per app in `tasks/`) and AndroidControl's offline step-wise evaluation on recorded episodes
(`androidcontrol`). The ``GUI/Android-v0`` and ``GUI/AndroidControl-v0`` entry points are
`gui_gym.envs.android`.
"""

from __future__ import annotations

from gui_gym.suites.android.androidcontrol import AndroidControlSuite, AndroidControlTask, load_episodes
from gui_gym.suites.android.catalog import CatalogEntry, load_catalog
from gui_gym.suites.android.suite import AndroidWorldSuite
from gui_gym.suites.android.tasks.base import AndroidWorldTask

__all__ = ["AndroidControlSuite", "AndroidControlTask", "AndroidWorldSuite", "AndroidWorldTask", "CatalogEntry",
           "load_catalog", "load_episodes"]
