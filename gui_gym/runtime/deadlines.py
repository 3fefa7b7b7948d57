"""Deadlines for blocking calls, kept by one watchdog thread per process.

A backend bounds every call a step makes (`gui_gym.backends.base.Backend.bounded`); a
`threading.Timer` per call would start a thread per action and per observation, which on a
loaded machine costs milliseconds a step (starting a thread waits for it to be scheduled).
Here the calls' deadlines sit in one heap that a single daemon thread sleeps on; a deadline
that passes runs its callback on a thread of its own, so a slow abort never delays another
backend's.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from typing import Callable

logger = logging.getLogger(__name__)
COMPACT_AT = 1024
"""Cancelled deadlines the heap may hold before it is rebuilt without them."""


class Deadline:
    """`callback` due at the monotonic time `due`, unless cancelled first."""

    __slots__ = ("due", "callback", "name", "cancelled", "fired", "done")

    def __init__(self, due: float, callback: Callable[[], None], name: str):
        self.due, self.callback, self.name = due, callback, name
        self.cancelled = self.fired = False
        self.done = threading.Event()
        """Set once a fired callback has returned."""

    def _run(self) -> None:
        try:
            self.callback()
        except Exception:  # the watchdog's callbacks log their own failures; this one did not
            logger.exception("the deadline callback %s failed", self.name)
        finally:
            self.done.set()


class Watchdog:
    """Runs each armed `Deadline`'s callback when it falls due."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._cancelled = 0
        """Cancelled deadlines still in the heap (each leaves when it would have been due)."""

    def arm(self, timeout_s: float, callback: Callable[[], None], name: str = "deadline") -> Deadline:
        """Run `callback` (on its own thread) `timeout_s` from now unless `cancel`led first."""
        deadline = Deadline(time.monotonic() + timeout_s, callback, name)
        with self._wake:
            heapq.heappush(self._heap, (deadline.due, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="gui-gym-watchdog", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is deadline:  # due before everything the watchdog sleeps on
                self._wake.notify()
        return deadline

    def cancel(self, deadline: Deadline) -> bool:
        """Cancel `deadline`. False when it had already fired; then this waits until its
        callback has returned, so the caller sees what it did."""
        with self._wake:
            if not deadline.fired:
                deadline.cancelled = True
                self._cancelled += 1
                if self._cancelled > COMPACT_AT and 2 * self._cancelled > len(self._heap):
                    # most calls end long before their deadline: drop the dead entries in one go
                    self._heap = [entry for entry in self._heap if not entry[2].cancelled]
                    heapq.heapify(self._heap)
                    self._cancelled = 0
                return True
        deadline.done.wait()
        return False

    def _watch(self) -> None:
        while True:
            with self._wake:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                    self._cancelled -= 1
                if not self._heap:
                    self._wake.wait()
                    continue
                wait_s = self._heap[0][0] - time.monotonic()
                if wait_s > 0:
                    self._wake.wait(wait_s)
                    continue
                deadline = heapq.heappop(self._heap)[2]
                deadline.fired = True
            threading.Thread(target=deadline._run, name=f"gui-gym-{deadline.name}", daemon=True).start()


WATCHDOG = Watchdog()
"""The process's watchdog."""
