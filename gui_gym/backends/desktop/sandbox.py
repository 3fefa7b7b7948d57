"""The local provider's sandbox: one bubblewrap container per desktop session, built to hold
against a hostile agent (see docs/security.md for what it guarantees and what it does not).

- Ids: a user namespace maps the server, the evaluator's own runs, the display and the agent's
  ``user`` to unprivileged host ids of this sandbox alone (`accounts.py`); no id inside is host
  root, so host permissions hold for everything inside.
- Files: only the host's system folders (``/usr``, ``/etc``, ``/opt``, ``/var/lib``,
  ``/var/cache``, ``/sys``), the interpreter the server runs from and the package's code less
  its suites (`package_sources`: no task file, gold file or oracle) are visible, read-only.
  ``/home``, ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run`` are private tmpfs of bounded size
  (`limits.py`), gone with the sandbox. Nothing of the host is writable.
- Namespaces: private PID, IPC, UTS, cgroup and network namespaces, always: no host Unix socket
  (abstract or in a host folder) and no host loopback port is reachable. A sandbox that needs
  the internet gets it through slirp4netns, a user-mode network stack that forbids the host's
  loopback.
- The evaluator's channel: our server listens on ``/run/gui-gym/server.sock``, in a folder only
  the sandbox's root may enter; the host reaches it through ``/proc/<pid>/root``, so no host
  folder is shared. The per-env token comes on a pipe and lives only in the server's memory.
- Limits: tmpfs sizes, rlimits and a cgroup (pids, memory) per sandbox (`limits.py`).
- No leftovers: the server's log is an unnamed file, and ending the sandbox ends everything in
  it (bubblewrap is PID 1 of the sandbox's PID namespace, whose processes the kernel kills when
  it exits). A host process that dies without closing, ``kill -9`` included, takes its sandboxes
  with it from the moment the launcher starts bubblewrap: the launcher arms the parent-death
  signal before its exec and checks the parent is still there (`launcher.die_with`), and
  bubblewrap's ``--die-with-parent`` keeps it armed. Bubblewrap's init arms its own only once
  it runs; a host gone before then is seen by the server, whose ready pipe is broken: it stops
  its session, and the init exits with no child left.

The sandbox needs root on the host: mapping several ids takes privilege outside the namespace.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from gui_gym.backends.desktop import gnome, launcher, system_files
from gui_gym.backends.desktop.accounts import HOME, ROOT_HOME, SERVER_CAPABILITIES, account_files, id_map
from gui_gym.backends.desktop.limits import Cgroup, SandboxLimits
from gui_gym.backends.desktop.shell import DEFAULT_SHELL
from gui_gym.errors import InfraError, MissingResourceError
from gui_gym.runtime.processes import descendants, running, signal_quietly
from gui_gym.runtime.waiting import wait_until

log = logging.getLogger(__name__)

INSIDE_DIR = "/run/gui-gym"
"""The server's folder inside (its socket); only the sandbox's root may enter it."""
SYSTEM_FOLDERS = ("/usr", "/etc", "/opt", "/var/lib", "/var/cache", "/sys")
"""Host folders the apps need, shown read-only."""
MERGED_FOLDERS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level folders that are links into /usr on a merged-/usr system, or folders."""
STICKY = 0o1777
"""Mode of the tmpfs anyone inside may write to (/tmp, /var/tmp, /dev/shm)."""
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
LAUNCHER = Path(launcher.__file__)
PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
"""The folder holding the ``gui_gym`` package: the server runs from it."""
PACKAGE_DIR = os.path.join(PACKAGE_ROOT, "gui_gym")
"""The package's own folder, of which the sandbox shows only the code the server needs (`package_sources`)."""
REQUIRED_PROGRAMS = {
    "bwrap": "bubblewrap", "Xvfb": "xvfb", "openbox": "openbox", "wmctrl": "wmctrl",
    "dbus-daemon": "dbus-daemon", "gnome-terminal": "gnome-terminal", "pulseaudio": "pulseaudio",
}
"""Programs the local provider needs -> the Debian package that has them."""
NETWORK_PROGRAM = ("slirp4netns", "slirp4netns")
START_TIMEOUT_S = {"openbox": 60.0, "gnome": 120.0}
"""How long a sandbox may take to start, by shell: openbox's desktop is up in 2 to 5 s, GNOME's
in 10 to 30 s on a loaded machine."""
TEARDOWN_TIMEOUT_S = 30.0
"""How long the kernel may take to end a killed sandbox's processes: a GNOME desktop's (about
600 MiB in 20 processes) took over 5 s now and then on a loaded machine, where an openbox one
takes a fraction of a second."""
SLIRP_DNS = "10.0.2.3"
"""slirp4netns's built-in resolver."""


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandboxed session looks like."""

    width: int = 1920
    height: int = 1080
    network: bool = False
    accessibility: bool = True
    shell: str = DEFAULT_SHELL
    """The desktop: ``gnome`` (GNOME Shell, as on OSWorld's VM) or ``openbox`` (light)."""
    start_timeout_s: float | None = None
    """Bound on the start, until our server answers; None: `START_TIMEOUT_S` for the shell."""
    limits: SandboxLimits = field(default_factory=SandboxLimits)

    @property
    def start_bound_s(self) -> float:
        return self.start_timeout_s if self.start_timeout_s is not None else START_TIMEOUT_S[self.shell]


def check_programs(network: bool = False, shell: str = DEFAULT_SHELL) -> None:
    """Raise MissingResourceError naming every missing program and its Debian package."""
    wanted = dict(REQUIRED_PROGRAMS, **dict([NETWORK_PROGRAM] if network else []))
    missing = {name: pkg for name, pkg in wanted.items() if shutil.which(name) is None}
    if shell == "gnome" and gnome.missing_packages():
        packages = " ".join(gnome.missing_packages())
        raise MissingResourceError(
            f"the GNOME desktop (shell='gnome') needs Debian's {packages}, not installed; install them "
            f"(`apt-get install {packages}`) or use shell='openbox'")
    if missing:
        packages = " ".join(sorted(set(missing.values())))
        raise MissingResourceError(
            f"the local desktop provider needs {', '.join(sorted(missing))}, not found on PATH; "
            f"install them (Debian/Ubuntu: `apt-get install {packages}`) or use provider 'docker', "
            "'vmware' or 'remote' with a real OSWorld VM")
    if os.geteuid() != 0:
        raise MissingResourceError(
            "the local desktop provider's sandbox maps its users to unprivileged host ids of their own, "
            "which takes root: run as root (e.g. in a container), or use provider 'docker', 'vmware' or "
            "'remote' with a real OSWorld VM")


class Sandbox:
    """One running session: `start` returns once our server answers on `socket_path`."""

    def __init__(self, spec: SandboxSpec):
        self.spec = spec
        self.token = secrets.token_urlsafe(24)
        self._proc: subprocess.Popen | None = None
        self._slirp: subprocess.Popen | None = None
        self._slirp_exit: int | None = None
        self._cgroup: Cgroup | None = None
        self._root: int | None = None
        self._log = None
        self.init_pid: int | None = None
        """Host PID of the sandbox's PID 1."""

    @property
    def socket_path(self) -> str:
        """The server's socket, seen from the host through the sandbox's root."""
        if self._root is None:
            raise InfraError("the sandbox is not running")
        return f"/proc/self/fd/{self._root}{INSIDE_DIR}/server.sock"

    @property
    def pid(self) -> int | None:
        """Host PID of the sandbox's first process (every process of the session descends from it)."""
        return self._proc.pid if self._proc is not None else None

    @property
    def cgroup_folders(self) -> list[Path]:
        """The sandbox's cgroup folders (none where the host has no cgroups for us)."""
        return list(self._cgroup.folders) if self._cgroup is not None else []

    def command(self, fds: dict[str, int]) -> list[str]:
        """The bubblewrap command line; `fds` names the descriptors it reads from (the files of
        `data_targets`, ``resolv`` only with the network, and ``token``) and the server's
        ``ready`` pipe."""
        args = ["bwrap", "--clearenv", "--cap-drop", "ALL"]
        for capability in SERVER_CAPABILITIES:
            args += ["--cap-add", capability]
        args += [arg for folder in SYSTEM_FOLDERS for arg in _shown(folder, "--ro-bind-try")]
        for folder in MERGED_FOLDERS:
            if os.path.islink(folder):
                args += ["--symlink", os.readlink(folder), folder]
            elif os.path.isdir(folder):
                args += ["--ro-bind", folder, folder]
        args += system_files.apt_arguments()
        for name, (target, mode) in data_targets().items():
            if name in fds:
                args += ["--perms", f"{mode:o}", "--ro-bind-data", str(fds[name]), target]
        args += system_files.apt_sealing()
        args += ["--dev", "/dev", "--proc", "/proc", "--symlink", "../run", "/var/run"]
        for folder, mib in self.spec.limits.tmpfs_mib().items():
            args += ["--perms", f"{_tmpfs_mode(folder):o}", "--size", str(mib << 20), "--tmpfs", folder]
        args += ["--perms", "0755", "--dir", HOME]
        for path in runtime_paths():
            args += _shown(path, "--ro-bind")
        args += _package_code()
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup", "--unshare-net",
                 "--hostname", system_files.HOSTNAME, "--die-with-parent", "--new-session",
                 "--setenv", "HOME", HOME, "--setenv", "PATH", SANDBOX_PATH, "--setenv", "PYTHONPATH", PACKAGE_ROOT,
                 "--setenv", "LANG", system_files.desktop_locale(), "--chdir", HOME]
        server = [interpreter(), "-m", "gui_gym.backends.desktop.inside.server", "--socket", f"{INSIDE_DIR}/server.sock",
                  "--token-fd", str(fds["token"]), "--ready-fd", str(fds["ready"]), "--sudo",
                  "--width", str(self.spec.width), "--height", str(self.spec.height), "--shell", self.spec.shell]
        if not self.spec.accessibility:
            server.append("--no-a11y")
        return args + ["--", *server]

    def start(self) -> None:
        check_programs(self.spec.network, self.spec.shell)
        paths = [*runtime_paths(), PACKAGE_DIR]
        _check_readable(paths)
        fds = _Descriptors()
        try:
            data = account_files() | {name: text for name, (_, text, _) in system_files.data_files().items()}
            data["token"] = self.token
            if self.spec.network:
                data["resolv"] = f"nameserver {SLIRP_DNS}\n"
            inside = {name: fds.holding(text.encode()) for name, text in data.items()}
            ready, inside["ready"] = fds.pipe()
            info, info_w = fds.pipe()
            launched, launched_w = fds.pipe()
            go_r, go = fds.pipe()
            launcher = [sys.executable, "-I", "-S", str(LAUNCHER), str(launched_w), str(go_r), str(os.getpid()),
                        *(arg for path in paths for arg in ("--reach", path)), "--"]
            bwrap = self.command(inside)
            bwrap[1:1] = ["--info-fd", str(info_w)]
            self._log = tempfile.TemporaryFile()  # unnamed: nothing is left if this process is killed
            self._proc = subprocess.Popen(
                launcher + bwrap, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                start_new_session=True, pass_fds=(*inside.values(), info_w, launched_w, go_r))
            fds.close(*inside.values(), info_w, launched_w, go_r)  # the sandbox's ends
            deadline = time.monotonic() + self.spec.start_bound_s
            if self._read(launched, deadline, 1) != b"u":
                self._fail("the sandbox's launcher did not enter its user namespace")
            self._confine(go)
            self.init_pid = json.loads(self._read(info, deadline) or b"{}").get("child-pid")
            if self.init_pid is None:
                self._fail("bubblewrap did not start")
            if self.spec.network:
                self._start_network(deadline)
            answer = self._read(ready, deadline)
            if not answer:
                self._fail(f"the desktop sandbox did not start within {self.spec.start_bound_s} s")
            json.loads(answer)
            # held open: the sandbox's root even if its PID is reused; opened now, after its pivot_root
            self._root = os.open(f"/proc/{self.init_pid}/root", os.O_PATH | os.O_DIRECTORY)
        except BaseException:
            self.stop()
            raise
        finally:
            fds.close_all()

    def _confine(self, go_fd: int) -> None:
        """Map the ids, limit and group the launcher (all of the sandbox descends from it),
        then let it go on."""
        pid = self._proc.pid
        for name in ("uid_map", "gid_map"):
            Path(f"/proc/{pid}/{name}").write_text(id_map(pid))
        self.spec.limits.apply_rlimits(pid)
        self._cgroup = Cgroup.create(self.spec.limits)
        self._cgroup.add(pid)
        os.write(go_fd, b"g")

    def _start_network(self, deadline: float) -> None:
        """Give the sandbox's network namespace a user-mode stack with NAT to the host's
        network, the host's own loopback excluded; returns once it is configured."""
        ready_r, ready_w = os.pipe()
        exit_r, self._slirp_exit = os.pipe()
        try:
            self._slirp = subprocess.Popen(
                ["slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox",
                 "--enable-seccomp", f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", str(self.init_pid), "tap0"],
                stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, pass_fds=(ready_w, exit_r),
                start_new_session=True)
            os.close(ready_w)
            os.close(exit_r)
            if self._read(ready_r, deadline, 1) != b"1":
                self._fail("slirp4netns did not configure the sandbox's network")
        finally:
            os.close(ready_r)

    def _read(self, fd: int, deadline: float, size: int | None = None) -> bytes:
        """Read `fd` until it closes (or `size` bytes came), the deadline passes or the
        sandbox exits; what came so far."""
        data = b""
        while size is None or len(data) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], min(remaining, 0.5))[0]:
                if remaining <= 0 or self._proc.poll() is not None:
                    break
                continue
            chunk = os.read(fd, 65536 if size is None else size - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def _fail(self, what: str) -> None:
        raise InfraError(f"{what}: {self.log_tail()}")

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, chars: int = 2000) -> str:
        if self._log is None:
            return "(no log)"
        try:
            self._log.seek(0)
            return self._log.read().decode(errors="replace")[-chars:].strip() or "(no output)"
        except (OSError, ValueError):
            return "(no log)"

    def stop(self, grace_s: float = 5.0) -> None:
        """End the session and everything in it, and return once every process of it is gone;
        release what the host holds for it. Safe twice."""
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
            if not wait_until(lambda: not any(running(pid) for pid in inside), TEARDOWN_TIMEOUT_S):
                left = [f"{p} ({_described(p)})" for p in inside if running(p)]
                raise InfraError(f"desktop sandbox processes {', '.join(left)} did not exit")
        elif proc is not None:
            proc.wait()
        slirp, self._slirp = self._slirp, None
        if self._slirp_exit is not None:
            os.close(self._slirp_exit)  # slirp4netns exits when this closes
            self._slirp_exit = None
        if slirp is not None:
            try:
                slirp.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                slirp.kill()
                slirp.wait()
        if self._cgroup is not None:
            self._cgroup.remove(grace_s)
            self._cgroup = None
        for handle in ("_root", "_log"):
            value = getattr(self, handle)
            setattr(self, handle, None)
            if isinstance(value, int):
                os.close(value)
            elif value is not None:
                value.close()


