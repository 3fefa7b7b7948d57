"""The backend contract the env relies on.

Public methods do the bookkeeping (health, error classification, timing, deadlines);
subclasses implement the ``_``-prefixed methods. Any unexpected failure from the machinery
below (a Playwright error from a dead browser, a closed socket) leaves as one typed error:
`InfraError` when the backend is no longer usable, `ActionExecutionError` when only that
action failed.

Every call a step makes (an action with its settling, an observation) runs under
`step_timeout_s`. A call still running then is stopped from a watchdog
thread by `_abort`, which each backend implements by killing what the call waits on (the
browser's processes, the desktop client's socket, the adb connection), so the blocked call
returns; the call then fails as an `InfraError` and the backend is relaunched at the next
reset. A call that still does not return `ABORT_GRACE_S` later is aborted harder
(``_abort(force=True)``). The harness's per-episode wall-clock limit stays the last line of
defence.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np

from gui_gym.actions import Action
from gui_gym.runtime.deadlines import WATCHDOG
from gui_gym.errors import ActionExecutionError, GUIGymError, InfraError

if TYPE_CHECKING:
    from gymnasium.spaces import Space

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_STEP_TIMEOUT_S = 120.0
"""Longer than any one action may take on a working screen (a wait of at most 60 s, 10,000
typed characters, a navigation with its own 15 s timeout, settling), so that only a hang
reaches it."""
ABORT_GRACE_S = 5.0


@dataclass
class Observation:
    """What a backend sees. `screenshot` is HxWx3 uint8 RGB, or None when the caller asked
    for text only (nothing was captured); the rest is optional."""

    screenshot: np.ndarray | None
    a11y_tree: str | None = None
    url: str | None = None
    app: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    """A screen the env drives: started once, reset per episode, closed once."""

    step_timeout_s: float | None = DEFAULT_STEP_TIMEOUT_S
    """Bound on each call a step makes (None: unbounded); backends read it from their config."""

    snapshot_kind: str | None = None
    """How an episode on this backend is snapshotted (see `gui_gym.snapshots`): "replay" when
    re-executing the episode's actions from its start reproduces the screen exactly (the
    browser on our own servers, recordings), "native" when the backend saves and loads its own
    state (`_save_state`/`_load_state`), None when neither is exact."""
    snapshot_refusal = "this backend cannot save a running episode exactly"
    """Why, when `snapshot_kind` is None."""

    def __init__(self) -> None:
        self.healthy = False
        self.relaunches = 0
        self.last_settle_s = 0.0
        self.aborts = 0
        self._ever_started = False

    @property
    @abstractmethod
    def screen_size(self) -> tuple[int, int]:
        """(width, height) of the screenshots, in pixels."""

    @property
    def screenshot_size(self) -> tuple[int, int]:
        """(width, height) of the screenshots it returns; the screen's unless it scales them."""
        return self.screen_size

    expects_a11y = False
    """Set by the env when its observations carry the accessibility tree: a backend may then
    gather the tree while it settles, in the same round trip."""

    screenshot_space: Space | None = None
    """The observation space of its screenshots when their size varies (static recordings,
    MiniWoB's task screens); None: the env's fixed box of `screenshot_size`."""

    observation_text_keys: tuple[str, ...] = ()
    """`Observation` fields the env adds to its observations as text (``url`` for the
    browser, ``app`` for Android)."""

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
        def work() -> None:
            self._guard(lambda: self._execute(action))
            started = time.perf_counter()
            self._guard(self._settle)
            self.last_settle_s = time.perf_counter() - started
        self.bounded(f"a {action.kind} action", work)

    def observe(self, a11y: bool = False, screenshot: bool = True) -> Observation:
        """The screen now; with ``screenshot=False`` its text only (nothing is captured or
        decoded, ``Observation.screenshot`` is None). Failing to see it is never the agent's
        fault: it is an `InfraError`, and the backend is relaunched at the next reset."""
        try:
            return self.bounded("an observation", lambda: self._guard(lambda: self._observe(a11y, screenshot)))
        except InfraError:
            raise
        except GUIGymError as exc:  # an action error, or a server's refusal
            self.healthy = False
            raise InfraError(f"{type(self).__name__} could not observe the screen: {exc}") from exc

    def bounded(self, what: str, work: Callable[[], T], *, timeout_s: float | None = None,
                limit: str = "step_timeout_s") -> T:
        """`work()`, aborted by `_abort` from a watchdog thread when it runs past `timeout_s`
        (default: `step_timeout_s`; `limit` names the setting in messages); then an
        `InfraError` naming `what`, and the backend is unhealthy."""
        if timeout_s is None:
            timeout_s = self.step_timeout_s
        if timeout_s is None:
            return work()
        finished = threading.Event()

        def expire() -> None:
            logger.warning("%s: %s did not finish within %s=%g s; aborting the backend",
                           type(self).__name__, what, limit, timeout_s)
            self._abort_quietly(force=False)
            if not finished.wait(ABORT_GRACE_S):
                logger.warning("%s: %s still blocked %g s after the abort; aborting harder",
                               type(self).__name__, what, ABORT_GRACE_S)
                self._abort_quietly(force=True)

        deadline = WATCHDOG.arm(timeout_s, expire, name=f"{type(self).__name__}-deadline")
        failure: Exception | None = None
        try:
            result = work()
        except Exception as exc:
            failure = exc
        finally:
            finished.set()
            # also when it returned as the deadline fired: the backend is aborted all the same,
            # and cancel waits for the abort to finish before anyone relaunches
            expired = not WATCHDOG.cancel(deadline)
        if expired:
            raise self._overran(what, limit, timeout_s) from failure
        if failure is not None:
            raise failure
        return result

    def _overran(self, what: str, limit: str, timeout_s: float) -> InfraError:
        self.healthy = False
        self.aborts += 1
        return InfraError(f"{type(self).__name__}: {what} did not finish within {limit}={timeout_s:g} s; "
                          "the backend was aborted and is relaunched at the next reset")

    def _abort_quietly(self, force: bool) -> None:
        try:
            self._abort(force)
        except Exception:  # the watchdog must not die before the harder abort
            logger.exception("%s: aborting failed", type(self).__name__)

    def save_state(self) -> dict[str, Any]:
        """Plain data describing the screen now. "native" backends save their state and
        return what names it; "replay" backends return what they can read of it (compared
        after a replay, so a restore is exact or fails); {} when there is nothing to read."""
        return self._guard(self._save_state)

    def load_state(self, state: dict[str, Any]) -> None:
        """Bring a "native" backend to the state `save_state` returned."""
        self._guard(lambda: self._load_state(state))

    def _save_state(self) -> dict[str, Any]:
        return {}

    def _load_state(self, state: dict[str, Any]) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not load saved states")

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

    def _abort(self, force: bool) -> None:
        """Make a call blocked in this backend return (it is called from another thread, while
        the call runs): kill what the call waits on. `force` comes `ABORT_GRACE_S` after a
        first abort that did not free the call. Default: nothing, for backends whose calls
        cannot block."""

    @abstractmethod
    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        """The screen; without `screenshot`, skip capturing it (``screenshot=None``)."""

    @abstractmethod
    def _alive(self) -> bool:
        """Whether the underlying processes still answer."""

    @abstractmethod
    def _close(self) -> None: ...
