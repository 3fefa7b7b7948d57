"""The desktop session our server runs in: X display, window manager, session bus, and the
processes started for tasks. Runs inside the sandbox (see `sandbox.py`), as its main process.

It prepares a home that makes OSWorld's task files work unchanged (``/home/user``, ``python``
with pyautogui on the PATH, LibreOffice without first-start dialogs or the "keep current
format" question), starts Xvfb with `-displayfd` (ready when it says so), a session D-Bus (for
the accessibility bus) and openbox (ready when it claims the EWMH check window), and keeps
every process it starts so `stop` can end them all.
"""

from __future__ import annotations

import os
import secrets
import shlex
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gui_gym.waiting import wait_until

LIBREOFFICE_PREFS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSave" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="FirstStartWizardCompleted" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.9</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""
"""Settings OSWorld's VM image has by hand: no dialog on saving .xlsx/.docx, no tips, no
"what's new" bar, no recovery prompt."""

GTK_SETTINGS = "[Settings]\ngtk-cursor-blink = false\ngtk-enable-animations = false\n"
"""A steady caret and no animations: the screen holds still once an app is done."""

SHIMS = {"python": sys.executable, "python3": sys.executable,
         "gnome-terminal": "/usr/bin/lxterminal", "x-terminal-emulator": "/usr/bin/lxterminal"}
"""Commands OSWorld's tasks call -> the program that stands in for them here: ``python``
with pyautogui (the VM's setup commands import it), Debian's terminal for GNOME's."""


