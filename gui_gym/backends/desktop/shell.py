"""The desktop around the apps, as close to OSWorld's Ubuntu GNOME desktop as openbox gets.

OSWorld's VM runs GNOME Shell: a dock on the left with the favourite apps, GNOME's shortcuts
(agents trained there open a terminal with ctrl+alt+t, and task setups press it: multi_apps/
48d05431, os/13584542), apps opening large. Bare openbox gives a black screen where ctrl+alt+t
does nothing. So the session's openbox gets, from the system's own ``rc.xml``:

- GNOME's terminal shortcut: ctrl+alt+t starts GNOME Terminal, as on the VM (its profile, the
  default size os/13584542 sets, is GNOME Terminal's);
- normal windows open maximised (within the dock's room), but GNOME Terminal's, which opens at
  its profile's size as under GNOME Shell (mutter maximises only windows near the screen's size);

and a tint2 panel stands in for Ubuntu's dock: on the left edge, the favourite apps
(`FAVOURITES`) as launchers above the open windows' buttons, no clock (a ticking clock would
keep the screen from settling). docs/osworld.md lists what still differs from GNOME Shell.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

SHELLS = ("openbox", "gnome")
"""The desktops a sandbox can run: this module's openbox, or GNOME Shell itself (`gnome.py`)."""
DEFAULT_SHELL = "gnome"
"""OSWorld's own desktop, so that a score is OSWorld's; ``"openbox"`` is the fast option for
training (docs/osworld.md compares their costs)."""
SYSTEM_RC = Path("/etc/xdg/openbox/rc.xml")
OPENBOX_NS = "http://openbox.org/3.4/rc"
SHORTCUTS = {"C-A-t": "gnome-terminal"}
"""GNOME's key bindings that the desktop keeps (openbox key syntax -> the command)."""
UNMAXIMISED_CLASSES = ("Gnome-terminal",)
"""Window classes that open at their own size."""
WINDOW_KEYS = (frozenset({"ctrl", "alt", "t"}),)
"""Key chords (canonical key names) that open a window on every shell: after one, an action
has taken effect once the new window shows (`activity.NewPrograms`)."""
DOCK_WIDTH = 64
"""Ubuntu's dock is about this wide at 1920x1080 (its icons are 48 px)."""
LAUNCHERS = {
    "google-chrome.desktop": ("Google Chrome", "google-chrome %U", "chromium", "Chromium"),
}
"""Desktop entries the session writes for programs that are stand-ins here (file -> name,
command, icon, the window class of its windows): the dock and ``xdg-mime`` name them as on the
VM, and GNOME's dock counts the stand-in's windows as the favourite's (not as another app)."""
FAVOURITES = ("google-chrome.desktop", "thunderbird.desktop", "vlc.desktop", "libreoffice-writer.desktop",
              "libreoffice-calc.desktop", "libreoffice-impress.desktop", "gimp.desktop", "org.gnome.Nautilus.desktop",
              "org.gnome.Terminal.desktop")
"""The dock's apps, in order: Ubuntu's favourites on OSWorld's VM less VS Code (not packaged by
Debian)."""
TINT2RC = """rounded = 0
border_width = 0
background_color = #1d1d1d 100
border_color = #000000 0
rounded = 6
border_width = 0
background_color = #3d3d3d 100
border_color = #000000 0
panel_items = LT
panel_size = 100% {width}
panel_position = center left vertical
panel_layer = top
panel_dock = 0
strut_policy = follow_size
panel_background_id = 1
panel_padding = 4 8 4
wm_menu = 0
autohide = 0
launcher_padding = 4 8 4
launcher_background_id = 0
launcher_icon_size = 48
launcher_icon_theme_override = 0
startup_notifications = 0
{launchers}
taskbar_mode = single_desktop
taskbar_padding = 0 8 4
taskbar_background_id = 0
task_icon = 1
task_text = 0
task_maximum_size = {width} {width}
task_padding = 4 4 4
task_background_id = 0
task_active_background_id = 2
mouse_left = toggle_iconify
"""


def openbox_config(system_rc: Path = SYSTEM_RC) -> str:
    """The system's openbox configuration plus GNOME's shortcuts and maximised normal windows
    (GNOME Terminal's excepted)."""
    ET.register_namespace("", OPENBOX_NS)
    tree = ET.parse(system_rc)
    root = tree.getroot()

    def child(parent: ET.Element, tag: str) -> ET.Element:
        found = parent.find(f"{{{OPENBOX_NS}}}{tag}")
        return found if found is not None else ET.SubElement(parent, f"{{{OPENBOX_NS}}}{tag}")

    keyboard = child(root, "keyboard")
    for key, command in SHORTCUTS.items():
        binding = ET.SubElement(keyboard, f"{{{OPENBOX_NS}}}keybind", key=key)
        action = ET.SubElement(binding, f"{{{OPENBOX_NS}}}action", name="Execute")
        ET.SubElement(action, f"{{{OPENBOX_NS}}}command").text = command
    applications = child(root, "applications")
    rule = ET.SubElement(applications, f"{{{OPENBOX_NS}}}application", type="normal")
    ET.SubElement(rule, f"{{{OPENBOX_NS}}}maximized").text = "yes"
    for window_class in UNMAXIMISED_CLASSES:  # later rules win
        rule = ET.SubElement(applications, f"{{{OPENBOX_NS}}}application", {"class": window_class})
        ET.SubElement(rule, f"{{{OPENBOX_NS}}}maximized").text = "no"
    return ET.tostring(root, encoding="unicode")


def desktop_entry(name: str, command: str, icon: str, window_class: str) -> str:
    return (f"[Desktop Entry]\nType=Application\nName={name}\nExec={command}\nIcon={icon}\nTerminal=false\n"
            f"StartupWMClass={window_class}\n")


def tint2_config(applications: list[Path]) -> str:
    """The dock: a launcher per favourite app found in `applications` (folders searched in order)."""
    items = []
    for name in FAVOURITES:
        path = next((folder / name for folder in applications if (folder / name).is_file()), None)
        if path is not None:
            items.append(f"launcher_item_app = {path}")
    return TINT2RC.format(width=DOCK_WIDTH, launchers="\n".join(items))


def write_shell_files(folder: Path, applications: list[Path]) -> dict[str, Path]:
    """The openbox and dock configurations and the stand-ins' desktop entries, in `folder`
    (``applications/`` under it is an XDG data folder); their paths by name."""
    entries = folder / "applications"
    entries.mkdir(parents=True, exist_ok=True)
    for file_name, fields in LAUNCHERS.items():
        (entries / file_name).write_text(desktop_entry(*fields))
    openbox = folder / "openbox.xml"
    openbox.write_text(openbox_config())
    tint2 = folder / "tint2rc"
    tint2.write_text(tint2_config([entries, *applications]))
    return {"openbox": openbox, "tint2": tint2}
