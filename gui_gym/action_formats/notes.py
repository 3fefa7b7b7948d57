"""Notes a parser leaves on an output it accepted but did not carry out as written (AndroidWorld
drops fields irrelevant to the action type; so do we, and say so). The env collects them per
step into ``info["action_warnings"]``; outside a collection they are logged.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from typing import Iterator

__all__ = ["collect_warnings", "warn"]

logger = logging.getLogger(__name__)
_WARNINGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("gui_gym_action_warnings", default=None)
"""The notes of the parse under way in this context (thread, task), or None outside one."""


def warn(message: str) -> None:
    """Note something a parser accepted but did not carry out as written."""
    notes = _WARNINGS.get()
    if notes is None:
        logger.warning(message)
    else:
        notes.append(message)


@contextlib.contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Collect the `warn` notes of the parsing done inside the block into the yielded list."""
    notes: list[str] = []
    token = _WARNINGS.set(notes)
    try:
        yield notes
    finally:
        _WARNINGS.reset(token)
