"""Every typed error gui-gym raises, in one place.

Callers catch by category: a bad agent output (`ActionParseError`) is the agent's fault and
becomes ``info["action_error"]``; an action the screen cannot carry out
(`ActionExecutionError`) is too; an infrastructure failure (`InfraError` and subclasses) is
never the agent's fault and ends the episode as truncated with ``info["infra_error"]``.
"""

from __future__ import annotations


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


class BackendCrashed(InfraError):
    """The backend's process died; it is relaunched at the next reset."""


class TaskConfigError(GUIGymError, ValueError):
    """A task file or task definition is malformed. The message names the file and the field."""


class MissingResourceError(GUIGymError, RuntimeError):
    """Something the env needs is absent (a dataset, a VM, a device, a browser, the internet).

    The message names what is missing and how to provide it.
    """


class JudgeError(GUIGymError):
    """A judge could not be reached or answered off-format after its retries."""
