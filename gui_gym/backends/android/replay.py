"""Recorded Android screens replayed in order: the offline half of step-wise evaluation.

A `StaticBackend` (recorded screenshots, actions recorded and never executed) that walks an
episode: it shows recorded screen n, keeps the agent's first action for that step (element
indices resolved to the element's centre, as on a device), and moves on to screen n+1 at the
next observation, whatever the action was: teacher forcing, as AndroidControl-style offline
evaluation does. Each observation after the first one of an episode closes a step, so a step
whose output did not parse still costs its recorded screen (its prediction is None).

Screens keep their recorded size, as the static backend's do, so actions and recorded
elements are in the pixels of the screenshot shown.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gui_gym.actions import POINTER_KINDS, Action
from gui_gym.backends.android.elements import UIElement, element_at, elements_text
from gui_gym.backends.base import Observation
from gui_gym.backends.static import StaticBackend


@dataclass(frozen=True)
class RecordedScreen:
    """One recorded screen: its screenshot file, and what the device said about it."""

    screenshot: Path
    elements: tuple[UIElement, ...] | None = None
    app: str | None = None


class ReplayBackend(StaticBackend):
    """Serves `RecordedScreen`s in order and keeps the action taken on each.
    `screen_size` is the size reported before the first screen is shown."""

    observation_text_keys = ("app",)

    def __init__(self, screen_size: tuple[int, int] = (1080, 2400)) -> None:
        super().__init__(screen_size)
        self._screens: list[RecordedScreen] = []
        self.predictions: list[Action | None] = []
        """The action kept for each finished step, element indices resolved to points."""
        self.position = 0
        self._pending: Action | None = None
        self._observed = False

    @property
    def current(self) -> RecordedScreen:
        return self._screens[self.position]

    def load(self, screens: Sequence[RecordedScreen]) -> None:
        """The episode to replay, first screen first."""
        if not screens:
            raise ValueError("a replay needs at least one recorded screen")
        self._screens = list(screens)
        self._new_episode()
        self._show_current()

    def _new_episode(self) -> None:
        super()._new_episode()
        self.position, self.predictions, self._pending, self._observed = 0, [], None, False

    def _execute(self, action: Action) -> None:
        if action.element is not None and action.kind in POINTER_KINDS:
            x, y = element_at(list(self.current.elements or ()), action.element).bbox_pixels.center
            action = dataclasses.replace(action, element=None, x=x, y=y)
        super()._execute(action)
        if self._pending is None:  # one action per recorded step: the first one counts
            self._pending = action

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        if self._observed:
            self.predictions.append(self._pending)
            self._pending = None
            self.position = min(self.position + 1, len(self._screens) - 1)
            self._show_current()
        self._observed = True
        return dataclasses.replace(super()._observe(a11y, screenshot), app=self.current.app if self._screens else None)

    def _show_current(self) -> None:
        screen = self.current
        self.show(screen.screenshot, elements_text(list(screen.elements)) if screen.elements is not None else None)

    def _close(self) -> None:
        super()._close()
        self._screens = []
