"""`GUI/MiniWoB-v0`: the installed MiniWoB++ package's tasks (`gui_gym.suites.miniwob`) in a browser."""

from __future__ import annotations

from typing import Any, Iterable

from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig
from gui_gym.backends.static import ScreenshotSpace
from gui_gym.backends.browser.web_access import OWN_SERVERS_ONLY
from gui_gym.env import GUIEnv
from gui_gym.suites.miniwob.suite import FLIGHT_SCREEN, TASK_SCREEN, MiniWoBConfig, MiniWoBSuite

WINDOW = (800, 600)
"""The viewport pages lay out in: Chrome's default window, so nothing a task draws past its
area (a pie menu, the score display beside it) makes the page scroll, as in the package's env."""
FLIGHT_WINDOW = (800, 800)


def make_env(*, tasks: str | Iterable[str] | None = None, reward: str = "positive", data_mode: str = "train",
             time_limit_s: float | None = None, steps_per_task: int = 10, **kwargs: Any) -> GUIEnv:
    """Entry point of ``GUI/MiniWoB-v0``.

    Args:
        tasks: the task set: None for every task, or subset names (`SUBSET_HELP`: all,
            browsergym, webgum, scripted, and MiniWoB's categories original, nodelay,
            additional, debug, flight, hidden-test) and task names, as a list or
            comma-separated.
        reward: how the page's raw reward becomes the score (`REWARDS`): "positive"
            (raw > 0, the default), "perfect" (raw == 1) or "partial" (raw, floored at 0).
        data_mode: MiniWoB's data mode, "train" (the package's default) or "test".
        time_limit_s: the page's episode time limit; None keeps each task's own.
        steps_per_task: every task's step limit (``max_steps=`` overrides it too).
        kwargs: `BrowserConfig` fields (viewport, headless, ...), then `GUIEnv` arguments.
    """
    config = MiniWoBConfig(reward=reward, data_mode=data_mode, time_limit_s=time_limit_s, max_steps=steps_per_task)
    suite = MiniWoBSuite(tasks, config)
    flights, screen_given = suite.flight_tasks, "screen" in kwargs
    only_flights = flights == len(suite.task_ids)
    browser = BrowserConfig.pop_from(kwargs, allowed_hosts=OWN_SERVERS_ONLY, viewport=FLIGHT_WINDOW if flights else WINDOW,
                                     screen=FLIGHT_SCREEN if only_flights else TASK_SCREEN)
    backend = BrowserBackend(browser)
    if flights and not only_flights and not screen_given:
        suite.screen_per_task = True
        backend.screenshot_space = ScreenshotSpace(TASK_SCREEN)  # 160x210 and 375x667 screenshots
    return GUIEnv(backend, suite, **kwargs)
