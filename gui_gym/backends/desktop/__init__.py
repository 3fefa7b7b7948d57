"""A desktop behind OSWorld's in-VM server protocol. Two programs live here:

- the host side (this folder): the `DesktopBackend` that drives a desktop with canonical
  actions, the protocol's client, the VM providers, and for the ``local`` provider the
  sandbox (bubblewrap, its accounts, its limits) and the pool of spare ones;
- the inside (`inside/`): our desktop server, which runs inside the sandbox, as OSWorld's
  runs inside its VM, and everything it does there (the X session, input, capture, windows,
  the evaluation's files and processes, sudo).

They meet at a few named crossings (docs/architecture.md, checked by
``tests/test_architecture.py``): the host starts the inside by its module name and speaks to
it over HTTP only; the inside imports from this folder only what describes the sandbox both
sides agree on (`accounts`, `shell`, `gnome`, `limits`, and the `launcher` script's path).

Importing this package starts and imports nothing: its names load on first use, so the server
inside the sandbox loads none of the host side.
"""

from __future__ import annotations

from gui_gym.lazy_names import lazy_names

_LAZY: dict[str, str] = {
    "DesktopBackend": "gui_gym.backends.desktop.backend",
    "DesktopConfig": "gui_gym.backends.desktop.backend",
    "Endpoint": "gui_gym.backends.desktop.client",
    "ServerClient": "gui_gym.backends.desktop.client",
    "ServerError": "gui_gym.backends.desktop.client",
    "SandboxLimits": "gui_gym.backends.desktop.limits",
    "PROVIDERS": "gui_gym.backends.desktop.providers",
    "make_provider": "gui_gym.backends.desktop.providers",
}
"""Public name -> the module defining it."""

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
