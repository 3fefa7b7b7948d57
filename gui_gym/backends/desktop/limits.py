"""What one desktop sandbox may use: processes, memory, and the size of each of its tmpfs.

Three layers, so a limit holds wherever the sandbox runs:

- tmpfs sizes (bubblewrap's ``--size``): a disk filler gets "No space left on device" at the
  limit of the folder it fills, and nothing reaches the host's disks;
- rlimits, set on the sandbox's first process and inherited by all of it: a per-uid process
  count (`user_processes_max`, so the agent's fork loop stops there and leaves room for our
  server, which runs as another uid), a data size per process, no core files;
- a cgroup per sandbox where this host lets us make one (cgroup v1 with the ``pids`` and
  ``memory`` controllers, or a cgroup v2 subtree we may enable them in): a ceiling on all of the
  sandbox's tasks (`pids_max`) and memory (`memory_mib`, tmpfs pages included), so the kernel
  stops the sandbox, not the host. Its folder sits under this process's own cgroup, is removed
  when the sandbox stops, and a folder left by a process that was killed is removed by the next
  sandbox started on the host.
"""

from __future__ import annotations

import logging
import os
import re
import resource
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path

from gui_gym.runtime.waiting import wait_until

log = logging.getLogger(__name__)

MIB = 1 << 20
GROUP_PREFIX = "gui-gym-sandbox-"
_GROUP_NAME = re.compile(rf"^{GROUP_PREFIX}(\d+)-[0-9a-f]+$")


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one sandbox. The defaults fit an OSWorld task (OSWorld's VM has 4 GiB of
    memory); raise them for heavier tasks."""

    memory_mib: int = 4096
    """All memory of the sandbox, tmpfs contents included (cgroup); also each process's data
    size (rlimit)."""
    pids_max: int = 2048
    """Tasks (processes and threads) of the whole sandbox (cgroup)."""
    user_processes_max: int = 1024
    """Tasks per uid inside (rlimit): the agent's uid stops here, and the root it gets with
    ``sudo`` at half of it (`root_processes_max`), together below `pids_max`."""
    home_mib: int = 1024
    root_mib: int = 256
    """The sudo root's home, ``/root``."""
    tmp_mib: int = 1024
    var_tmp_mib: int = 256
    shm_mib: int = 512
    run_mib: int = 8

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive integer, received {value!r}")
        agent = self.user_processes_max + root_processes_max(self.user_processes_max)
        if agent >= self.pids_max:
            raise ValueError(f"user_processes_max ({self.user_processes_max}) and half of it for the agent's root "
                             f"({agent}) must be below pids_max ({self.pids_max}), or the agent's processes leave "
                             "none for the server")

    def tmpfs_mib(self) -> dict[str, int]:
        """Folder inside the sandbox -> size of its tmpfs."""
        return {"/home": self.home_mib, "/tmp": self.tmp_mib, "/var/tmp": self.var_tmp_mib,
                "/dev/shm": self.shm_mib, "/run": self.run_mib, "/root": self.root_mib}

    def apply_rlimits(self, pid: int) -> None:
        """Set the rlimits on `pid` (the sandbox's first process, before it starts anything)."""
        for which, value in ((resource.RLIMIT_NPROC, self.user_processes_max),
                             (resource.RLIMIT_DATA, self.memory_mib * MIB), (resource.RLIMIT_CORE, 0)):
            resource.prlimit(pid, which, (value, value))


def root_processes_max(user_processes_max: int) -> int:
    """Tasks the root the agent gets with ``sudo`` may have: half the user's. They count against
    the server's uid too (the server makes their user namespace), so the server keeps the rest."""
    return max(1, user_processes_max // 2)


class Cgroup:
    """The sandbox's folder in each cgroup hierarchy that has the controllers we limit with."""

    def __init__(self, folders: list[Path]):
        self.folders = folders

    @classmethod
    def create(cls, limits: SandboxLimits) -> Cgroup:
        """A new group with `limits`; one without folders (rlimits only) where the host does not
        let us make one."""
        name = f"{GROUP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        folders: list[Path] = []
        try:
            for parent, settings in _places(limits):
                _remove_stale(parent)
                folder = parent / name
                folder.mkdir()
                folders.append(folder)
                for file, value in settings:
                    if (folder / file).exists():
                        (folder / file).write_text(str(value))
        except OSError as exc:
            log.info("no cgroup for the desktop sandbox (%s); its limits are rlimits and tmpfs sizes", exc)
            cls(folders).remove()
            return cls([])
        return cls(folders)

    def add(self, pid: int) -> None:
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(pid))

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            try:
                found.update(int(line) for line in (folder / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return found

    def remove(self, timeout_s: float = 5.0) -> None:
        """Kill whatever is still in the group, then remove its folders. Safe twice."""
        def emptied() -> bool:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            return not self.pids()
        if self.folders and not wait_until(emptied, timeout_s):
            log.warning("desktop sandbox processes %s outlived their sandbox", sorted(self.pids()))
        for folder in self.folders:
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("cannot remove the sandbox's cgroup %s: %s", folder, exc)
        self.folders = []


def _places(limits: SandboxLimits) -> list[tuple[Path, list[tuple[str, int]]]]:
    """(parent folder, settings) per hierarchy: this process's cgroup in the v1 ``pids`` and
    ``memory`` hierarchies, or in the v2 one when it can delegate both controllers."""
    memory = limits.memory_mib * MIB
    v1 = {"pids": [("pids.max", limits.pids_max)],
          "memory": [("memory.limit_in_bytes", memory), ("memory.memsw.limit_in_bytes", memory)]}
    mounts = _cgroup_mounts()
    own = _own_cgroups()
    places = [(mounts[controller] / own[controller].lstrip("/"), settings)
              for controller, settings in v1.items() if controller in mounts and controller in own]
    if len(places) == len(v1):
        return places
    if "" in mounts and "" in own:
        parent = mounts[""] / own[""].lstrip("/")
        if {"pids", "memory"} <= set((parent / "cgroup.controllers").read_text().split()):
            (parent / "cgroup.subtree_control").write_text("+pids +memory")  # fails where not delegated
            return [(parent, [("pids.max", limits.pids_max), ("memory.max", memory), ("memory.swap.max", 0)])]
    raise OSError("this host has no cgroup hierarchy with the pids and memory controllers for us")


def _cgroup_mounts() -> dict[str, Path]:
    """Controller -> mount point of its v1 hierarchy; "" -> the v2 mount."""
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        separator = fields.index("-")
        fstype, options = fields[separator + 1], fields[separator + 3].split(",")
        if fstype == "cgroup2":
            mounts.setdefault("", Path(fields[4]))
        elif fstype == "cgroup":
            for option in options:
                mounts.setdefault(option, Path(fields[4]))
    return mounts


def _own_cgroups() -> dict[str, str]:
    """Controller -> this process's cgroup path in it ("" for v2), from /proc/self/cgroup."""
    own: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    return own


def _remove_stale(parent: Path) -> None:
    """Remove sandbox groups under `parent` whose creating process is gone (it was killed
    before it could remove them); a group that still holds processes is left alone."""
    for folder in parent.glob(f"{GROUP_PREFIX}*"):
        match = _GROUP_NAME.match(folder.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            try:
                folder.rmdir()
                log.info("removed the stale sandbox cgroup %s", folder)
            except OSError:
                pass
