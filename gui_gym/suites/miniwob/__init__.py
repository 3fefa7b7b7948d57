"""``GUI/MiniWoB-v0``: every task of the installed MiniWoB++ package (``pip install
'gui-gym[miniwob]'``), its own pages and reward functions, on our browser backend (see
docs/miniwob.md).

    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GUI/MiniWoB-v0", tasks="debug")  # doctest: +SKIP
    >>> obs, info = env.reset(seed=0, options={"task_id": "click-test"})  # doctest: +SKIP
    >>> info["instruction"]  # doctest: +SKIP
    'Click the button.'

The pages are served from the package's ``html`` folder on loopback; requests to anything
else are blocked. A page lays out in an 800x600 window, as in the package's headless Chrome
(800x800 when the task set holds a flight search, whose task is 667 pixels tall), and the
agent's screen is its top-left task area, what the package's env crops its screenshots to:
160x210 pixels, or the flight searches' 375x667 when the task set holds one (the other tasks
then sit in its corner). ``screen=`` and ``viewport=`` set others.
"""

from __future__ import annotations

from typing import Any, Iterable

from gui_gym.suites.miniwob.catalog import CATEGORIES, SUBSET_HELP, WEBGUM
from gui_gym.suites.miniwob.suite import REWARDS, MiniWoBConfig, MiniWoBSuite, MiniWoBTask

__all__ = ["CATEGORIES", "REWARDS", "SUBSET_HELP", "WEBGUM", "MiniWoBConfig", "MiniWoBSuite", "MiniWoBTask",
           "make_env"]

LOOPBACK = frozenset({"127.0.0.1"})
TASK_SCREEN = (160, 210)
"""MiniWoB's task area (``#wrap``), what the package's env crops its screenshots to."""
FLIGHT_SCREEN = (375, 667)
"""The flight searches' task area."""
WINDOW = (800, 600)
"""The viewport pages lay out in: Chrome's default window, so nothing a task draws past its
area (a pie menu, the score display beside it) makes the page scroll, as in the package's env."""
FLIGHT_WINDOW = (800, 800)


def make_env(*, tasks: str | Iterable[str] | None = None, reward: str = "positive", data_mode: str = "train",
             time_limit_s: float | None = None, steps_per_task: int = 10, **kwargs: Any):
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
    from gui_gym.backends.browser import BrowserBackend, BrowserConfig
    from gui_gym.env import GUIEnv

    config = MiniWoBConfig(reward=reward, data_mode=data_mode, time_limit_s=time_limit_s, max_steps=steps_per_task)
    suite = MiniWoBSuite(tasks, config)
    flight = suite.has_flight_tasks
    browser = BrowserConfig.pop_from(kwargs, allowed_hosts=LOOPBACK, viewport=FLIGHT_WINDOW if flight else WINDOW,
                                     screen=FLIGHT_SCREEN if flight else TASK_SCREEN)
    return GUIEnv(BrowserBackend(browser), suite, **kwargs)
