"""The first process of a desktop sandbox: it enters a user namespace whose ids the host maps,
becomes that namespace's root, and runs bubblewrap (`sandbox.py` starts it and writes the map).

Why a process of our own before bubblewrap: bubblewrap maps one id, the caller's, which for a
host running as root is host root itself; and a bubblewrap whose own id is not mapped cannot
create its mount points. So this process (still host root) first makes a private mount
namespace in which the folders the sandbox binds (the interpreter, the package) are reachable
for an unprivileged id: a folder under a host-private one (an interpreter in root's home) is bound again
onto a fresh tmpfs in its place, visible to this process only. Then it enters a new user
namespace, tells the host, waits for the host to write ``uid_map``/``gid_map`` (only a process
privileged outside the namespace may map several ids), takes the namespace's uid 0 (an
unprivileged host id) and execs bubblewrap, which now runs as that id.

The desktop's ``sudo`` (`sudo.py`) starts what the agent runs as root the same way, one level
down: the server starts this process as the sandbox's sudo id and maps uid 0 of the namespace
it enters to that id; the command runs as that root.

Run as a script, by path, with ``python -I -S``: it must not import the package (whose files
it is about to make reachable) and imports only the standard library.

    launcher.py READY_FD GO_FD PARENT_PID [--reach PATH]... -- COMMAND...

PARENT_PID is the process that starts it: the launcher, and what it runs after it, die with
that process however it ends (`die_with`). A command that cannot be run is one line on standard
error and exit status 127 (not found) or 126, as a shell has it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def blocking_ancestor(path: str) -> str | None:
    """The topmost folder above `path` that users other than its owner cannot pass through."""
    parts = path.strip("/").split("/")
    for depth in range(1, len(parts)):
        folder = "/" + "/".join(parts[:depth])
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def make_reachable(paths: list[str]) -> None:
    """In a private mount namespace, put every blocking folder above `paths` under a fresh tmpfs
    that holds only the way down to `paths`, each bound back from a descriptor opened before."""
    blocked = {path: blocking_ancestor(path) for path in paths}
    if not any(blocked.values()):
        return
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path, folder in blocked.items() if folder}
    for folder in sorted({folder for folder in blocked.values() if folder}):
        _check(_libc.mount(b"tmpfs", folder.encode(), b"tmpfs", 0, b"mode=0755,size=1m"), f"tmpfs on {folder}")
    for path, handle in handles.items():
        os.makedirs(path, mode=0o755, exist_ok=True)
        _check(_libc.mount(f"/proc/self/fd/{handle}".encode(), path.encode(), None, MS_BIND | MS_REC, None),
               f"binding {path}")
        os.close(handle)


def main(argv: list[str]) -> None:
    ready_fd, go_fd, parent = int(argv[0]), int(argv[1]), int(argv[2])
    rest = argv[3:]
    reach = []
    while rest and rest[0] == "--reach":
        reach.append(rest[1])
        rest = rest[2:]
    if not rest or rest[0] != "--":
        raise SystemExit("usage: launcher.py READY_FD GO_FD PARENT_PID [--reach PATH]... -- COMMAND...")
    command = rest[1:]
    make_reachable(reach)
    _check(_libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    os.write(ready_fd, b"u")
    os.close(ready_fd)
    if os.read(go_fd, 1) != b"g":  # the host gave up before mapping the ids
        raise SystemExit("the host did not map the sandbox's ids")
    os.close(go_fd)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    die_with(parent)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        raise SystemExit(127 if isinstance(exc, FileNotFoundError) else 126) from None


def die_with(parent: int) -> None:
    """Be killed when the host process that started us dies, from here on through the exec.

    Bubblewrap's ``--die-with-parent`` arms this only once bubblewrap runs: a host process
    killed between our start and then (a spare desktop booting in the background when the
    run gets ``kill -9``) left a whole session reparented to init, running for good. So it is
    armed here, after the id switch (a change of ids disarms it), and the parent is checked
    after arming: one that died before is seen as a parent that is no longer ours."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        raise SystemExit(f"the host process {parent} that started the sandbox is gone")


if __name__ == "__main__":
    main(sys.argv[1:])