class _Descriptors:
    """The pipes of a start, each end closed once."""

    def __init__(self):
        self.open: set[int] = set()

    def pipe(self) -> tuple[int, int]:
        ends = os.pipe()
        self.open.update(ends)
        return ends

    def holding(self, data: bytes) -> int:
        """The read end of a pipe that holds `data` (a few KiB: it fits in the pipe at once)."""
        read, write = self.pipe()
        os.write(write, data)
        self.close(write)
        return read

    def close(self, *fds: int) -> None:
        for fd in fds:
            if fd in self.open:
                self.open.discard(fd)
                os.close(fd)

    def close_all(self) -> None:
        self.close(*list(self.open))


HIDDEN_SUBPACKAGES = ("__pycache__", "suites", "agents", "trainers", "benchmarks")
"""Folders of the ``gui_gym`` package the sandbox never shows (`package_sources`)."""


def interpreter() -> str:
    """The interpreter the server runs with, as the sandbox sees it: `sys.executable` with its
    folder resolved. `runtime_paths` binds resolved folders only, so a venv reached through a
    link (``.venv -> elsewhere``) does not exist inside at its linked path. The file itself is
    left unresolved: a venv's ``bin/python`` links to the base interpreter, and Python finds
    the venv (its ``pyvenv.cfg``) only when started through the venv's own path."""
    folder, name = os.path.split(sys.executable)
    return os.path.join(os.path.realpath(folder), name)


