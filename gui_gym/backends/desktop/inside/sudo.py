"""The desktop's sudo service: ``user`` becomes root as on OSWorld's VM, and that root is the
sandbox's only.

On the VM ``user`` is a sudoer with the password "password". In the sandbox nothing can raise
its own privileges (``no_new_privs``), so the ``sudo`` the agent runs (`sudo_command.py`) asks
this service, which runs in our server, on a Unix socket any process of the desktop may reach.
The service checks the caller's password (three tries, then a ticket for 15 minutes per terminal,
as Ubuntu's sudo), then runs the command as root: uid 0 of a user namespace of its own, which
the launcher enters (`launcher.py`, as the sandbox itself is entered) and whose uid 0 is the
sandbox's sudo id, 997 (`accounts.SUDO_ID`), and whose 1000 is ``user``. So that root:

- has every capability over ``user``'s files (it reads, writes and chowns in the home, as on
  the VM), and none over anything else: files of the server (its socket folder), the display
  and the host have owners its namespace does not map, so only their permissions for others
  hold; host folders stay read-only (the mounts are the sandbox's, locked);
- is not the server's uid: it cannot signal or trace the server, read its memory or its
  ``/proc`` files, or enter its socket folder. The server makes its namespace (only the
  namespace's owner may map several ids into it), so its tasks also count against the server's
  uid: it may have half as many as ``user`` (`limits.root_processes_max`), and the server keeps
  the rest;
- cannot signal or trace ``user``'s processes either (they belong to the sandbox's namespace,
  where it holds no capability): ``sudo kill`` of the agent's own apps fails, a difference from
  the VM (without ``sudo`` it works).

The command gets the caller's standard streams and folder (descriptors the caller passes, so
only what it could open), sudo's environment (``env_reset``: a few variables kept, ``PATH`` the
secure path, ``HOME=/root``, ``SUDO_USER``...), and its own session: the terminal's signals
reach it through the caller, which relays them. It has no controlling terminal (Ubuntu's sudo
gives it a new pseudo-terminal): what needs one (``/dev/tty``, job control) does not work.
"""

from __future__ import annotations

import array
import hmac
import json
import logging
import os
import resource
import shlex
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from gui_gym.backends.desktop import launcher
from gui_gym.backends.desktop.accounts import ACCOUNTS, ROOT_HOME, SUDO_ID, USER_ID, USER_PASSWORD
from gui_gym.backends.desktop.limits import root_processes_max
from gui_gym.backends.desktop.inside.sudo_command import SOCKET

log = logging.getLogger(__name__)

LAUNCHER = Path(launcher.__file__)
SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin"
"""Ubuntu's ``secure_path``: the PATH of what sudo runs."""
TICKET_S = 15 * 60
"""How long a right password holds for the same terminal (sudo's ``timestamp_timeout``)."""
TRIES = 3
PASSWORD_TIMEOUT_S = 300.0
"""How long the service waits for a password (sudo's ``passwd_timeout``: 5 minutes)."""
MAX_SESSIONS = 16
"""sudo commands at once: each holds one of the server's threads."""
MAX_REQUEST_BYTES = 1 << 20
DESCRIPTORS = 4
"""What the caller passes: standard input, output, error, and its folder."""
KEPT_VARIABLES = frozenset({"COLORS", "DISPLAY", "HOSTNAME", "HISTSIZE", "KDEDIR", "LS_COLORS", "PS1", "PS2", "QTDIR",
                            "USERNAME", "LANG", "LANGUAGE", "LINGUAS", "_XKB_CHARSET", "XAUTHORITY", "TERM",
                            "COLORTERM"})
"""sudo's ``env_keep`` (and ``TERM``), besides ``LC_*``."""
RELAYED = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2})
START_TIMEOUT_S = 30.0
LISTING = """Matching Defaults entries for user on osworld:
    env_reset, mail_badpass, secure_path={path}, use_pty

User user may run the following commands on osworld:
    (ALL : ALL) ALL"""


