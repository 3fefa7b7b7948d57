"""Who is who in a desktop sandbox, and which host ids they are.

Five ids are mapped in each sandbox's user namespace, each to an unprivileged host id that
owns nothing on the host and belongs to this sandbox alone:

| inside | runs | why apart |
|---|---|---|
| 0 (``root``) | our server, which holds the evaluator's socket and token | the agent's uids cannot reach either, signal it or read its memory |
| 997 (``root`` too) | what the agent runs with ``sudo``: uid 0 of a user namespace of its own (`sudo.py`) | the agent's root is not the server's |
| 998 (``gui-gym-eval``) | the evaluator's own Python runs that must hold out against the agent's processes (a task's test suite, `evaluator_runs.py`) | the agent's uids (its sudo root included) cannot write their folder, trace them or open their descriptors |
| 999 (``gui-gym-display``) | Xvfb | the agent cannot end the display the evaluator observes |
| 1000 (``user``) | everything the agent touches: apps, terminals, the window manager, the session bus, OSWorld's setup and getter commands | as in OSWorld's VM, where they run as ``user`` |

The namespace's root has only the capabilities the server needs to start processes as
``user`` and manage its files (`SERVER_CAPABILITIES`), and only over these ids: host files keep
their host owners, so host permissions hold inside (``/etc/shadow`` is unreadable). The sudo
root is named ``root`` as well, after the uid it has in its own namespace: what it makes in the
user's home lists as root's, as on the VM.
"""

from __future__ import annotations

from pathlib import Path

ROOT_ID = 0
SUDO_ID = 997
"""The sandbox's id of the root the agent gets with ``sudo`` (uid 0 in the namespace ``sudo`` makes)."""
EVALUATOR_ID = 998
DISPLAY_ID = 999
USER_ID = 1000
HOME = "/home/user"
ROOT_HOME = "/root"
USER_PASSWORD = "password"
"""``user``'s password on OSWorld's VM, which ``sudo`` asks for (OSWorld's tasks type it)."""
ACCOUNTS = {ROOT_ID: ("root", ROOT_HOME, "/usr/sbin/nologin"),
            SUDO_ID: ("root", ROOT_HOME, "/bin/bash"),
            EVALUATOR_ID: ("gui-gym-eval", "/nonexistent", "/usr/sbin/nologin"),
            DISPLAY_ID: ("gui-gym-display", "/nonexistent", "/usr/sbin/nologin"),
            USER_ID: ("user", HOME, "/bin/bash")}
"""uid (= gid) inside -> (name, home, shell)."""
HOST_ID_BASE = 1 << 30
IDS_PER_SANDBOX = 8
"""Host ids each sandbox holds (room for the five mapped and three more): PIDs stay below 2**22, so
the highest id stays below 2**31."""
"""Host ids of sandboxes start here (far above any account's, below 2**31): sandbox ``n`` gets
``HOST_ID_BASE + IDS_PER_SANDBOX * n`` + 0 to 4, where ``n`` is the host PID of its first process, unique
among running sandboxes."""
SERVER_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL")
"""Start processes as ``user``, hand it its home, read and write its files for the evaluator,
stop its processes. No CAP_SYS_ADMIN (mounts), CAP_NET_*, CAP_SYS_PTRACE."""


def host_ids(slot: int) -> dict[int, int]:
    """Inside id -> host id for the sandbox whose first process has host PID `slot`."""
    return {inside: HOST_ID_BASE + IDS_PER_SANDBOX * slot + index for index, inside in enumerate(sorted(ACCOUNTS))}


def id_map(slot: int) -> str:
    """The ``uid_map`` (and ``gid_map``) text of that sandbox's user namespace."""
    return "".join(f"{inside} {host} 1\n" for inside, host in host_ids(slot).items())


def account_files() -> dict[str, str]:
    """``/etc/passwd`` and ``/etc/group`` for inside: the host's, less any entry that would
    share a name or id with ours, plus ours."""
    names, ids = {name for name, _, _ in ACCOUNTS.values()}, {str(uid) for uid in ACCOUNTS}
    files = {}
    for name in ("passwd", "group"):
        kept = [entry for entry in Path("/etc", name).read_text().splitlines()
                if len(fields := entry.split(":")) > 2 and fields[0] not in names and fields[2] not in ids]
        added = [f"{account}:x:{uid}:{uid}:{account}:{home}:{shell}" if name == "passwd" else f"{account}:x:{uid}:"
                 for uid, (account, home, shell) in ACCOUNTS.items()]
        files[name] = "\n".join([*added, *kept]) + "\n"
    return files