def runtime_paths() -> list[str]:
    """Host folders the interpreter runs from (its prefixes: a venv, its base) that the
    system folders do not already show, outermost only. The package is shown apart
    (`package_sources`): its folder, or the project around it, holds data the agent must not read."""
    shown = SYSTEM_FOLDERS + MERGED_FOLDERS
    candidates = {str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                    sys.base_exec_prefix)}
    candidates |= {str(Path(sys.executable).resolve().parent)}
    outside = [p for p in candidates if not any(p == s or p.startswith(s + "/") for s in shown)]
    return sorted(p for p in outside if not any(p != q and p.startswith(q + "/") for q in outside))


@functools.cache
def package_sources() -> tuple[str, ...]:
    """What the sandbox shows of the ``gui_gym`` package: its code, less `HIDDEN_SUBPACKAGES`. The
    server imports no benchmark (a backend never knows one), and the suites hold what the agent must
    not read: the OSWorld sample's task files and gold files (the expected values), the oracles; an
    installed distribution also holds the agents, trainers and benchmarks there, which the server
    never runs. In a checkout the results folders and ``.git`` around the package stay hidden too.
    A folder of code only is one mount (each costs about a millisecond of the sandbox's start)."""

    def code_only(folder: Path) -> bool:
        return all(p.suffix in (".py", ".pyc") for p in folder.rglob("*") if p.is_file())

    def shown(folder: Path) -> list[str]:
        if code_only(folder):
            return [str(folder)]
        return [path for entry in sorted(folder.iterdir()) if entry.name not in HIDDEN_SUBPACKAGES
                for path in (shown(entry) if entry.is_dir() else [str(entry)] if entry.suffix == ".py" else [])]

    return tuple(shown(Path(PACKAGE_DIR)))


