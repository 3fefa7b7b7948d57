"""The backend contract the env relies on.

Public methods do the bookkeeping (health, error classification, timing); subclasses
implement the ``_``-prefixed methods. Any unexpected failure from the machinery below (a
Playwright error from a dead browser, a closed socket) leaves as one typed error: `InfraError`
when the backend is no longer usable, `ActionExecutionError` when only that action failed.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gui_gym.actions import Action
from gui_gym.errors import ActionExecutionError, GUIGymError, InfraError

logger = logging.getLogger(__name__)


@dataclass
class Observation:
    """What a backend sees. `screenshot` is HxWx3 uint8 RGB; the rest is optional."""

    screenshot: np.ndarray
    a11y_tree: str | None = None
    url: str | None = None
    app: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """A screen the env drives: started once, reset per episode, closed once."""

    def __init__(self) -> None:
        self.healthy = False
        self.relaunches = 0
        self.last_settle_s = 0.0
        self._ever_started = False

    @property
    @abstractmethod
    def screen_size(self) -> tuple[int, int]:
        """(width, height) of the screenshots, in pixels."""

    def start(self) -> None:
        """Start the processes this backend needs (idempotent)."""
        if not self.healthy:
            self._guard(self._start)
            self.healthy = True
            self._ever_started = True

    def restart(self) -> None:
        """Tear down whatever is left of a crashed backend and start it again."""
        self._close()
        self.healthy = False
        self.relaunches += 1
        self.start()

    def new_episode(self) -> None:
        """A clean slate for an episode (a fresh browser context, a home screen, ...)."""
        if not self.healthy:
            if self._ever_started:
                self.restart()
            else:
                self.start()
        self._guard(self._new_episode)

    def execute(self, action: Action) -> None:
        """Carry out one non-terminal action, then wait until the screen settles."""
        self._guard(lambda: self._execute(action))
        started = time.perf_counter()
        self._guard(self._settle)
        self.last_settle_s = time.perf_counter() - started

    def observe(self, a11y: bool = False) -> Observation:
        """The screen now. Failing to see it is never the agent's fault: it is an
        `InfraError`, and the backend is relaunched at the next reset."""
        try:
            return self._guard(lambda: self._observe(a11y))
        except ActionExecutionError as exc:
            self.healthy = False
            raise InfraError(f"{type(self).__name__} could not observe the screen: {exc}") from exc

    def close(self) -> None:
        """Release every process; safe to call twice."""
        self._close()
        self.healthy = False

    def _guard(self, work):
        """Run `work`, turning any untyped failure into a typed one and marking the backend
        unhealthy when the failure means it is gone."""
        try:
            return work()
        except ActionExecutionError:
            if not self._alive():
                self.healthy = False
                raise InfraError(f"{type(self).__name__} died while executing an action") from None
            raise
        except InfraError:
            self.healthy = False
            raise
        except GUIGymError:
            raise
        except Exception as exc:
            if not self._alive():
                self.healthy = False
                logger.warning("%s crashed (%s: %s); it is relaunched at the next reset", type(self).__name__,
                               type(exc).__name__, exc)
                raise InfraError(f"{type(self).__name__} crashed: {type(exc).__name__}: {exc}") from exc
            raise ActionExecutionError(f"{type(exc).__name__}: {exc}") from exc

    @abstractmethod
    def _start(self) -> None: ...

    @abstractmethod
    def _new_episode(self) -> None: ...

    @abstractmethod
    def _execute(self, action: Action) -> None: ...

    def _settle(self) -> None:
        """Wait until the screen is ready after an action (bounded). Default: nothing to wait on."""

    @abstractmethod
    def _observe(self, a11y: bool) -> Observation: ...

    @abstractmethod
    def _alive(self) -> bool:
        """Whether the underlying processes still answer."""

    @abstractmethod
    def _close(self) -> None: ...
