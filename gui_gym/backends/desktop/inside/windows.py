"""Windows on our desktop: list, find, activate, close (through ``wmctrl``), and opening a
file in the application OSWorld's VM would use for it.

OSWorld's ``/setup/open_file`` opens a file with the desktop's default application and waits
until a window showing the file's name appears; we do the same with a fixed extension map to
the Debian applications the local provider has, so a task never depends on MIME settings.
"Shown" means painted and still: a window that is mapped but not drawn yet (LibreOffice's
for a second or two) does not take keyboard input where the agent expects it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from gui_gym.backends.desktop.inside import activity
from gui_gym.backends.desktop.inside.capture import ScreenCapture
from gui_gym.backends.desktop.inside.session import Session
from gui_gym.runtime.waiting import wait_until

PAINTED_COLORS = 8
"""A window showing at least this many colours has drawn its content (toolbars, text)."""
SPARSE_WINDOW_S = 3.0
"""How long to wait for `PAINTED_COLORS` before a window of fewer colours counts as drawn when
it is not a flat fill (a mapped window not painted yet shows one colour): an empty document in
a plain editor (mousepad's white page, a menu bar) shows five, and would otherwise hold the
open for its whole timeout. The settle that follows still waits for the app to go quiet."""
OPEN_QUIET_S = {"soffice": 1.0, "gimp": 1.0}
"""After painting, an app that just opened a file is ready once its window held still this long
(LibreOffice keeps filling its toolbars for a while after the document shows, GIMP its docks);
`OPEN_QUIET_DEFAULT_S` for the others, which draw their window whole."""
OPEN_QUIET_DEFAULT_S = 0.3
OPEN_INTERVAL_S = 0.05
OPEN_SETTLE_TIMEOUT_S = 20.0

OPENERS: dict[str, list[str]] = {
    **{ext: ["soffice", "--nologo", "--calc"] for ext in (".xlsx", ".xls", ".ods", ".csv", ".tsv")},
    **{ext: ["soffice", "--nologo", "--writer"] for ext in (".docx", ".doc", ".odt", ".rtf")},
    **{ext: ["soffice", "--nologo", "--impress"] for ext in (".pptx", ".ppt", ".odp")},
    **{ext: ["mousepad"] for ext in (".txt", ".md", ".py", ".json", ".sh", ".log", ".yaml",
                                      ".yml", ".ini", ".cfg", ".xml", ".html", ".js", ".css", ".c", ".h")},
    ".pdf": ["evince"],
    **{ext: ["vlc"] for ext in (".mp4", ".mkv", ".avi", ".webm", ".mov", ".mp3", ".wav", ".ogg", ".flac")},
    **{ext: ["gimp"] for ext in (".xcf",)},
}
"""File extension -> the command that opens it (the file path is appended)."""
STAND_IN_TITLES = {"google chrome": "chromium"}
"""Window names OSWorld's tasks use -> the title of the local app standing in (Chromium's
windows end with "Chromium", Chrome's with "Google Chrome")."""


@dataclass(frozen=True)
class Window:
    id: str
    wm_class: str
    title: str
    geometry: tuple[int, int, int, int]
    """left, top, width, height on the screen."""


def list_windows(env: dict[str, str]) -> list[Window]:
    """Managed top-level windows, in the order of the window manager's client list."""
    out = subprocess.run(["wmctrl", "-l", "-x", "-G"], env=env, capture_output=True, text=True, timeout=10)
    windows = []
    for line in out.stdout.splitlines():
        parts = line.split(None, 8)  # id desktop x y w h class host title
        if len(parts) >= 8:
            geometry = (int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5]))
            windows.append(Window(parts[0], parts[6], parts[8] if len(parts) == 9 else "", geometry))
    return windows


def find_window(env: dict[str, str], name: str, strict: bool = False, by_class: bool = False) -> Window | None:
    """The first window whose title (or WM_CLASS with `by_class`) equals `name` (`strict`)
    or contains it, case-insensitively when not strict: OSWorld's matching."""
    windows = list_windows(env)
    names = [name] + ([STAND_IN_TITLES[name.lower()]] if not by_class and name.lower() in STAND_IN_TITLES else [])
    for candidate in names:
        for window in windows:
            value = window.wm_class if by_class else window.title
            if (value == candidate) if strict and candidate == name else (candidate.lower() in value.lower()):
                return window
    return None


def activate_window(env: dict[str, str], name: str, strict: bool = False, by_class: bool = False) -> Window | None:
    window = find_window(env, name, strict, by_class)
    if window is not None:
        subprocess.run(["wmctrl", "-i", "-a", window.id], env=env, timeout=10, check=False)
    return window


def close_window(env: dict[str, str], name: str, strict: bool = False, by_class: bool = False) -> Window | None:
    window = find_window(env, name, strict, by_class)
    if window is not None:
        subprocess.run(["wmctrl", "-i", "-c", window.id], env=env, timeout=10, check=False)
    return window


def opener(path: Path) -> list[str]:
    """The command that opens `path` on this desktop."""
    if path.is_dir():  # in GNOME's file manager, as on OSWorld's VM; else a terminal there
        if shutil.which("nautilus"):
            return ["nautilus", "--new-window", str(path)]
        return ["gnome-terminal", f"--working-directory={path}"]
    command = OPENERS.get(path.suffix.lower())
    if command is None:
        fallback = shutil.which("xdg-open")
        if fallback is None:
            raise FileNotFoundError(f"no application here opens {path.suffix or 'extension-less'} files "
                                    f"(known: {', '.join(sorted(OPENERS))})")
        command = [fallback]
    return [*command, str(path)]


def open_file(session: Session, capture: ScreenCapture, path: str, timeout_s: float = 60.0) -> Window:
    """Open `path` in its application and wait until a window naming it is shown and
    painted (more than a flat background) and then holds still. A path that is not a file or
    a folder reached through no link (`Session.openable`) is not found."""
    target = session.home / Path(path).expanduser()
    if not session.openable(target):
        raise FileNotFoundError(f"file not found: {path}")
    deadline = time.monotonic() + timeout_s
    command = opener(target)
    session.launch(command)
    name = target.name or str(target)
    window = wait_until(lambda: find_window(session.env, name), timeout_s)
    if window is None:
        raise TimeoutError(f"no window showing {name!r} appeared within {timeout_s} s")
    remaining = max(0.0, deadline - time.monotonic())
    if not wait_until(lambda: capture.colors(*window.geometry) >= PAINTED_COLORS, min(SPARSE_WINDOW_S, remaining)):
        remaining = max(0.0, deadline - time.monotonic())
        wait_until(lambda: capture.colors(*window.geometry) > 1, remaining)
    quiet_s = OPEN_QUIET_S.get(Path(command[0]).name, OPEN_QUIET_DEFAULT_S)
    capture.settle(stable_frames=round(quiet_s / OPEN_INTERVAL_S), interval_s=OPEN_INTERVAL_S,
                   change_timeout_s=0.0, timeout_s=min(OPEN_SETTLE_TIMEOUT_S, max(0.0, deadline - time.monotonic())),
                   busy=activity.busy)
    return window