def _package_code() -> list[str]:
    """Arguments that show `package_sources` read-only and nothing else of the package: an empty
    tmpfs over its folder first, since an interpreter prefix shown before may hold the package
    whole (an install into a venv's site-packages)."""
    args = [arg for parent in _parents(PACKAGE_DIR) for arg in ("--perms", "0755", "--dir", parent)]
    args += ["--perms", "0755", "--size", str(1 << 20), "--tmpfs", PACKAGE_DIR]
    folders = sorted({os.path.dirname(p) for p in package_sources()} - {PACKAGE_DIR})
    for folder in folders:  # sorted: a folder's parents come before it
        args += ["--perms", "0755", "--dir", folder]
    for path in package_sources():
        args += ["--ro-bind", path, path]
    return args


def _parents(path: str) -> list[str]:
    """`path`'s ancestors below ``/``, outermost first."""
    parts = path.strip("/").split("/")
    return ["/" + "/".join(parts[:depth]) for depth in range(1, len(parts))]


def data_targets() -> dict[str, tuple[str, int]]:
    """Files the sandbox shows with text of its own: descriptor name -> (path inside, mode)."""
    return {"passwd": ("/etc/passwd", 0o644), "group": ("/etc/group", 0o644), "resolv": ("/etc/resolv.conf", 0o644),
            **{name: (path, mode) for name, (path, _, mode) in system_files.data_files().items()}}


