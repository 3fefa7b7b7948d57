"""A scripted agent that works a desktop the way a model trained on OSWorld does: through the
keyboard and what it sees on the screen, never through the server, and without waits of its own
(the step that opens a terminal returns once the terminal shows)."""

from __future__ import annotations

import gymnasium as gym

OPEN_TERMINAL = "pyautogui.hotkey('ctrl', 'alt', 't')"


def terminal_actions(command: str) -> list[str]:
    """OSWorld pyautogui actions that open a terminal with ctrl+alt+t, type `command` and press
    Enter: what an agent on the VM sends, one action a step."""
    return [OPEN_TERMINAL, f"pyautogui.typewrite({command!r})", "pyautogui.press('enter')"]


def run_in_a_terminal(env: gym.Env, command: str) -> dict:
    """Run `command` in a terminal the agent opens (`terminal_actions`); returns the last step's
    info. Fails the test if an action is refused or ends the episode."""
    info: dict = {}
    for action in terminal_actions(command):
        _, _, terminated, _, info = env.step(action)
        assert not terminated and not info["action_error"], info
    return info
