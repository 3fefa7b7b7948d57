"""MiniWoB++ as a suite: every task of the installed MiniWoB++ package (``pip install
'gui-gym[miniwob]'``), its own pages and reward functions, on our browser backend (see
docs/miniwob.md); ``GUI/MiniWoB-v0`` is wired in `gui_gym.envs.miniwob`.

    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GUI/MiniWoB-v0", tasks="click-test,click-button")
    >>> obs, info = env.reset(seed=0, options={"task_id": "click-test"})
    >>> info["instruction"]
    'Click the button.'
    >>> env.close()

The pages are served from the package's ``html`` folder on loopback, to this env's browser
only (its token cookie); the browser reaches that server and nothing else, not another env's. A page lays out in an 800x600 window, as in the package's headless Chrome
(800x800 when the task set holds a flight search, whose task is 667 pixels tall), and the
agent's screen is the task's area in its top-left corner, what the package's env crops its
screenshots to: 160x210 pixels, 375x667 for the flight searches. A task set that holds both
has screenshots of both sizes (its observation space admits any size); ``screen=`` fixes one
screen for every task, ``viewport=`` another window.
"""

from __future__ import annotations

from gui_gym.suites.miniwob.catalog import CATEGORIES, SUBSET_HELP, WEBGUM
from gui_gym.suites.miniwob.suite import FLIGHT_SCREEN, REWARDS, TASK_SCREEN, MiniWoBConfig, MiniWoBSuite, MiniWoBTask

__all__ = ["CATEGORIES", "FLIGHT_SCREEN", "REWARDS", "SUBSET_HELP", "TASK_SCREEN", "WEBGUM", "MiniWoBConfig",
           "MiniWoBSuite", "MiniWoBTask"]
