"""OSWorld's desktop itself: GNOME Shell in X11 mode, set up as on OSWorld's Ubuntu 22.04 VM.

The session (`session.py`) starts it with ``shell="gnome"``; this module holds what it needs
besides the processes: the settings and the private system bus.

- Settings: GNOME reads them through gsettings (dconf). The VM's values (favourite apps in the
  dock, Ubuntu's dock on the left, desktop icons) are the *defaults* of a schema set compiled
  per sandbox (`write_settings`: the system's schemas plus `SETTINGS` as an override), so
  ``gsettings get`` reads them, ``gsettings set`` (tasks, agents) writes the user's dconf
  database as on the VM, and ``gsettings reset`` comes back to the VM's value.
- ctrl+alt+t: Ubuntu's GNOME opens GNOME Terminal with it; Debian's gnome-settings-daemon 43
  has no terminal key, so it is a custom key binding of gsd-media-keys (`KEYBINDING`), which
  lives at a path of its own in dconf and is written there at start (`keybinding_commands`).
  gsd-media-keys asks GNOME Shell for its keys some time after it is on the bus (seconds, on a
  loaded machine); the desktop is ready once the key is grabbed (`terminal_key_grabbed`).
- System bus: GNOME Shell stops at start-up without one (its power indicator asks it for
  UPower). The sandbox has none of the host's, so it gets a bus of its own (`SYSTEM_BUS_CONFIG`)
  with no services on it: GNOME's calls to UPower, PolicyKit, accounts... get "no such
  service" at once, and the shell goes on without them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from gui_gym.backends.desktop.shell import FAVOURITES

MEDIA_KEYS = Path("/usr/libexec/gsd-media-keys")
"""gnome-settings-daemon's keys plugin (ctrl+alt+t), a program of its own."""
EXTENSION_FOLDER = Path("/usr/share/gnome-shell/extensions")
PROGRAMS = {"gnome-shell": "gnome-shell", "gnome-terminal": "gnome-terminal", "glib-compile-schemas": "libglib2.0-bin",
            "gsettings": "libglib2.0-bin", "gdbus": "libglib2.0-bin"}
"""Programs GNOME's desktop needs -> the Debian package that has them."""
FILES = {MEDIA_KEYS: "gnome-settings-daemon",
         EXTENSION_FOLDER / "dash-to-dock@micxgx.gmail.com": "gnome-shell-extension-dashtodock",
         EXTENSION_FOLDER / "ding@rastersoft.com": "gnome-shell-extension-desktop-icons-ng"}
"""Files it needs that are not on the PATH -> their Debian package."""
SYSTEM_SCHEMAS = Path("/usr/share/glib-2.0/schemas")
SYSTEM_BUS_SOCKET = Path("/run/dbus/system_bus_socket")
SYSTEM_BUS_CONFIG = f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={SYSTEM_BUS_SOCKET}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
"""
"""The sandbox's own system bus: everything allowed (only the desktop's processes reach it)
and no service to start."""
EXTENSIONS = ("dash-to-dock@micxgx.gmail.com", "ding@rastersoft.com")
"""Ubuntu's dock (Ubuntu ships dash-to-dock under another name) and desktop icons."""


LOCK_WARNING_SHOWN = Path(".local/share/gnome-shell/lock-warning-shown")
"""GNOME Shell's mark (under the home) that it has told the user once that the screen cannot
lock without GDM; without it that notification covers the top of every desktop at reset."""


def write_home_state(home: Path) -> list[Path]:
    """GNOME's per-user state of a desktop that has run before, in `home`; the top folders made."""
    marker = home / LOCK_WARNING_SHOWN
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return [home / LOCK_WARNING_SHOWN.parts[0]]


def missing_packages() -> list[str]:
    """The Debian packages GNOME's desktop needs that this machine lacks."""
    missing = {pkg for name, pkg in PROGRAMS.items() if shutil.which(name) is None}
    missing |= {pkg for path, pkg in FILES.items() if not path.exists()}
    return sorted(missing)


