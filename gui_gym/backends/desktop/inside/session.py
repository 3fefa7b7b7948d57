"""The desktop session our server runs in: X display, window manager, session bus, and the
processes started for tasks. Runs inside the sandbox (see `sandbox.py`), as its main process.

It prepares a home that makes OSWorld's task files work unchanged (``/home/user``, ``python``
with pyautogui on the PATH, LibreOffice without first-start dialogs or the "keep current
format" question), starts Xvfb with `-displayfd` (ready when it says so), a session D-Bus where
the VM has it (GNOME Terminal, dconf and the accessibility bus need it), the user's PulseAudio
(`_start_sound`), openbox (ready when it claims the EWMH check window) and the dock (`shell.py`;
ready when it takes its room), or with ``shell="gnome"`` GNOME Shell itself with its buses and
settings (`gnome.py`, `_start_gnome`), with the VM's starting state where tasks read it
(`vm_state.py`), and keeps every process it starts so `stop` can end them all (the sound server
excepted: it runs detached, as a user's does, and ends with the sandbox).

In the sandbox the server runs as the namespace's root and everything else as someone else
(`accounts.py`): Xvfb as the display's uid, and the desktop itself (window manager, session
bus, apps, OSWorld's commands, the files it reads and writes for the evaluator) as ``user``,
exactly what the agent can touch. Once the evaluation begins (`begin_evaluation`) the agent's
leftover processes are stopped (`agent_processes`), the commands and file operations run as
``user`` with the evaluator's group as their own (so no process of the agent's may trace them
or open their descriptors: the kernel allows that only to a process of the same user and
group), and the files the evaluation writes are the server's (`guarded_files`).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from gui_gym.backends.desktop.accounts import DISPLAY_ID, EVALUATOR_ID, USER_ID
from gui_gym.backends.desktop import gnome
from gui_gym.backends.desktop.inside import bounded_run, user_files
from gui_gym.backends.desktop.inside.agent_processes import Process, Sessions, stop_leftovers
from gui_gym.backends.desktop.inside.guarded_files import GuardedFiles
from gui_gym.backends.desktop.inside.commands import normalize_command
from gui_gym.backends.desktop.gnome import MEDIA_KEYS, SYSTEM_BUS_CONFIG, SYSTEM_BUS_SOCKET, keybinding_commands, write_settings
from gui_gym.backends.desktop.inside.services import ENVIRONMENT as SERVICES_ENVIRONMENT, write_service_masks
from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS, write_shell_files
from gui_gym.backends.desktop.inside.vm_state import APPLICATION_FOLDERS, write_gimp_config, write_home_state, write_system_state
from gui_gym.runtime.processes import signal_quietly
from gui_gym.runtime.waiting import wait_until

LIBREOFFICE_PREFS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="WarnAlienFormat" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSave" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="FirstStartWizardCompleted" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Setup/Product"><prop oor:name="ooSetupLastVersion" oor:op="fuse"><value>99.9</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo"><prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Impress/Misc/NewDoc"><prop oor:name="AutoPilot" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""
"""Settings OSWorld's VM image has by hand: no dialog on saving .xlsx/.docx, no tips, no
"what's new" bar, no recovery prompt, no "Select a Template" dialog when Impress starts."""

GTK_SETTINGS = "[Settings]\ngtk-cursor-blink = false\ngtk-enable-animations = false\n"
"""A steady caret and no animations: the screen holds still once an app is done."""
VLC_PREFS = "[qt]\nqt-privacy-ask=0\n[core]\nextraintf=http\n[http]\nhttp-host=localhost\nhttp-port=8080\n[lua]\nhttp-password=password\n"
"""VLC as on OSWorld's VM: no privacy question at first start, and its HTTP interface on the
desktop's port 8080 with the password "password" (OSWorld's ``vlc_playing_info`` reads it)."""

CHROME_FLAGS = ("--user-data-dir=/home/user/.config/google-chrome", "--no-first-run", "--no-default-browser-check",
                "--password-store=basic", "--disable-dev-shm-usage", "--force-renderer-accessibility",
                "--disable-features=LocalNetworkAccessChecks", "--start-maximized")
"""Chromium as OSWorld's Chrome: its profile where OSWorld's getters read Chrome's (under
``~/.config/google-chrome``), no first-run or default-browser questions, no keyring prompt,
its accessibility tree on (OSWorld reads the address bar from it), its window maximised as the
VM's Chrome remembers it, and no local-network-access
checks, which the VM's older Chrome lacks: their migration writes
``profile.default_content_setting_values`` at the first start, the key OSWorld's
``data_delete_automacally`` getter reads as "delete site data on close" (chrome/99146c54 scored
1 on an untouched desktop)."""
SHIMS: dict[str, tuple[str, ...]] = {
    "python": (sys.executable,), "python3": (sys.executable,), "x-terminal-emulator": ("/usr/bin/gnome-terminal",),
    "google-chrome": ("/usr/bin/chromium", *CHROME_FLAGS), "google-chrome-stable": ("/usr/bin/chromium", *CHROME_FLAGS),
}
"""Commands OSWorld's tasks call -> the program (and arguments) that stands in for them here:
``python`` with pyautogui (the VM's setup commands import it), GNOME Terminal as the default
terminal (as Ubuntu has it), Chromium for Google Chrome."""
SHIM_ENV = {"google-chrome": "ACCESSIBILITY_ENABLED=1", "google-chrome-stable": "ACCESSIBILITY_ENABLED=1"}
"""Environment a shim sets: Chromium joins the accessibility bus only when asked to."""
PKILL_SHIM = """#!/bin/sh
n=$#
for a in "$@"; do
  if [ "$a" = chrome ]; then a='chrom(e|ium)'; fi
  set -- "$@" "$a"
done
shift "$n"
exec /usr/bin/pkill "$@"
"""
"""``pkill`` with the pattern ``chrome`` also matching Chromium's processes ("chromium"), so the
tasks' ``pkill chrome`` (after which Chrome has written its preferences) ends the stand-in."""


SUDO_SCRIPT = Path(__file__).with_name("sudo_command.py")
"""The desktop's ``sudo`` (`sudo_command.py`), which asks the server's sudo service (`sudo.py`)."""
SHIM_DIR = Path("/tmp/.gui-gym-bin")
"""The stand-ins' folder, first on the desktop's PATH; the server's: the user cannot change what
``python`` or ``sudo`` means."""
SHARE_DIR = Path("/tmp/.gui-gym-share")
"""The desktop's own XDG data folder (the VM's system defaults, the stand-ins' desktop entries)
and the shell's configuration; the server's, like the shims: the user cannot change them."""
DEFAULT_DATA_DIRS = "/usr/local/share:/usr/share"
"""XDG's default data folders, searched after `SHARE_DIR`."""
SESSION_BUS_SOCKET = Path(f"/run/user/{USER_ID}/bus")
"""Where the VM's session bus listens (OSWorld's tasks export this address before ``gsettings``)."""
MEDIA_KEYS_NAME = "org.gnome.SettingsDaemon.MediaKeys"
GNOME_START_TIMEOUT_S = 100.0
"""Bound on each of GNOME's readiness waits: its desktop is up in 10 to 30 s on a loaded
machine; the sandbox bounds the whole start too (`sandbox.START_TIMEOUT_S`)."""
DISPLAY_DIR = Path("/run/gui-gym-display")
"""The display's private folder (its Xauthority); the server reads it too."""
USER_FILES = Path(__file__).with_name("user_files.py")
"""The script that reads, writes and lists the desktop's files for the evaluator, as the user,
following no link (`user_files`)."""
MAX_FILE_BYTES = 1 << 30
"""The largest desktop file the server reads when its caller names no bound."""
MAX_LISTING_BYTES = 16 << 20
"""The largest folder listing the server makes when its caller names no bound."""
LISTING_TIMEOUT_S = 20.0
"""How long a listing may take: within the client's 30 s, so a home of millions of files is a
refusal the evaluator scores, not a timeout."""
MAX_OUTPUT_BYTES = 16 << 20
"""The most a command run for a task may print on each of its streams."""
FILE_TIMEOUT_S = 120.0


class FileInTheWay(OSError):
    """A write refused: a link, folder, FIFO or device is where the file or one of its folders goes."""


class TooBig(OSError):
    """A file, listing or command output past the bound it was asked for (the agent made it so)."""


class Session:
    """The display and the processes of one sandboxed desktop."""

    def __init__(self, width: int, height: int, home: str = "/home/user", shell: str = DEFAULT_SHELL,
                 accessibility: bool = True):
        if shell not in SHELLS:
            raise ValueError(f"shell must be one of {list(SHELLS)}, received {shell!r}")
        self.width, self.height = width, height
        self.home = Path(home)
        self.shell = shell
        self.accessibility = accessibility
        self.env = dict(os.environ)
        privileged = os.getuid() == 0
        self.user = USER_ID if privileged else None
        """Who the desktop's processes run as (None: as this process)."""
        self.display_user = DISPLAY_ID if privileged else None
        self.evaluator_user = EVALUATOR_ID if privileged else None
        """Who the evaluator's own runs run as (`evaluator_runs`; None: as this process)."""
        self._core: list[subprocess.Popen] = []
        self._launched: list[subprocess.Popen] = []
        self.sessions = Sessions()
        """The desktop's own sessions and those of what the task launched (`agent_processes`)."""
        self.evaluating = False
        """The evaluation has begun: the agent's leftovers are stopped, what runs for the
        evaluation runs with the evaluator's group, and the files it writes are guarded."""
        self.guarded = GuardedFiles()

    def as_user(self, uid: int | None = None) -> dict:
        """`subprocess` arguments that run a process as `uid` (default: the desktop's user),
        with that id's group only; during the evaluation the desktop's user runs with the
        evaluator's group first and its own as a supplementary one (the same files open to it)."""
        uid = self.user if uid is None else uid
        if uid is None:
            return {}
        if uid == self.user and self.evaluating and self.evaluator_user is not None:
            return {"user": uid, "group": self.evaluator_user, "extra_groups": [uid]}
        return {"user": uid, "group": uid, "extra_groups": []}

    def begin_evaluation(self) -> list[Process]:
        """The agent is done: from now on everything runs for the evaluation (see the module
        docstring), and the agent's processes the evaluation does not need are stopped (for
        good: the desktop ends with the episode). Again (a test's second evaluation on one
        desktop): the guarded files start anew, and what the agent's kept processes started
        since is stopped too. What was stopped."""
        self.evaluating = True
        self.guarded.reset()
        if self.user is None:  # outside the sandbox: the processes are this process's own
            return []
        return stop_leftovers(self.sessions)

    # ---- start and stop ------------------------------------------------------------------

    def start(self, timeout_s: float = 20.0) -> None:
        self._prepare_home()
        os.environ["XAUTHORITY"] = str(self._display_cookie)  # the server's own X connections
        self._start_display(timeout_s)
        if self.shell == "gnome":
            self._start_gnome(GNOME_START_TIMEOUT_S)
        else:
            self._start_session_bus(f"--address=unix:path={SESSION_BUS_SOCKET}")
            self._start_sound(timeout_s)
            self._start_window_manager(timeout_s)
        os.environ.update({k: v for k, v in self.env.items() if k != "XAUTHORITY"})
        self.sessions.add_all()
        self.sessions.add(os.getsid(0))  # where the task's commands run

    def stop(self) -> None:
        """Terminate everything started here, launched apps first, then the display."""
        procs = self._launched + list(reversed(self._core))
        for proc in procs:
            signal_quietly(proc.pid, signal.SIGTERM, group=True)
        deadline = time.monotonic() + 3.0
        for proc in procs:
            try:
                proc.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                signal_quietly(proc.pid, signal.SIGKILL, group=True)
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
                                stderr=subprocess.DEVNULL, start_new_session=True, **self.as_user())
        self._launched.append(proc)
        self.sessions.add(proc.pid)
        return proc

    def run(self, command: str | Sequence[str], shell: bool = False, timeout_s: float = 120.0,
            setup: bool = False) -> dict:
        """Run a command to completion: OSWorld's ``/execute`` reply. Python lines run isolated
        (`commands.normalize_command`; `setup`: a setup step's). TooBig when it prints more than
        `MAX_OUTPUT_BYTES` on a stream (it is killed)."""
        self.reap()
        try:
            done = bounded_run.run(normalize_command(command, shell, setup), shell=shell, env=self.env, cwd=self.home,
                                   max_bytes=MAX_OUTPUT_BYTES, timeout_s=timeout_s, **self.as_user())
        except bounded_run.OutputTooLarge as exc:
            raise TooBig(f"the command {_quoted(command)} {exc}") from exc
        except OSError as exc:
            return {"status": "error", "output": "", "error": str(exc), "returncode": -1}
        output = done.stdout.decode(errors="replace")
        if done.timed_out:
            return {"status": "error", "output": output, "error": f"timed out after {timeout_s} s", "returncode": -1}
        return {"status": "success", "output": output, "error": done.stderr.decode(errors="replace"),
                "returncode": done.returncode}

    def read_file(self, path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes | None:
        """A regular file's bytes as the user reads them, None when it is not there, not a
        regular file, not the user's to read, or a link is on the way (`user_files`: no link is
        followed, and a FIFO cannot hang the read); TooBig past `max_bytes`."""
        done = self._user_files("read", path, str(max_bytes), max_bytes=max_bytes)
        return done.stdout if done.returncode == 0 else None

    def openable(self, path: Path) -> bool:
        """Whether `path` is a regular file or a folder the user reaches through no link."""
        return self._user_files("check", path).returncode == 0

    def write_file(self, path: Path, data: bytes, mtime_s: int) -> None:
        """Write `data` to `path` as the user (its folders made), modified at `mtime_s`: a new
        file renamed over the old one, through no link (`user_files`); during the evaluation
        the file is then made the server's and its name watched (`guarded_files`). FileInTheWay
        when a link, folder, FIFO or device is in the way; OSError when it fails otherwise."""
        with tempfile.TemporaryFile() as source:
            source.write(data)
            source.seek(0)
            done = self._user_files("write", path, str(mtime_s), stdin=source)
        message = done.stderr.decode(errors="replace").strip()[-500:]
        if done.returncode == user_files.IN_THE_WAY:
            raise FileInTheWay(f"cannot write {path}: {message}")
        if done.returncode != 0:
            raise OSError(f"cannot write {path}: {message}")
        if self.evaluating and self.user is not None:
            try:
                self.guarded.place(str(self.home / path), data, mtime_s)
            except user_files.InTheWay as exc:
                raise FileInTheWay(f"cannot write {path}: {exc}") from exc

    def list_directory(self, path: Path, max_bytes: int = MAX_LISTING_BYTES) -> dict | None:
        """OSWorld's tree of a folder, as the user sees it, entering no link (`user_files`);
        None when it is not a folder the user can read; TooBig past `max_bytes` of JSON, or
        `LISTING_TIMEOUT_S`, or the script's bounds on entries and depth."""
        done = self._user_files("list", path, str(max_bytes), str(LISTING_TIMEOUT_S), max_bytes=max_bytes)
        return json.loads(done.stdout) if done.returncode == 0 else None

    def _user_files(self, op: str, path: Path, *arguments: str, stdin: IO[bytes] | int = subprocess.DEVNULL,
                    max_bytes: int = 1 << 16) -> bounded_run.Completed:
        """`user_files` as the user, in isolated Python, relative paths from the home (where
        the tasks' commands run), keeping at most `max_bytes` of its answer; TooBig when it
        refuses for a bound (its reason)."""
        done = bounded_run.run([sys.executable, "-I", "-S", str(USER_FILES), op, str(self.home / path), *arguments],
                               stdin=stdin, max_bytes=max_bytes + bounded_run.CHUNK, timeout_s=FILE_TIMEOUT_S,
                               cwd="/", **self.as_user())
        if done.returncode == user_files.TOO_BIG:
            raise TooBig(done.stderr.decode(errors="replace").strip()[-500:])
        return done

    def launched_pids(self) -> list[int]:
        """The programs `launch` started that still run, oldest first."""
        self.reap()
        return [proc.pid for proc in self._launched]

    def reap(self) -> None:
        """Collect launched programs that have exited."""
        self._launched = [p for p in self._launched if p.poll() is None]

    # ---- internals -------------------------------------------------------------------------

    def _prepare_home(self) -> None:
        home = self.home
        home.mkdir(parents=True, exist_ok=True)
        for sub in ("Desktop", "Documents", "Downloads", "Pictures", "Music", "Videos"):
            (home / sub).mkdir(exist_ok=True)
        cookie = xauthority_entry(socket.gethostname(), "0", secrets.token_bytes(16))
        self._cookie_file = home / ".Xauthority"
        self._cookie_file.write_bytes(cookie)
        self._cookie_file.chmod(0o600)
        DISPLAY_DIR.mkdir(mode=0o700, exist_ok=True)
        self._display_cookie = DISPLAY_DIR / "Xauthority"
        self._display_cookie.write_bytes(cookie)
        self._display_cookie.chmod(0o600)
        self._give(DISPLAY_DIR, uid=self.display_user)
        profile = home / ".config" / "libreoffice" / "4" / "user"
        profile.mkdir(parents=True, exist_ok=True)
        (profile / "registrymodifications.xcu").write_text(LIBREOFFICE_PREFS)
        gtk = home / ".config" / "gtk-3.0"
        gtk.mkdir(parents=True, exist_ok=True)
        (gtk / "settings.ini").write_text(GTK_SETTINGS)
        vlc = home / ".config" / "vlc"
        vlc.mkdir(parents=True, exist_ok=True)
        (vlc / "vlcrc").write_text(VLC_PREFS)
        write_home_state(home)
        runtime = Path("/tmp/runtime-user")
        runtime.mkdir(mode=0o700, exist_ok=True)
        self._give(home, runtime)
        Path("/tmp/.X11-unix").mkdir(mode=0o1777, exist_ok=True)
        os.chmod("/tmp/.X11-unix", 0o1777)  # the display's socket; sticky, so only the display may replace it
        shims = SHIM_DIR
        shims.mkdir(exist_ok=True)
        if Path("/usr/bin/pkill").exists() and not (shims / "pkill").exists():
            (shims / "pkill").write_text(PKILL_SHIM)
            (shims / "pkill").chmod(0o755)
        if not (shims / "sudo").exists():
            (shims / "sudo").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -I -S {SUDO_SCRIPT} "$@"\n')
            (shims / "sudo").chmod(0o755)
        for name, (target, *arguments) in SHIMS.items():
            shim = shims / name
            if Path(target).exists() and not shim.exists():
                command = " ".join(shlex.quote(part) for part in (target, *arguments))
                environment = f"{SHIM_ENV[name]} " if name in SHIM_ENV else ""
                shim.write_text(f'#!/bin/sh\n{environment}exec {command} "$@"\n')  # exec keeps venv detection
                shim.chmod(0o755)
        SESSION_BUS_SOCKET.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._give(SESSION_BUS_SOCKET.parent)
        write_system_state(SHARE_DIR)
        write_service_masks(SHARE_DIR)
        self._shell_files = write_shell_files(SHARE_DIR, list(APPLICATION_FOLDERS))
        self.env.update({
            "HOME": str(home), "USER": "user", "LOGNAME": "user", "DISPLAY": ":0", "XAUTHORITY": str(self._cookie_file),
            "XDG_RUNTIME_DIR": str(runtime), "XDG_SESSION_TYPE": "x11",
            "PATH": f"{shims}:{self.env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}",
            "SAL_USE_VCLPLUGIN": "gtk3", "NO_AT_BRIDGE": "0" if self.accessibility else "1",
            "GTK_A11Y": "atspi" if self.accessibility else "none", "LANG": self.env.get("LANG", "C.UTF-8"),
            "XDG_DATA_DIRS": f"{SHARE_DIR}:{self.env.get('XDG_DATA_DIRS') or DEFAULT_DATA_DIRS}",
        })
        self.env.update(SERVICES_ENVIRONMENT)
        gimp = write_gimp_config(SHARE_DIR / "gimp")
        if gimp is not None:
            self.env["GIMP2_SYSCONFDIR"] = str(gimp)
        self.env.pop("VIRTUAL_ENV", None)
        if self.shell == "gnome":
            self._prepare_gnome()

    def _prepare_gnome(self) -> None:
        """The settings (the VM's as defaults), the system bus's configuration and the folders
        of both buses; the session bus where the VM has it (tasks name its path)."""
        settings = write_settings(SHARE_DIR / "gsettings")
        self._give(*gnome.write_home_state(self.home))
        (SHARE_DIR / "system-bus.conf").write_text(SYSTEM_BUS_CONFIG)
        SYSTEM_BUS_SOCKET.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._give(SYSTEM_BUS_SOCKET.parent)
        self.env.update({
            "GSETTINGS_SCHEMA_DIR": str(settings), "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_DESKTOP": "gnome",
            "DESKTOP_SESSION": "gnome", "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={SYSTEM_BUS_SOCKET}",
        })

    def _give(self, *paths: Path, uid: int | None = None) -> None:
        """Hand `paths` and everything below them to `uid` (default: the user), before any of
        the user's processes exists."""
        uid = self.user if uid is None else uid
        if uid is None:
            return
        for top in paths:
            os.chown(top, uid, uid)
            for folder, dirs, files in os.walk(top):
                for name in dirs + files:
                    os.lchown(os.path.join(folder, name), uid, uid)

    def _start_display(self, timeout_s: float) -> None:
        read_fd, write_fd = os.pipe()
        xvfb = subprocess.Popen(
            ["Xvfb", ":0", "-screen", "0", f"{self.width}x{self.height}x24", "-nolisten", "tcp",
             "-nolisten", "local", "-noreset", "-auth", str(self._display_cookie), "-displayfd", str(write_fd)],
            pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, **self.as_user(self.display_user))
        os.close(write_fd)
        self._core.append(xvfb)
        with os.fdopen(read_fd) as pipe:
            answer = pipe.readline()  # Xvfb writes the display number once it accepts clients
        if not answer.strip():
            raise RuntimeError(f"Xvfb exited before the display was ready (exit code {xvfb.poll()})")

    def _start_session_bus(self, *options: str) -> None:
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self._start_bus("--session", *options)

    def _start_bus(self, *options: str) -> str:
        """A dbus-daemon as the user; its address, once it accepts connections."""
        bus = subprocess.Popen(["dbus-daemon", *options, "--nofork", "--nopidfile", "--print-address=1"],
                               env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True, **self.as_user())
        self._core.append(bus)
        address = bus.stdout.readline().strip()  # printed once the bus accepts connections
        if not address:
            raise RuntimeError(f"dbus-daemon {' '.join(options)} exited before it was ready (exit code {bus.poll()})")
        return address

    def _start_sound(self, timeout_s: float) -> None:
        """The user's PulseAudio, as the VM runs it (``pactl`` works, GNOME's top bar shows the
        volume): ``--start`` returns once the daemon has run its start-up script (the null sink,
        the VM's volume: `vm_state.py`); it never exits for being idle. It runs detached, as a
        user's sound server does (an agent may stop and restart it); the sandbox ends it."""
        done = subprocess.run(["pulseaudio", "--start", "--exit-idle-time=-1"], env=self.env, cwd=self.home,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout_s,
                              **self.as_user())
        if done.returncode != 0:
            raise RuntimeError(f"PulseAudio did not start: {done.stderr.strip()[-500:]}")

    def _start_gnome(self, timeout_s: float) -> None:
        """OSWorld's desktop (`gnome.py`): the system and session buses, the terminal key
        binding, GNOME Shell (ready when Ubuntu's dock has taken its room on the left and the
        desktop icons' window is up; what it printed goes into the error if it is not), the
        settings daemon's keys (ready when its name is on the bus and GNOME Shell grabbed
        ctrl+alt+t for it)."""
        from Xlib import display as xdisplay

        self._start_bus("--config-file", str(SHARE_DIR / "system-bus.conf"))
        self._start_session_bus(f"--address=unix:path={SESSION_BUS_SOCKET}")
        self._start_sound(timeout_s)
        for command in keybinding_commands():
            done = subprocess.run(command, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout_s, **self.as_user())
            if done.returncode != 0:
                raise RuntimeError(f"{shlex.join(command)} failed: {done.stderr.strip()}")
        shell_log = tempfile.TemporaryFile()  # unnamed, in the sandbox's bounded /tmp: gone with the session
        self._start_core(["gnome-shell", "--x11"], output=shell_log)
        conn = xdisplay.Display(":0")
        try:
            workarea = conn.intern_atom("_NET_WORKAREA")
            for what, ready in (("its dock", lambda: _workarea_left(conn, workarea) > 0),
                                ("its desktop icons", lambda: _has_desktop_icons(conn))):
                if not wait_until(lambda: ready() or not self.alive(), timeout_s) or not self.alive():
                    shell_log.seek(0)
                    output = shell_log.read().decode(errors="replace")[-3000:]
                    raise RuntimeError(f"GNOME Shell did not start with {what} within {timeout_s} s: {output}")
        finally:
            conn.close()
            shell_log.close()
        self._start_core([str(MEDIA_KEYS)])
        done = subprocess.run(["gdbus", "wait", "--session", "--timeout", str(int(timeout_s)), MEDIA_KEYS_NAME],
                              env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout_s + 5, **self.as_user())
        if done.returncode != 0:
            raise RuntimeError(f"gsd-media-keys did not start within {timeout_s} s: {done.stderr.strip()}")
        conn = xdisplay.Display(":0")
        try:
            if not wait_until(lambda: gnome.terminal_key_grabbed(conn), timeout_s):
                raise RuntimeError(f"ctrl+alt+t was not grabbed within {timeout_s} s of gsd-media-keys' start")
        finally:
            conn.close()

    def _start_window_manager(self, timeout_s: float) -> None:
        """openbox with the desktop's configuration (`shell.py`), then the dock; each ready when
        the display shows it (the window manager's check window, the dock's room in the work area)."""
        from Xlib import display as xdisplay

        self._start_core(["openbox", "--config-file", str(self._shell_files["openbox"])])
        conn = xdisplay.Display(":0")
        try:
            check = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
            if not wait_until(lambda: conn.screen().root.get_full_property(check, 0) is not None, timeout_s):
                raise RuntimeError(f"openbox did not become ready within {timeout_s} s")
            if shutil.which("tint2") is None:
                return
            workarea = conn.intern_atom("_NET_WORKAREA")
            self._start_core(["tint2", "-c", str(self._shell_files["tint2"])])
            if not wait_until(lambda: _workarea_left(conn, workarea) > 0, timeout_s):
                raise RuntimeError(f"the dock (tint2) did not take its room within {timeout_s} s")
        finally:
            conn.close()

    def _start_core(self, command: list[str], output: IO[bytes] | int = subprocess.DEVNULL) -> None:
        self._core.append(subprocess.Popen(command, env=self.env, stdin=subprocess.DEVNULL, stdout=output,
                                           stderr=output, start_new_session=True, **self.as_user()))


def _workarea_left(conn, atom: int) -> int:
    """The left edge of the work area (what maximised windows fill): past 0 once a dock is on the left."""
    prop = conn.screen().root.get_full_property(atom, 0)
    return int(prop.value[0]) if prop is not None and len(prop.value) else 0


def _has_desktop_icons(conn) -> bool:
    """Whether desktop-icons-ng's window is up: a top-level window whose name starts with ``@!``
    (how the extension marks its desktop windows under X11)."""
    from Xlib.error import XError

    for window in conn.screen().root.query_tree().children:
        try:
            name = window.get_wm_name()
        except XError:  # the window went away while we looked
            continue
        if isinstance(name, bytes):
            name = name.decode(errors="replace")
        if isinstance(name, str) and name.startswith("@!"):
            return True
    return False


def xauthority_entry(host: str, display: str, cookie: bytes) -> bytes:
    """One MIT-MAGIC-COOKIE-1 record of an Xauthority file for a local display, so clients
    (Xlib, GTK, pyautogui) authenticate as on a real desktop instead of warning."""
    def field(value: bytes) -> bytes:
        return struct.pack(">H", len(value)) + value
    family_local = 256
    return (struct.pack(">H", family_local) + field(host.encode()) + field(display.encode())
            + field(b"MIT-MAGIC-COOKIE-1") + field(cookie))


def _quoted(command: str | Sequence[str]) -> str:
    """A command for a message, cut short."""
    text = command if isinstance(command, str) else shlex.join(command)
    return repr(text if len(text) <= 200 else text[:200] + "...")
