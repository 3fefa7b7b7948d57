"""Settling by screen stability (`ScreenCapture.settle`), on a scripted screen: what ends the
wait after an action, and what a program the action started changes about it."""

from __future__ import annotations

from gui_gym.backends.desktop.inside.capture import ScreenCapture


class ScriptedScreen(ScreenCapture):
    """A screen whose frames change once, after `change_at` captures; no X display."""

    def __init__(self, change_at: int):
        self.baseline = None
        self.change_at, self.captures = change_at, 0

    def frame_hash(self) -> int:
        self.captures += 1
        return 1 if self.captures <= self.change_at else 2


def settle(screen: ScriptedScreen, **kwargs):
    screen.mark_baseline()
    return screen.settle(stable_frames=3, interval_s=0.001, change_timeout_s=0.0, timeout_s=5.0, **kwargs)


def test_a_still_screen_after_an_action_ends_the_wait_at_once():
    screen = ScriptedScreen(change_at=40)
    result = settle(screen)
    assert result.stable and not result.changed and screen.captures < 40


def test_while_the_program_an_action_started_is_starting_the_wait_goes_on_until_it_shows():
    screen = ScriptedScreen(change_at=40)
    result = settle(screen, launching=lambda shown: not shown, launch_timeout_s=30.0)
    assert result.stable and result.changed and screen.captures > 40


def test_a_start_that_never_shows_is_bounded_by_the_launch_timeout():
    screen = ScriptedScreen(change_at=10**9)
    result = settle(screen, launching=lambda shown: True, launch_timeout_s=0.2)
    assert not result.changed and result.elapsed_s >= 0.2
