"""Waiting without fixed sleeps, and the one retry helper every network call shares.

OSWorld's runner sleeps 60 s after reset and 20 s before evaluation; we poll a readiness
predicate with a bound instead, so a fast machine is never slowed to a slow machine's pace.
"""

from __future__ import annotations

import random
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout_s: float, interval_s: float = 0.02,
               max_interval_s: float = 0.25) -> T | None:
    """Poll `predicate` until it returns something truthy (returned) or `timeout_s` passes
    (returns None). The poll interval grows from `interval_s` to `max_interval_s`, so short
    waits are answered fast and long ones do not spin."""
    deadline = time.monotonic() + timeout_s
    delay = interval_s
    while True:
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        time.sleep(min(delay, remaining))
        delay = min(delay * 1.5, max_interval_s)


def retry(call: Callable[[], T], *, attempts: int, retry_on: tuple[type[BaseException], ...],
          base_delay_s: float = 0.5, max_delay_s: float = 8.0,
          on_retry: Callable[[int, BaseException], None] | None = None) -> T:
    """Call `call` up to `attempts` times, retrying on `retry_on` with exponential backoff and
    jitter; the last exception propagates."""
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, received {attempts}")
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except retry_on as exc:
            if attempt == attempts:
                raise
            if on_retry is not None:
                on_retry(attempt, exc)
            delay = min(max_delay_s, base_delay_s * 2 ** (attempt - 1))
            time.sleep(delay * (0.5 + random.random() / 2))
    raise AssertionError("unreachable")
