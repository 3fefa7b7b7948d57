"""Canonical actions as Android ``input`` commands: key codes, text typing, gesture geometry.

``input text`` is the part that silently goes wrong: adbd hands the command line to ``sh``, so
shell metacharacters must be quoted (adbutils quotes each argument), and Android's ``input``
then turns every ``%s`` into a space, which is how a space is typed, and leaves no way to type
a literal ``%s``. `text_commands` therefore writes spaces as ``%s``, splits the text wherever it
holds a literal ``%s`` (the ``%`` ends one command, the ``s`` starts the next), and presses
Enter / Tab for newlines / tabs. ``input text`` types only ASCII; other text is refused with a
clear error rather than typed wrong.

Pure functions, no device access, so every case is testable without a phone.
"""

from __future__ import annotations

import string

from gui_gym.actions import DEFAULT_SCROLL_AMOUNT
from gui_gym.errors import ActionExecutionError

KEYCODES: dict[str, str] = {
    "enter": "KEYCODE_ENTER", "backspace": "KEYCODE_DEL", "delete": "KEYCODE_FORWARD_DEL", "tab": "KEYCODE_TAB",
    "esc": "KEYCODE_ESCAPE", " ": "KEYCODE_SPACE", "up": "KEYCODE_DPAD_UP", "down": "KEYCODE_DPAD_DOWN",
    "left": "KEYCODE_DPAD_LEFT", "right": "KEYCODE_DPAD_RIGHT", "home": "KEYCODE_MOVE_HOME",
    "end": "KEYCODE_MOVE_END", "pageup": "KEYCODE_PAGE_UP", "pagedown": "KEYCODE_PAGE_DOWN",
    "ctrl": "KEYCODE_CTRL_LEFT", "shift": "KEYCODE_SHIFT_LEFT", "alt": "KEYCODE_ALT_LEFT",
    "meta": "KEYCODE_META_LEFT", "insert": "KEYCODE_INSERT", "capslock": "KEYCODE_CAPS_LOCK",
    "volumeup": "KEYCODE_VOLUME_UP", "volumedown": "KEYCODE_VOLUME_DOWN", "volumemute": "KEYCODE_VOLUME_MUTE",
    "power": "KEYCODE_POWER", "menu": "KEYCODE_MENU", "search": "KEYCODE_SEARCH", "camera": "KEYCODE_CAMERA",
    **{c: f"KEYCODE_{c.upper()}" for c in string.ascii_lowercase + string.digits},
    **{f"f{n}": f"KEYCODE_F{n}" for n in range(1, 13)},
}
"""Canonical key name (see `gui_gym.actions.normalize_key`) -> Android key code name. ``home``
is a keyboard's Home (start of line); the phone's Home button is the ``navigate_home`` action."""

_TYPEABLE = set(string.printable) - set("\r\x0b\x0c")
SWIPE_SHARE = 0.3
"""A swipe given a direction and a start point moves the finger 30% of the screen."""


def keycode(key: str) -> str:
    """The Android key code name of a canonical key, or ActionExecutionError."""
    if key in KEYCODES:
        return KEYCODES[key]
    raise ActionExecutionError(f"Android has no key code for {key!r}; keys it presses: {sorted(KEYCODES)}")


def key_command(key: str) -> list[str]:
    """The ``input`` argv that presses `key`; a printable character without a key code of its
    own (``,``, ``@``, ...) is typed as text."""
    if key not in KEYCODES and len(key) == 1 and key in _TYPEABLE:
        return text_commands(key)[0]
    return ["input", "keyevent", keycode(key)]


def text_commands(text: str) -> list[list[str]]:
    """The ``input`` argv lists that type `text` exactly, newlines as Enter, tabs as Tab."""
    bad = sorted({ch for ch in text if ch not in _TYPEABLE})
    if bad:
        raise ActionExecutionError(
            f"Android's `input text` types printable ASCII only; the text holds {''.join(bad)!r}. "
            "Type another text, or install an IME that accepts broadcasts for Unicode input")
    commands: list[list[str]] = []
    line = ""
    for ch in text + "\0":
        if ch in "\n\t\0":
            commands += [["input", "text", piece] for piece in _pieces(line)]
            if ch != "\0":
                commands.append(["input", "keyevent", "KEYCODE_ENTER" if ch == "\n" else "KEYCODE_TAB"])
            line = ""
        else:
            line += ch
    return commands