def _tmpfs_mode(folder: str) -> int:
    """A private folder's mode: sticky for all (the temporary folders), 0755 for ``/home`` and
    ``/run``; ``/root`` (the sudo root's home) is 0700 as on Ubuntu, or 0755 where the
    interpreter lives below it and the desktop's users must pass through."""
    if folder == ROOT_HOME:
        below = any(path.startswith(ROOT_HOME + "/") for path in (*runtime_paths(), PACKAGE_DIR))
        return 0o755 if below else 0o700
    return 0o755 if folder in ("/home", "/run") else STICKY


def _shown(path: str, bind: str) -> list[str]:
    """Arguments that bind host `path` at the same place, its parents made traversable."""
    return [arg for parent in _parents(path) for arg in ("--perms", "0755", "--dir", parent)] + [bind, path, path]


def _described(pid: int) -> str:
    """A process's command name and state (``R``, ``D``...), for an error that names it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            name, rest = stat.read().rsplit(")", 1)
        return f"{name.split('(', 1)[1]}, state {rest.split()[0]}"
    except (OSError, IndexError):
        return "gone"


def _check_readable(paths: list[str]) -> None:
    """The sandbox's ids are strangers to the host: what the server runs from must be readable by all."""
    closed = [p for p in paths if (os.stat(p).st_mode & (stat.S_IROTH | stat.S_IXOTH)) != (stat.S_IROTH | stat.S_IXOTH)]
    if closed:
        raise MissingResourceError(
            f"the desktop sandbox runs the server from {', '.join(closed)}, which other users cannot read; "
            "make them readable (chmod o+rX) or install gui-gym where they are")
