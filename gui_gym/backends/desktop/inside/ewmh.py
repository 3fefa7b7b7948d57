"""What the window manager says about the windows it manages (its EWMH properties, read with
Xlib): which process each belongs to, its type (a splash screen, a dialog), its state. The
readiness checks ask it, in-process, many times a second: ``wmctrl`` and ``xprop`` would
start two programs a look.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClientWindow:
    """A top-level window the window manager manages, as EWMH describes it."""

    id: int
    pid: int | None
    """The process that owns it (``_NET_WM_PID``), when it says."""
    types: frozenset[str]
    """Its ``_NET_WM_WINDOW_TYPE`` names without the prefix: ``NORMAL``, ``DIALOG``, ``SPLASH``..."""
    states: frozenset[str]
    """Its ``_NET_WM_STATE`` names without the prefix: ``MAXIMIZED_VERT``, ``FOCUSED``..."""


def client_windows(conn) -> list[ClientWindow]:
    """The windows the window manager manages on the display `conn` (an Xlib ``Display``), in
    the order of its client list; a window that goes away while it is read is left out."""
    from Xlib.error import XError

    def atom(name: str) -> int:
        return conn.intern_atom(name)

    def names(prefix: str, values) -> frozenset[str]:
        found = set()
        for value in values or ():
            name = conn.get_atom_name(value)
            found.add(name[len(prefix):] if name.startswith(prefix) else name)
        return frozenset(found)

    listed = conn.screen().root.get_full_property(atom("_NET_CLIENT_LIST"), 0)
    windows = []
    for window_id in (listed.value if listed is not None else ()):
        window = conn.create_resource_object("window", window_id)
        try:
            pid = window.get_full_property(atom("_NET_WM_PID"), 0)
            types = window.get_full_property(atom("_NET_WM_WINDOW_TYPE"), 0)
            states = window.get_full_property(atom("_NET_WM_STATE"), 0)
        except XError:  # the window went away while we looked
            continue
        windows.append(ClientWindow(
            int(window_id), int(pid.value[0]) if pid is not None and len(pid.value) else None,
            names("_NET_WM_WINDOW_TYPE_", types.value if types is not None else ()),
            names("_NET_WM_STATE_", states.value if states is not None else ())))
    return windows
