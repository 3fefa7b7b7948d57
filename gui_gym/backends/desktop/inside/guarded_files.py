"""The files the evaluation puts on the desktop, out of reach of what the agent left running.

OSWorld's postconfig downloads checker scripts and the gold files they read into the agent's
home (``~/eval.sh``, ``~/Desktop/script.py``) and runs them there, as ``user``. A process of
the agent's that outlived the freeze (`agent_processes`: one inside an app the evaluation
needs) could rewrite such a file between its download and its run, or put its own file at
its name. So, once the evaluation has begun, each file it writes is made the server's:

- its content: after the user's own write (which makes its folders and checks, as the user,
  that it may be written there: `user_files`), the server puts a copy of its own over it,
  owned by the sandbox's root, mode 0755 (readable and runnable, as the tasks' ``chmod +x``
  makes it; that ``chmod`` itself now fails, and nothing needs it to succeed). Neither
  ``user`` nor sudo's root may write, truncate or change it;
- its name: the folders on its path, from ``/``, are watched (inotify) from the moment the
  copy is in place until the evaluation ends. Anything that removes, renames or replaces the
  file or one of those folders shows there, and the evaluation then scores 0
  (`GuardedFiles.replaced`). The kernel queues every such event, so no swap and swap back
  goes unseen; a queue that overflowed counts as a replacement.

The copy is written through no link: the folders are opened one from the other with
``O_NOFOLLOW`` as the user's own write opens them, and checked again once the copy is in
place (the same folders, the copy at its name).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import struct
import threading
from pathlib import Path

from gui_gym.backends.desktop.inside.user_files import FOLDER_FLAGS, InTheWay, kind, parts

IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED = 0x4000, 0x8000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
WATCHED = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
"""A name made, removed or moved in a watched folder, or the folder itself removed or moved."""
EVENT = struct.Struct("iIII")
MODE = 0o755
MAX_EVENT_READS = 64
"""Reads of the event queue per look (64 KiB each: more than the kernel's default queue of
16,384 events holds). A look still reading past it is racing a flood of changes in the watched
folders, which only a process of the agent's makes: it counts as an overflow (every guarded
file replaced), so no process of the agent's can hold the evaluation in the loop."""


class GuardedFiles:
    """The files of one evaluation: written as the server's, their names watched."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._lock = threading.Lock()
        self._inotify = -1
        self._names: dict[int, set[str]] = {}
        """Watch -> the names in its folder that lead to a guarded file."""
        self._paths: dict[tuple[int, str], set[str]] = {}
        """(watch, name) -> the guarded files whose path goes through it."""
        self._replaced: set[str] = set()

    def reset(self) -> None:
        """Forget every file and watch (a new evaluation begins)."""
        with self._lock:
            if self._inotify >= 0:
                os.close(self._inotify)
            self._inotify = -1
            self._names, self._paths, self._replaced = {}, {}, set()

    def place(self, path: str, data: bytes, mtime_s: int) -> None:
        """Put `data` at `path` as the server's file (mode `MODE`, modified at `mtime_s`) and watch
        its name. InTheWay when something on the path is not a folder, or when the path no longer
        leads to the copy once it is in place."""
        names = parts(path)
        with self._lock:
            self._drain()  # what happened before this write counts
            folders = self._open_path(names[:-1])
            try:
                watches = [self._watch(fd) for fd in folders]
                inode = self._write(folders[-1], names[-1], data, mtime_s)
                self._discard()  # this write's own events
                self._check(names, folders, inode)
                for watch, name in zip(watches, names):
                    self._names.setdefault(watch, set()).add(name)
                    self._paths.setdefault((watch, name), set()).add(path)
            finally:
                for fd in folders:
                    os.close(fd)

    def replaced(self) -> list[str]:
        """The guarded files whose name was removed, moved or replaced since it was written."""
        with self._lock:
            self._drain()
            return sorted(self._replaced)

    # ---- internals --------------------------------------------------------------------------

    def _open_path(self, names: list[str]) -> list[int]:
        """Descriptors of ``/`` and each folder of `names`, opened one from the other."""
        folders = [os.open("/", os.O_PATH | FOLDER_FLAGS)]
        try:
            for depth, name in enumerate(names):
                try:
                    folders.append(os.open(name, os.O_PATH | FOLDER_FLAGS, dir_fd=folders[-1]))
                except OSError as exc:
                    found = kind(os.stat(name, dir_fd=folders[-1], follow_symlinks=False).st_mode)
                    raise InTheWay(f"/{'/'.join(names[:depth + 1])} is {found}, where a folder goes") from exc
        except BaseException:
            for fd in folders:
                os.close(fd)
            raise
        return folders

    def _watch(self, folder: int) -> int:
        if self._inotify < 0:
            self._inotify = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if self._inotify < 0:
                raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        watch = self._libc.inotify_add_watch(self._inotify, f"/proc/self/fd/{folder}".encode(), WATCHED)
        if watch < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch failed")
        return watch

    @staticmethod
    def _write(folder: int, name: str, data: bytes, mtime_s: int) -> tuple[int, int]:
        """The copy, as a new file renamed over `name`; its (device, inode)."""
        temporary = f".gui-gym-evaluation-{secrets.token_hex(8)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, MODE, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as target:
                target.write(data)
                target.flush()
                os.fchmod(target.fileno(), MODE)
                os.utime(target.fileno(), (mtime_s, mtime_s))
                found = os.fstat(target.fileno())
            os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=folder)
            except FileNotFoundError:
                pass
            raise
        return found.st_dev, found.st_ino

    def _check(self, names: list[str], folders: list[int], inode: tuple[int, int]) -> None:
        """The path, walked again, leads through the watched folders to the copy."""
        again = self._open_path(names[:-1])
        try:
            for held, now in zip(folders, again):
                a, b = os.fstat(held), os.fstat(now)
                if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                    raise InTheWay(f"a folder on the way to /{'/'.join(names)} was replaced while it was written")
            found = os.stat(names[-1], dir_fd=again[-1], follow_symlinks=False)
            if (found.st_dev, found.st_ino) != inode:
                raise InTheWay(f"/{'/'.join(names)} was replaced while it was written")
        finally:
            for fd in again:
                os.close(fd)

    def _events(self):
        """The queued events: (watch, mask, name); an overflow after `MAX_EVENT_READS` reads."""
        if self._inotify < 0:
            return
        for _ in range(MAX_EVENT_READS):
            try:
                data = os.read(self._inotify, 1 << 16)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                watch, mask, _, size = EVENT.unpack_from(data, offset)
                name = data[offset + EVENT.size:offset + EVENT.size + size].rstrip(b"\0").decode(errors="surrogateescape")
                offset += EVENT.size + size
                yield watch, mask, name
        yield -1, IN_Q_OVERFLOW, ""

    def _discard(self) -> None:
        for _ in self._events():
            pass

    def _drain(self) -> None:
        """Mark the guarded files the queued events touch."""
        for watch, mask, name in self._events():
            if mask & IN_Q_OVERFLOW:
                self._replaced.update(p for paths in self._paths.values() for p in paths)
            elif mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED):
                self._replaced.update(p for (w, _), paths in self._paths.items() if w == watch for p in paths)
            elif name in self._names.get(watch, ()):
                self._replaced.update(self._paths[(watch, name)])
