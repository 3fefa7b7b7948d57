"""`GUI/Demo-v0`: the demo suite's three pages (`gui_gym.suites.demo`) in a browser."""

from __future__ import annotations

from typing import Any

from gui_gym.backends.browser import BrowserBackend, BrowserConfig
from gui_gym.env import GUIEnv
from gui_gym.suites.demo import DemoSuite


def make_env(**kwargs: Any) -> GUIEnv:
    """Entry point of ``GUI/Demo-v0``: `BrowserConfig` fields and `GUIEnv` kwargs."""
    config = BrowserConfig.pop_from(kwargs, allowed_hosts=frozenset({"127.0.0.1"}))
    return GUIEnv(BrowserBackend(config), DemoSuite(), **kwargs)