class Session:
    """The display and the processes of one sandboxed desktop."""

    def __init__(self, width: int, height: int, home: str = "/home/user", window_manager: str = "openbox",
                 accessibility: bool = True):
        self.width, self.height = width, height
        self.home = Path(home)
        self.window_manager = window_manager
        self.accessibility = accessibility
        self.env = dict(os.environ)
        self._core: list[subprocess.Popen] = []
        self._launched: list[subprocess.Popen] = []

    # ---- start and stop ------------------------------------------------------------------

    def start(self, timeout_s: float = 20.0) -> None:
        self._prepare_home()
        self._start_display(timeout_s)
        if self.accessibility:
            self._start_session_bus()
        self._start_window_manager(timeout_s)
        os.environ.update(self.env)

    def stop(self) -> None:
        """Terminate everything started here, launched apps first, then the display."""
        procs = self._launched + list(reversed(self._core))
        for proc in procs:
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + 3.0
        for proc in procs:
            try:
                proc.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait()
        self._launched.clear()
        self._core.clear()

    def alive(self) -> bool:
        """Whether the display and the session's other core processes (bus, window manager)
        still run: without them no action or screenshot can work."""
        return bool(self._core) and all(proc.poll() is None for proc in self._core)

    # ---- processes for tasks ---------------------------------------------------------------

    def launch(self, command: str | Sequence[str], shell: bool = False) -> subprocess.Popen:
        """Start a program and return without waiting for it (OSWorld's ``/setup/launch``)."""
        self.reap()
        proc = subprocess.Popen(normalize_command(command, shell), shell=shell, env=self.env,
                                cwd=self.home, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        self._launched.append(proc)
        return proc

    def run(self, command: str | Sequence[str], shell: bool = False, timeout_s: float = 120.0) -> dict:
        """Run a command to completion: OSWorld's ``/execute`` reply."""
        self.reap()
        try:
            done = subprocess.run(normalize_command(command, shell), shell=shell, env=self.env, cwd=self.home,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  errors="replace", timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            return {"status": "error", "output": _text(exc.stdout), "error": f"timed out after {timeout_s} s",
                    "returncode": -1}
        except OSError as exc:
            return {"status": "error", "output": "", "error": str(exc), "returncode": -1}
        return {"status": "success", "output": done.stdout, "error": done.stderr, "returncode": done.returncode}

    def reap(self) -> None:
        """Collect launched programs that have exited."""
        self._launched = [p for p in self._launched if p.poll() is None]

    # ---- internals -------------------------------------------------------------------------

    def _prepare_home(self) -> None:
        home = self.home
        home.mkdir(parents=True, exist_ok=True)
        for sub in ("Desktop", "Documents", "Downloads", "Pictures", "Music", "Videos"):
            (home / sub).mkdir(exist_ok=True)
        self._cookie_file = home / ".Xauthority"
        self._cookie_file.write_bytes(xauthority_entry(socket.gethostname(), "0", secrets.token_bytes(16)))
        profile = home / ".config" / "libreoffice" / "4" / "user"
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "registrymodifications.xcu").write_text(LIBREOFFICE_PREFS)
        gtk = home / ".config" / "gtk-3.0"
        gtk.mkdir(parents=True, exist_ok=True)
        (gtk / "settings.ini").write_text(GTK_SETTINGS)
        runtime = Path("/tmp/runtime-user")
        runtime.mkdir(mode=0o700, exist_ok=True)
        shims = Path("/tmp/.gui-gym-bin")
        shims.mkdir(exist_ok=True)
        for name, target in SHIMS.items():
            shim = shims / name
            if target and Path(target).exists() and not shim.exists():
                shim.write_text(f'#!/bin/sh\nexec {shlex.quote(target)} "$@"\n')  # keeps venv detection
                shim.chmod(0o755)
        self.env.update({
            "HOME": str(home), "USER": "user", "LOGNAME": "user", "DISPLAY": ":0",
            "XDG_RUNTIME_DIR": str(runtime), "XDG_SESSION_TYPE": "x11",
            "PATH": f"{shims}:{self.env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}",
            "SAL_USE_VCLPLUGIN": "gtk3", "NO_AT_BRIDGE": "0" if self.accessibility else "1",
            "GTK_A11Y": "atspi" if self.accessibility else "none", "LANG": self.env.get("LANG", "C.UTF-8"),
        })
        self.env.pop("VIRTUAL_ENV", None)

    def _start_display(self, timeout_s: float) -> None:
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(
            ["Xvfb", ":0", "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten", "tcp",
             "-nolisten", "local", "-noreset", "-auth", str(self._cookie_file), "-displayfd", str(write_fd)],
            pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(write_fd)
        self._core.append(xvfb)
        with os.fdopen(read_fd) as pipe:
            answer = pipe.readline()  # Xvfb writes the display number once it accepts clients
        if not answer.strip():
            raise RuntimeError(f"Xvfb exited before the display was ready (exit code {xvfb.poll()})")

    def _start_session_bus(self) -> None:
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
                               env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        self._core.append(bus)
        address = bus.stdout.readline().strip()  # printed once the bus accepts connections
        if not address:
            raise RuntimeError(f"dbus-daemon exited before the session bus was ready (exit code {bus.poll()})")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address

    def _start_window_manager(self, timeout_s: float) -> None:
        from Xlib import display as xdisplay

        self._core.append(subprocess.Popen([self.window_manager], env=self.env, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True))
        conn = xdisplay.Display(":0")
        try:
            check = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
            if not wait_until(lambda: conn.screen().root.get_full_property(check, 0) is not None, timeout_s):
                raise RuntimeError(f"{self.window_manager} did not become ready within {timeout_s} s")
        finally:
            conn.close()


def xauthority_entry(host: str, display: str, cookie: bytes) -> bytes:
    """One MIT-MAGIC-COOKIE-1 record of an Xauthority file for a local display, so clients
    (Xlib, GTK, pyautogui) authenticate as on a real desktop instead of warning."""
    def field(value: bytes) -> bytes:
        return struct.pack(">H", len(value)) + value
    family_local = 256
    return (struct.pack(">H", family_local) + field(host.encode()) + field(display.encode())
            + field(b"MIT-MAGIC-COOKIE-1") + field(cookie))


def _signal_group(proc, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            pass


def normalize_command(command: str | Sequence[str], shell: bool) -> str | list[str]:
    """OSWorld's conventions: a string without a shell is split like a shell would; with a
    shell a list is joined; ``~/`` at the start of an argument is the home folder."""
    if shell:
        return command if isinstance(command, str) else shlex.join(command)
    parts = shlex.split(command) if isinstance(command, str) else list(command)
    if not parts:
        raise ValueError("empty command")
    return [os.path.expanduser(p) if p.startswith("~/") else p for p in parts]


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value
