"""`GUI/Demo-v0`: the demo suite's three pages (`gui_gym.suites.demo`) in a browser."""

from __future__ import annotations

from typing import Any

from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig
from gui_gym.backends.browser.web_access import OWN_SERVERS_ONLY
from gui_gym.env import GUIEnv
from gui_gym.suites.demo import DemoSuite


def make_env(**kwargs: Any) -> GUIEnv:
    """Entry point of ``GUI/Demo-v0``: `BrowserConfig` fields and `GUIEnv` kwargs. The browser
    reaches the demo's own server only."""
    config = BrowserConfig.pop_from(kwargs, allowed_hosts=OWN_SERVERS_ONLY, disable_animations=True)
    return GUIEnv(BrowserBackend(config), DemoSuite(), **kwargs)
