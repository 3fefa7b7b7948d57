"""A scripted agent that works a desktop the way a model trained on OSWorld does: through the
keyboard and what it sees on the screen, never through the server."""

from __future__ import annotations

import gymnasium as gym

TERMINAL_WAITS = 10
"""How many WAIT actions the agent spends at most watching for the terminal to appear (on a
loaded machine one WAIT was not always enough)."""


def run_in_a_terminal(env: gym.Env, before: dict, command: str) -> dict:
    """Open a terminal with ctrl+alt+t, wait (watching the screen, `before` being the last
    observation) until it has appeared, type `command` with the env's typing action and press
    Enter; returns the last step's info. Fails the test if an action is refused or ends the episode."""
    obs, _, _, _, _ = env.step("pyautogui.hotkey('ctrl', 'alt', 't')")
    for _ in range(TERMINAL_WAITS):
        if (obs["screenshot"] != before["screenshot"]).any():
            break
        obs, _, _, _, _ = env.step("WAIT")
    env.step("WAIT")  # the new window takes the keyboard focus
    info: dict = {}
    for action in (f"pyautogui.typewrite({command!r})", "pyautogui.press('enter')"):
        _, _, terminated, _, info = env.step(action)
        assert not terminated and not info["action_error"], info
    return info
