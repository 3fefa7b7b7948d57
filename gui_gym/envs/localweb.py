"""`GUI/LocalWeb-v0`: the embedded offline web suite (`gui_gym.suites.localweb`) in a browser."""

from __future__ import annotations

from typing import Any, Iterable

from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig
from gui_gym.backends.browser.web_access import OWN_SERVERS_ONLY
from gui_gym.env import GUIEnv
from gui_gym.suites.localweb.suite import LocalWebSuite
from gui_gym.suites.localweb.templates import DIFFICULTY_STEPS

def make_env(*, apps: Iterable[str] | None = None, difficulty: str | Iterable[str] | None = None,
             **kwargs: Any) -> GUIEnv:
    """Entry point of ``GUI/LocalWeb-v0``.

    `apps` limits the suite to those apps; `difficulty` ("easy", "medium", "hard", or several)
    restricts the tasks drawn by ``reset()``; `BrowserConfig` fields (viewport, executable_path, headless, ...) configure
    the browser; the rest goes to `GUIEnv`. The browser reaches the env's own app server and
    nothing else (not another env's, not a host file); the server answers only this browser.
    """
    suite = LocalWebSuite([apps] if isinstance(apps, str) else apps)
    if difficulty is not None:
        levels = {difficulty} if isinstance(difficulty, str) else set(difficulty)
        if levels - set(DIFFICULTY_STEPS):
            raise ValueError(f"unknown difficulty {sorted(levels - set(DIFFICULTY_STEPS))}; expected easy, medium or hard")
        kwargs["task_ids"] = [t for t in suite.task_ids if suite.describe(t)["difficulty"] in levels]
    config = BrowserConfig.pop_from(kwargs, allowed_hosts=OWN_SERVERS_ONLY, disable_animations=True)
    return GUIEnv(BrowserBackend(config), suite, **kwargs)