class SudoService:
    """The service, on `SOCKET`; `shims` is the desktop's folder of stand-in commands, put
    before the secure path (``sudo python`` finds the same Python as the user)."""

    def __init__(self, shims: Path):
        self.path = f"{shims}:{SECURE_PATH}"
        self.tickets: dict[tuple, float] = {}
        self.lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(MAX_SESSIONS)
        self._server: socketserver.UnixStreamServer | None = None

    def start(self) -> None:
        """Listen (a folder only the server may change, a socket anyone inside may use) and give
        root its home."""
        folder = Path(SOCKET).parent
        folder.mkdir(mode=0o755, exist_ok=True)
        os.chmod(folder, 0o755)
        if os.path.isdir(ROOT_HOME):
            os.chown(ROOT_HOME, SUDO_ID, SUDO_ID)
        service = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                service.serve(self.request)

        self._server = _Server(SOCKET, Handler)
        os.chmod(SOCKET, 0o666)
        threading.Thread(target=self._server.serve_forever, daemon=True, name="sudo").start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # ---- one caller ------------------------------------------------------------------------

    def serve(self, connection: socket.socket) -> None:
        channel = _Channel(connection)
        if not self.slots.acquire(blocking=False):
            channel.send({"say": "sudo: too many sudo commands at once", "exit": 1})
            return
        fds: list[int] = []
        try:
            pid, uid, _ = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            connection.settimeout(PASSWORD_TIMEOUT_S)
            request, fds = channel.request()
            if uid != USER_ID:
                channel.send({"say": "sudo: only user may use sudo on this desktop", "exit": 1})
            else:
                self._answer(channel, request, fds, _ticket_key(pid))
        except (OSError, ValueError, KeyError, TypeError) as exc:  # a broken or hostile caller: it gets nothing
            log.info("sudo: a request failed: %s", exc)
        finally:
            for fd in fds:
                os.close(fd)
            self.slots.release()

    def _answer(self, channel: _Channel, request: dict, fds: list[int], key: tuple) -> None:
        op, options, command, env = request["op"], request["options"], request["command"], request["env"]
        if not (isinstance(options, dict) and isinstance(env, dict) and isinstance(command, list)
                and all(isinstance(word, str) for word in command)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise ValueError("malformed request")
        if op == "forget":
            with self.lock:
                self.tickets.pop(key, None)
            channel.send({"exit": 0})
            return
        if op not in ("validate", "list", "run") or len(fds) != DESCRIPTORS:
            raise ValueError(f"unknown request {op!r}")
        if op == "run" and not (command or options.get("login") or options.get("shell")):
            raise ValueError("nothing to run")
        if not self._authenticate(channel, key, use_ticket=not options.get("reset_timestamp")):
            return
        if op == "validate":
            channel.send({"exit": 0})
        elif op == "list":
            channel.send({"print": LISTING.format(path=SECURE_PATH.replace(":", "\\:")), "exit": 0})
        else:
            self._run(channel, options, command, env, fds)

    def _authenticate(self, channel: _Channel, key: tuple, use_ticket: bool) -> bool:
        """The caller's right password, or its terminal's ticket; False once it has failed."""
        with self.lock:
            if use_ticket and self.tickets.get(key, 0.0) > time.monotonic():
                return True
        for attempt in range(1, TRIES + 1):
            channel.send({"auth": "needed"})
            answer = channel.message()
            if answer is None:
                return False
            password = answer.get("password")
            if isinstance(password, str) and hmac.compare_digest(password.encode(), USER_PASSWORD.encode()):
                if use_ticket:  # sudo -k COMMAND neither reads nor renews the ticket
                    with self.lock:
                        self.tickets[key] = time.monotonic() + TICKET_S
                return True
            if attempt < TRIES:
                channel.send({"say": "Sorry, try again."})
        channel.send({"say": f"sudo: {TRIES} incorrect password attempts", "exit": 1})
        return False

    def _run(self, channel: _Channel, options: dict, command: list[str], env: dict[str, str],
             fds: list[int]) -> None:
        target = options.get("user", "root")
        if target not in ("root", "#0", "user", f"#{USER_ID}"):
            channel.send({"say": f"sudo: unknown user {target}", "exit": 1})
            return
        as_root = target in ("root", "#0")
        shell = ACCOUNTS[SUDO_ID][2] if as_root else ACCOUNTS[USER_ID][2]
        if options.get("login") or options.get("shell"):
            command = [shell, *(["-l"] if options.get("login") else []),
                       *(["-c", shlex.join(command)] if command else [])]
        if "/" not in command[0] and shutil.which(command[0], path=self.path) is None:
            channel.send({"say": f"sudo: {command[0]}: command not found", "exit": 1})
            return
        folder = ROOT_HOME if options.get("login") and as_root else f"/proc/self/fd/{fds[3]}"
        try:
            proc = self._start(command, self._environment(env, options, command, as_root), fds, folder, as_root)
        except (OSError, RuntimeError) as exc:
            log.warning("sudo: cannot start %s: %s", command[0], exc)
            channel.send({"say": f"sudo: unable to execute {command[0]}: {exc}", "exit": 1})
            return
        channel.send({"started": True})
        channel.connection.settimeout(None)
        threading.Thread(target=_relay_signals, args=(channel, proc), daemon=True).start()
        code = proc.wait()
        channel.send({"exit": code} if code >= 0 else {"exit": 128 - code, "signal": -code})

    def _environment(self, env: dict[str, str], options: dict, command: list[str], as_root: bool) -> dict[str, str]:
        """sudo's: ``env_reset`` (or all with ``-E``), then the target's own variables."""
        kept = dict(env) if options.get("preserve_env") else {
            k: v for k, v in env.items() if k in KEPT_VARIABLES or k.startswith("LC_")}
        name, home, shell = ACCOUNTS[SUDO_ID if as_root else USER_ID]
        return {**kept, "PATH": self.path, "HOME": home, "SHELL": shell, "USER": name, "LOGNAME": name,
                "MAIL": f"/var/mail/{name}", "SUDO_COMMAND": shlex.join(command)[:4096], "SUDO_USER": "user",
                "SUDO_UID": str(USER_ID), "SUDO_GID": str(USER_ID)}

    def _start(self, command: list[str], env: dict[str, str], fds: list[int], folder: str,
               as_root: bool) -> subprocess.Popen:
        """The command, in a session of its own, with the caller's streams and folder; as root,
        through the launcher, which makes a user namespace (this process's uid owns it, so it may
        map the namespace's ids: 0 to the sudo id, 1000 to ``user``) and becomes its 0. Its tasks
        count against this process's uid too: it may have `root_processes_max` of them."""
        streams = {"stdin": fds[0], "stdout": fds[1], "stderr": fds[2], "cwd": folder, "env": env,
                   "start_new_session": True}
        if not as_root:
            return subprocess.Popen(command, user=USER_ID, group=USER_ID, extra_groups=[], **streams)
        ready, ready_w = os.pipe()
        go_r, go = os.pipe()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(LAUNCHER), str(ready_w), str(go_r), str(os.getpid()), "--", *command],
                pass_fds=(ready_w, go_r), **streams)
            os.close(ready_w)
            os.close(go_r)
            ready_w = go_r = -1
            if not _read_byte(ready, START_TIMEOUT_S):
                proc.kill()
                proc.wait()
                raise RuntimeError("its namespace was not made")
            ours = resource.getrlimit(resource.RLIMIT_NPROC)[0]
            if ours != resource.RLIM_INFINITY:
                tasks = root_processes_max(ours)
                resource.prlimit(proc.pid, resource.RLIMIT_NPROC, (tasks, tasks))
            mapping = f"0 {SUDO_ID} 1\n{USER_ID} {USER_ID} 1\n"
            for name in ("uid_map", "gid_map"):
                Path(f"/proc/{proc.pid}/{name}").write_text(mapping)
            os.write(go, b"g")
            return proc
        finally:
            for fd in (ready, ready_w, go_r, go):
                if fd >= 0:
                    os.close(fd)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _Channel:
    """One caller's connection: JSON messages, one a line, in both directions."""

    def __init__(self, connection: socket.socket):
        self.connection = connection
        self.buffer = b""

    def send(self, message: dict) -> None:
        try:
            self.connection.sendall(json.dumps(message).encode() + b"\n")
        except OSError:
            pass  # the caller is gone

    def request(self) -> tuple[dict, list[int]]:
        """The first message and the descriptors that came with it (any beyond `DESCRIPTORS`
        the kernel closes: there is no room to pass them)."""
        fds: list[int] = []
        try:
            while b"\n" not in self.buffer:
                chunk, ancillary, _, _ = self.connection.recvmsg(65536, socket.CMSG_SPACE(DESCRIPTORS * 4))
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds += array.array("i", payload[:len(payload) - len(payload) % 4])
                self._take(chunk)
            return self._parse(), fds
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise

    def message(self) -> dict | None:
        """The caller's next message; None once it has closed, timed out or sent no message."""
        try:
            while b"\n" not in self.buffer:
                self._take(self.connection.recv(65536))
            return self._parse()
        except (OSError, ValueError):
            return None

    def _take(self, chunk: bytes) -> None:
        if not chunk or len(self.buffer) + len(chunk) > MAX_REQUEST_BYTES:
            raise ValueError("no complete message")
        self.buffer += chunk

    def _parse(self) -> dict:
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ValueError("a message is a JSON object")
        return message


def _relay_signals(channel: _Channel, proc: subprocess.Popen) -> None:
    """Pass the signals the caller relays to the command's process group, until it goes."""
    while (message := channel.message()) is not None:
        number = message.get("signal")
        if number in RELAYED and proc.poll() is None:
            try:
                os.killpg(proc.pid, number)
            except OSError:
                pass  # the command has ended


def _read_byte(fd: int, timeout_s: float) -> bytes:
    import select

    if not select.select([fd], [], [], timeout_s)[0]:
        return b""
    return os.read(fd, 1)


def _ticket_key(pid: int) -> tuple:
    """What a right password holds for, as sudo's tickets: the caller's terminal and session,
    or without a terminal its parent process."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    ppid, session, tty = int(fields[1]), int(fields[3]), int(fields[4])
    return ("tty", tty, session) if tty else ("parent", ppid)
