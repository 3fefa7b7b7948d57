"""The ``miniwob`` package's own env (selenium + chromedriver), as the reference
``GUI/MiniWoB-v0`` is checked and timed against: a test and benchmark tool, never a runtime
dependency of the env.

It runs on Debian's Chromium and its chromedriver (``apt-get install chromium-driver``), set
through the package's ``MINIWOB_CHROME_BINARY`` / ``MINIWOB_CHROMEDRIVER`` variables, so
selenium never tries to download a driver.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from gui_gym.actions import Action
from gui_gym.backends.browser.playwright_driver import find_chromium
from gui_gym.errors import MissingResourceError

KEYS = {"enter": "<Enter>", "tab": "<Tab>", "backspace": "<Backspace>", "delete": "<Delete>", "esc": "<Escape>",
        "up": "<ArrowUp>", "down": "<ArrowDown>", "left": "<ArrowLeft>", "right": "<ArrowRight>",
        "pageup": "<PageUp>", "pagedown": "<PageDown>", "home": "<Home>", "end": "<End>", "space": "<Space>"}
"""Our key names -> the package's (WebDriver's) spelling."""

KINDS = ("click", "double_click", "move", "type", "key")
"""The action kinds that have one exact counterpart in the package's action space."""

SAME_EPISODE_KINDS = ("click", "move", "type", "key")
"""The kinds whose episodes run alike on both envs. A double click whose first click ends the
episode does not in the package's env: its second click lands on the sync screen that the
end brought back, whose click handler starts a new, unseeded episode, and the step reports
not done (ours keeps the ended episode: see docs/miniwob.md)."""


def make_reference_env(task: str, **kwargs: Any):
    """``gym.make("miniwob/<task>-v1")`` on Debian's Chromium and chromedriver, with every key
    of `KEYS` allowed for its PRESS_KEY action."""
    driver = shutil.which("chromedriver")
    if driver is None:
        raise MissingResourceError("the miniwob reference env needs chromedriver: `apt-get install chromium-driver`")
    # Playwright's own download (find_chromium's None) has no driver beside it: the system one.
    browser = find_chromium() or shutil.which("chromium")
    if browser is None:
        raise MissingResourceError("the miniwob reference env needs Debian's Chromium: `apt-get install chromium`")
    os.environ.setdefault("MINIWOB_CHROME_BINARY", browser)  # the package reads only these two
    os.environ.setdefault("MINIWOB_CHROMEDRIVER", driver)
    import gymnasium as gym
    import miniwob
    from miniwob.action import ActionSpaceConfig

    gym.register_envs(miniwob)
    config = ActionSpaceConfig.get_preset("all_supported")
    config.allowed_keys = tuple(dict.fromkeys([*config.allowed_keys, *KEYS.values()]))
    return gym.make(f"miniwob/{task}-v1", action_space_config=config, **kwargs)


def reference_action(env: Any, action: Action) -> dict[str, Any]:
    """Our `action` as the package's env takes it (kinds in `KINDS`; coordinates are the
    same pixels, as both screens start at the task area's corner)."""
    from miniwob.action import ActionTypes

    if (action.kind not in KINDS or (action.kind == "key" and action.keys[0] not in KEYS)
            or (action.kind not in ("type", "key") and action.x is None)):  # element indices are ours alone
        raise ValueError(f"no counterpart in the miniwob package's action space for {action}")
    unwrapped = env.unwrapped
    if action.kind == "type":
        return unwrapped.create_action(ActionTypes.TYPE_TEXT, text=action.text)
    if action.kind == "key":
        keys = list(unwrapped.action_space_config.allowed_keys)
        return unwrapped.create_action(ActionTypes.PRESS_KEY, key=keys.index(KEYS[action.keys[0]]))
    pointer = {"click": ActionTypes.CLICK_COORDS, "double_click": ActionTypes.DBLCLICK_COORDS,
               "move": ActionTypes.MOVE_COORDS}[action.kind]
    return unwrapped.create_action(pointer, coords=[action.x, action.y])
