"""Every typed error gui-gym raises, in one place.

Callers catch by category: a bad agent output (`ActionParseError`) is the agent's fault and
becomes ``info["action_error"]``; an action the screen cannot carry out
(`ActionExecutionError`) is too; an infrastructure failure (`InfraError` and subclasses) is
never the agent's fault and ends the episode as truncated with ``info["infra_error"]``.
`excerpt` quotes a bad answer in a message, cut to a readable length.
"""

from __future__ import annotations

from typing import Any

EXCERPT_CHARS = 200
"""How much of a model's (or a server's) answer an error message quotes."""


class GUIGymError(Exception):
    """Base class of every error raised on purpose by gui-gym."""


class ActionParseError(GUIGymError, ValueError):
    """An agent output that does not parse into an `Action`.

    The message says what was expected and what came, so it can be shown back to the agent.
    """


class ActionExecutionError(GUIGymError):
    """A well-formed action that the backend cannot carry out (e.g. an element index that
    does not exist on the current screen)."""


class InfraError(GUIGymError):
    """The machinery under the env failed: a crashed browser, a dead server, a lost device."""


class LimitExceededError(GUIGymError):
    """Work on content someone else made (an agent's file) went past a bound that protects the
    host: its size, memory, CPU or wall-clock time. The content's fault, not the machinery's."""


class TaskConfigError(GUIGymError, ValueError):
    """A task file or task definition is malformed. The message names the file and the field."""


class MissingResourceError(GUIGymError, RuntimeError):
    """Something the env needs is absent (a dataset, a VM, a device, a browser, the internet).

    The message names what is missing and how to provide it.
    """


class MissingDependencyError(MissingResourceError, ImportError):
    """An optional part of gui-gym was asked for on an install without its extra (the desktop
    sandbox without python-xlib, training without torch). The message is one line naming the
    extra to install; `extra` holds its name and `missing` the modules that were not found."""

    def __init__(self, message: str, extra: str = "", missing: tuple[str, ...] = ()):
        super().__init__(message)
        self.extra = extra
        self.missing = missing


class JudgeError(GUIGymError):
    """A judge could not be reached or answered off-format after its retries."""


class JudgeFormatError(JudgeError):
    """A judge answered, but not in the format the question asked for (no JSON, a missing
    field, a wrong count). `answer` holds the text that came, so it can be recorded."""

    def __init__(self, message: str, answer: str = ""):
        super().__init__(message)
        self.answer = answer


class AgentError(GUIGymError):
    """An agent could not be built (an unknown name, a bad argument) or could not produce an
    action (its model endpoint unreachable after retries). An episode that ends on it is
    recorded as an error, not as a task failure."""


class SnapshotError(GUIGymError, ValueError):
    """A snapshot that cannot be restored here: one of another env id or task, a malformed
    one, or a restore that did not reproduce the snapshot's state exactly."""


class SnapshotUnsupportedError(SnapshotError, NotImplementedError):
    """This env cannot take or restore a snapshot exactly (the OSWorld desktop, the live web,
    a phone without an emulator console). The message says why and what does work."""


class UsageError(GUIGymError, ValueError):
    """gui-gym was asked for something that cannot be: an env id that is not registered (the
    nearest ids are named), env arguments it refuses, a ``KEY=VALUE`` argument without its
    ``=``."""


class HarnessError(UsageError):
    """`gui-bench` cannot run as asked: a task filter that selects nothing, a results folder
    that belongs to another run, workers that cannot start."""


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """`value` for an error message: its repr (text stripped first), cut to `limit`
    characters. Agent and judge outputs can be megabytes long, and integers past Python's
    4,300-digit limit have no repr at all; a message must stay short and must not fail."""
    if isinstance(value, str):
        text = value.strip()
        return repr(text if len(text) <= limit else text[:limit] + "...")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of {value.bit_length()} bits"
    try:
        shown = repr(value)
    except ValueError:  # a container holding an integer past the digit limit
        shown = f"<{type(value).__name__}>"
    return shown if len(shown) <= limit else shown[:limit] + "..."
