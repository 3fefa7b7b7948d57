"""The local provider's sandbox: one bubblewrap container per desktop session.

Inside: user ``user`` (uid 1000, in a user namespace), the host's filesystem read-only, a private writable ``/home/user`` and ``/tmp``
(tmpfs, gone when the session ends, so a task that deletes or writes files never touches the
host), a private ``/run``, private PID, IPC and UTS namespaces, and no network unless the task
asks for it. Xvfb, the window manager, the session bus, our server, and every app and setup
command live in there. The host reaches the server through a Unix socket in a private
(0700) folder bound into the sandbox at ``/run/gui-gym``, authenticated by a random token.

Ending the sandbox ends everything in it: bubblewrap is PID 1 of the sandbox's PID namespace,
and the kernel kills every process of a namespace whose PID 1 exits; ``--die-with-parent``
covers a host process that dies without closing.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gui_gym.errors import InfraError, MissingResourceError
from gui_gym.processes import alive, descendants, signal_quietly
from gui_gym.waiting import wait_until

INSIDE_DIR = "/run/gui-gym"
PRIVATE_DIRS = ("/tmp", "/run", "/home")
"""Folders the sandbox replaces with empty ones of its own."""
USER_ID = 1000
"""Inside the sandbox everything runs as ``user`` (uid 1000), as in OSWorld's VM; a user
namespace maps it to the host user that started the env."""
REQUIRED_PROGRAMS = {
    "bwrap": "bubblewrap", "Xvfb": "xvfb", "openbox": "openbox", "wmctrl": "wmctrl",
    "dbus-daemon": "dbus-daemon",
}
"""Programs the local provider needs -> the Debian package that has them."""


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandboxed session looks like."""

    width: int = 1920
    height: int = 1080
    network: bool = False
    accessibility: bool = True
    start_timeout_s: float = 60.0


def check_programs() -> None:
    """Raise MissingResourceError naming every missing program and its Debian package."""
    missing = {name: pkg for name, pkg in REQUIRED_PROGRAMS.items() if shutil.which(name) is None}
    if missing:
        packages = " ".join(sorted(set(missing.values())))
        raise MissingResourceError(
            f"the local desktop provider needs {', '.join(sorted(missing))}, not found on PATH; "
            f"install them (Debian/Ubuntu: `apt-get install {packages}`) or use provider 'docker', "
            "'vmware' or 'remote' with a real OSWorld VM")


class Sandbox:
    """One running session: `start` returns once our server answers on `socket_path`."""

    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        self.token = secrets.token_urlsafe(24)
        self._dir: Path | None = None
        self._proc: subprocess.Popen | None = None

    @property
    def socket_path(self) -> str:
        if self._dir is None:
            raise InfraError("the sandbox is not running")
        return str(self._dir / "server.sock")

    @property
    def pid(self) -> int | None:
        """Host PID of the bubblewrap process (every process of the session descends from it)."""
        return self._proc.pid if self._proc is not None else None

    def command(self, shared: Path) -> list[str]:
        """The bubblewrap command line for this session."""
        inside = INSIDE_DIR
        package_root = str(Path(__file__).resolve().parents[3])
        args = [
            "bwrap", "--unshare-user", "--uid", str(USER_ID), "--gid", str(USER_ID),
            "--ro-bind", "/", "/", "--ro-bind", str(shared / "passwd"), "/etc/passwd",
            "--ro-bind", str(shared / "group"), "/etc/group", "--dev", "/dev", "--proc", "/proc",
            *(arg for folder in PRIVATE_DIRS for arg in ("--tmpfs", folder)), "--dir", "/home/user",
            "--bind", str(shared), inside,
            *_visible_again(sys.prefix, package_root),
            "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "osworld",
            "--die-with-parent", "--new-session",
            "--setenv", "HOME", "/home/user", "--setenv", "PYTHONPATH", package_root,
            "--chdir", "/home/user",
        ]
        if not self.spec.network:
            args.append("--unshare-net")
        server = [sys.executable, "-m", "gui_gym.backends.desktop.server", "--socket", f"{inside}/server.sock",
                  "--token-file", f"{inside}/token", "--ready-file", f"{inside}/ready",
                  "--width", str(self.spec.width), "--height", str(self.spec.height)]
        if not self.spec.accessibility:
            server.append("--no-a11y")
        return args + ["--", *server]

    def start(self) -> None:
        check_programs()
        self._dir = Path(tempfile.mkdtemp(prefix="gui-gym-desktop-"))
        os.chmod(self._dir, 0o700)
        (self._dir / "token").write_text(self.token)
        write_account_files(self._dir)
        log = open(self._dir / "server.log", "wb")
        try:
            self._proc = subprocess.Popen(self.command(self._dir), stdin=subprocess.DEVNULL, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            log.close()
        ready = self._dir / "ready"
        if not wait_until(lambda: ready.exists() or self._proc.poll() is not None, self.spec.start_timeout_s) \
                or not ready.exists():
            detail = self.log_tail()
            self.stop()
            raise InfraError(f"the desktop sandbox did not start within {self.spec.start_timeout_s} s: {detail}")
        json.loads(ready.read_text())

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return (self._dir / "server.log").read_text(errors="replace")[-chars:].strip() or "(no output)"
        except (OSError, TypeError):
            return "(no log)"

    def stop(self, grace_s: float = 5.0) -> None:
        """End the session and everything in it, and return once every process of it is gone;
        remove the shared folder. Safe twice."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            inside = descendants(proc.pid)
            signal_quietly(proc.pid, signal.SIGTERM, group=True)
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                signal_quietly(proc.pid, signal.SIGKILL, group=True)
                proc.wait()
            for pid in inside:  # the namespace dies with its init, a moment later; do not wait on the kernel
                signal_quietly(pid, signal.SIGKILL)
            if not wait_until(lambda: not any(alive(pid) for pid in inside), grace_s):
                raise InfraError(f"desktop sandbox processes {[p for p in inside if alive(p)]} did not exit")
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _visible_again(*paths: str) -> list[str]:
    """Read-only binds that show `paths` (the interpreter and the package, which the server
    runs from) inside the sandbox when they live in one of its private folders: a checkout
    or a virtual environment under /tmp is hidden by the sandbox's own /tmp otherwise."""
    args: list[str] = []
    for path in dict.fromkeys(str(Path(p).resolve()) for p in paths):
        if any(path == d or path.startswith(d + "/") for d in PRIVATE_DIRS):
            args += ["--ro-bind", path, path]
    return args


def write_account_files(folder: Path) -> None:
    """``passwd`` and ``group`` for the sandbox: the host's, with ``user`` as uid/gid 1000."""
    for name, line in (("passwd", f"user:x:{USER_ID}:{USER_ID}:user:/home/user:/bin/bash"),
                       ("group", f"user:x:{USER_ID}:")):
        kept = [entry for entry in Path("/etc", name).read_text().splitlines()
                if entry and entry.split(":")[0] != "user" and entry.split(":")[2:3] != [str(USER_ID)]]
        (folder / name).write_text("\n".join([*kept, line]) + "\n")
