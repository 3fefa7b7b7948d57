"""``GUI/OSWorld-v0``: OSWorld(-Verified) task files on a desktop behind OSWorld's server
protocol.

    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GUI/OSWorld-v0", provider="local", tasks="sample")  # doctest: +SKIP

``tasks`` is "sample" (the bundled set, runnable on the ``local`` provider with Debian apps)
or OSWorld's ``evaluation_examples`` folder; see `OSWorldSuite` for the task-set options,
`DesktopConfig` for the desktop's (``provider``, ``screen_size``, ``host``, ...), and
`GUIEnv` for the rest. Actions default to OSWorld's pyautogui action space, parsed (never
executed) into canonical actions.
"""

from __future__ import annotations

import inspect
from typing import Any

from gui_gym.backends.desktop import DesktopBackend, DesktopConfig
from gui_gym.env import GUIEnv
from gui_gym.extras import require_extra
from gui_gym.suites.osworld import OSWorldSuite

SUITE_ARGS = tuple(p for p in inspect.signature(OSWorldSuite.__init__).parameters if p != "self")


def make_env(**kwargs: Any):
    """Entry point of ``GUI/OSWorld-v0``: `OSWorldSuite` and `DesktopConfig` fields, then
    `GUIEnv` kwargs (``action_format`` defaults to "pyautogui"). Needs the desktop extra (the
    local desktop's X input and screenshots, and the metrics' document readers), checked here so
    a core install fails at once rather than when the sandbox's server cannot start."""
    require_extra("desktop", "GUI/OSWorld-v0")
    suite = OSWorldSuite(**{k: kwargs.pop(k) for k in list(kwargs) if k in SUITE_ARGS})
    backend = DesktopBackend(DesktopConfig.pop_from(kwargs))
    kwargs.setdefault("action_format", "pyautogui")
    return GUIEnv(backend, suite, **kwargs)