def _pieces(line: str) -> list[str]:
    """`line` cut so that no piece holds a literal ``%s``, spaces written as ``%s``."""
    parts = line.split("%s")
    pieces = [("s" if n else "") + part + ("%" if n < len(parts) - 1 else "") for n, part in enumerate(parts)]
    return [piece.replace(" ", "%s") for piece in pieces if piece]


def scroll_swipe(region: tuple[int, int, int, int], direction: str, notches: int) -> tuple[int, int, int, int]:
    """Finger path (x1, y1, x2, y2) that scrolls `region` (x_min, y_min, x_max, y_max) by
    `notches` in `direction`, the direction the view moves. At the default 5 notches it is
    AndroidWorld's scroll (env/actuation.py, its scroll branch): from the region's centre (by
    integer division) to the region's edge, against the direction, so scrolling down drags
    the finger up to the top edge; n notches go n/5 of that way, at most to the edge."""
    x_min, y_min, x_max, y_max = (int(v) for v in region)
    cx, cy = (x_min + x_max) // 2, (y_min + y_max) // 2
    end_x, end_y = {"down": (cx, y_min), "up": (cx, y_max), "right": (x_min, cy), "left": (x_max, cy)}[direction]
    share = min(1.0, notches / DEFAULT_SCROLL_AMOUNT)
    return cx, cy, round(cx + (end_x - cx) * share), round(cy + (end_y - cy) * share)


def screen_swipe(direction: str, screen_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Finger path across the whole screen through its middle, moving `direction` (the
    finger's), edge to edge: AndroidWorld's swipe (env/actuation.py, its swipe branch), whose
    paths run from 0 to the screen's width or height."""
    width, height = screen_size
    mid_x, mid_y = int(0.5 * width), int(0.5 * height)
    return {"up": (mid_x, height, mid_x, 0), "down": (mid_x, 0, mid_x, height),
            "right": (0, mid_y, width, mid_y), "left": (width, mid_y, 0, mid_y)}[direction]


def direction_swipe(start: tuple[float, float], direction: str, screen_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Finger path from `start` moving `direction` (the finger's direction), kept on screen."""
    width, height = screen_size
    x, y = start
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
    end_x = min(width - 1, max(0, x + dx * SWIPE_SHARE * width))
    end_y = min(height - 1, max(0, y + dy * SWIPE_SHARE * height))
    return round(x), round(y), round(end_x), round(end_y)


STOCK_APPS: dict[str, tuple[str, ...]] = {
    "settings": ("com.android.settings",),
    "contacts": ("com.google.android.contacts", "com.android.contacts"),
    "clock": ("com.google.android.deskclock", "com.android.deskclock"),
    "files": ("com.google.android.documentsui", "com.android.documentsui"),
    "camera": ("com.android.camera2", "com.google.android.GoogleCamera"),
    "chrome": ("com.android.chrome",),
    "phone": ("com.google.android.dialer", "com.android.dialer"),
    "dialer": ("com.google.android.dialer", "com.android.dialer"),
    "messages": ("com.google.android.apps.messaging", "com.android.messaging"),
    "calendar": ("com.google.android.calendar", "com.android.calendar"),
    "photos": ("com.google.android.apps.photos",),
    "gallery": ("com.google.android.apps.photos", "com.android.gallery3d"),
    "maps": ("com.google.android.apps.maps",),
    "gmail": ("com.google.android.gm",),
    "youtube": ("com.google.android.youtube",),
    "play store": ("com.android.vending",),
}
"""Display names of stock apps whose package does not contain the name (AOSP and Google builds)."""


def resolve_package(name: str, installed: list[str]) -> str:
    """The installed package an app name means: a package name as is, a stock app by its
    display name, else the one package whose last part contains the name ("markor" ->
    net.gsantner.markor). ActionExecutionError when none or several match."""
    if name in installed:
        return name
    key = " ".join(name.lower().split()).removesuffix(" app")
    for package in STOCK_APPS.get(key, ()):
        if package in installed:
            return package
    compact = key.replace(" ", "")
    matches = [p for p in installed if compact and compact in p.lower().rsplit(".", 1)[-1]]
    exact = [p for p in matches if p.lower().rsplit(".", 1)[-1] == compact]
    if len(exact) == 1 or len(matches) == 1:
        return (exact or matches)[0]
    if matches:
        raise ActionExecutionError(f"app name {name!r} is ambiguous: it matches {sorted(matches)}; give the package")
    raise ActionExecutionError(f"no installed app matches {name!r}; give a package name (`adb shell pm list packages`)")