def _strings(values: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


KEYBINDING_PATH = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/terminal/"
KEYBINDING = {"name": "Terminal", "command": "gnome-terminal", "binding": "<Primary><Alt>t"}
"""ctrl+alt+t -> GNOME Terminal, as Ubuntu's GNOME has it."""
SETTINGS = {
    "org.gnome.shell": {
        "favorite-apps": _strings(FAVOURITES),
        "enabled-extensions": _strings(EXTENSIONS),
        "welcome-dialog-last-shown-version": "'999'",  # no "take the tour" dialog at the first start
    },
    "org.gnome.shell.extensions.dash-to-dock": {  # Ubuntu's dock: fixed on the left, full height
        "dock-position": "'LEFT'", "dock-fixed": "true", "extend-height": "true", "dash-max-icon-size": "48",
        "show-trash": "true", "show-mounts": "false", "disable-overview-on-startup": "true",
        "apply-custom-theme": "false", "custom-theme-shrink": "true",
    },
    "org.gnome.settings-daemon.plugins.media-keys": {"custom-keybindings": _strings([KEYBINDING_PATH])},
    "org.gnome.desktop.interface": {
        # a still screen once an app is done (the env waits for one after each action)
        "enable-animations": "false", "cursor-blink": "false", "clock-show-seconds": "false",
    },
    "org.gnome.desktop.session": {"idle-delay": "uint32 0"},  # never blank the screen mid-episode
    "org.gnome.desktop.screensaver": {"idle-activation-enabled": "false"},
    "org.gnome.desktop.notifications": {"show-banners": "true"},
}
"""The VM's settings that differ from Debian's GNOME defaults, by schema and key (GVariant text)."""


def settings_override(settings: dict[str, dict[str, str]] = SETTINGS) -> str:
    """`settings` as a gschema override file."""
    return "".join(f"[{schema}]\n" + "".join(f"{key}={value}\n" for key, value in keys.items()) + "\n"
                   for schema, keys in settings.items())


def write_settings(folder: Path, schemas: Path = SYSTEM_SCHEMAS, settings: dict[str, dict[str, str]] = SETTINGS) -> Path:
    """Compile the system's gsettings schemas with `settings` (the VM's) as their defaults into
    `folder` (given to the desktop as ``GSETTINGS_SCHEMA_DIR``); returns it. Sources are linked,
    not copied. A setting of a schema or key the system does not have is an error (the compiler
    would skip an unknown schema silently)."""
    sources = folder / "sources"
    sources.mkdir(parents=True, exist_ok=True)
    known: set[str] = set()
    for path in schemas.iterdir():
        if path.name.endswith((".gschema.xml", ".gschema.override", ".enums.xml")):
            link = sources / path.name
            if not link.exists():
                link.symlink_to(path)
            if path.name.endswith(".gschema.xml"):
                known.update(re.findall(r'<schema\b[^>]*\bid="([^"]+)"', path.read_text(errors="replace")))
    unknown = sorted(set(settings) - known)
    if unknown:
        raise RuntimeError(f"GNOME's settings schemas {', '.join(unknown)} are not installed in {schemas}")
    (sources / "99_gui-gym-osworld-vm.gschema.override").write_text(settings_override(settings))
    done = subprocess.run(["glib-compile-schemas", "--strict", "--targetdir", str(folder), str(sources)],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"glib-compile-schemas failed: {done.stderr.strip()}")
    return folder


def keybinding_commands() -> list[list[str]]:
    """``gsettings`` commands that write the terminal key binding (a relocatable schema: it has
    no defaults to override, only values at its path)."""
    schema = f"org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:{KEYBINDING_PATH}"
    return [["gsettings", "set", schema, key, value] for key, value in KEYBINDING.items()]


def terminal_key_grabbed(conn) -> bool:
    """Whether some client (GNOME Shell, for the settings daemon) holds the passive grab of
    ctrl+alt+t on the display `conn` (an Xlib ``Display``): a grab of our own of the same key
    fails then. One that succeeds is released at once."""
    from Xlib import XK, X
    from Xlib.ext import xinput

    conn.xinput_query_version()
    root = conn.screen().root
    code = conn.keysym_to_keycode(XK.string_to_keysym("t"))
    modifiers = [X.ControlMask | X.Mod1Mask]
    reply = root.xinput_grab_keycode(xinput.AllMasterDevices, X.CurrentTime, code, xinput.GrabModeAsync,
                                     xinput.GrabModeAsync, True, xinput.KeyPressMask, modifiers)
    if list(reply.modifiers):
        return True
    root.xinput_ungrab_keycode(xinput.AllMasterDevices, code, modifiers)
    conn.sync()
    return False
