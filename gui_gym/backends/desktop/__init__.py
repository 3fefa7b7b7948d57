"""A desktop behind OSWorld's in-VM server protocol: the client, our own server for the
``local`` provider (Xvfb + openbox in a bubblewrap sandbox), the VM providers, and the
`DesktopBackend` that drives it with canonical actions.

Importing this package starts nothing; the server-side modules (`server`, `session`,
`capture`, `x11input`, `windows`) are imported only inside the sandbox.
"""

from gui_gym.backends.desktop.backend import DesktopBackend, DesktopConfig
from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.limits import SandboxLimits
from gui_gym.backends.desktop.providers import PROVIDERS, make_provider

__all__ = [
           "PROVIDERS",
           "DesktopBackend",
           "DesktopConfig",
           "Endpoint",
           "SandboxLimits",
           "ServerClient",
           "ServerError",
           "make_provider",
]
