"""The desktop files the evaluator reads, writes and lists, opened so that nothing the agent
left in the home can steer them. Run by the server as ``user`` (`session.Session`), as a
script: ``python -I -S user_files.py OP PATH ...``, standard library only, so that no module
the agent planted is imported (the server imports it for its exit codes only).

Every folder of a path is opened from the one before it (``openat``) with ``O_NOFOLLOW``: a
symbolic link anywhere on the way is refused, never followed, and nothing can be swapped in
between a check and the use of what was checked, because the use is on the descriptor the
check looked at.

- ``read PATH MAX_BYTES``: the file's bytes on stdout; `TOO_BIG` when it holds more than
  MAX_BYTES, by its size (then nothing is read) or by what is read where it grows meanwhile
  (what was written before is then to be thrown away). The file
  is opened once, ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO opens at once instead of waiting for a
  writer), ``fstat``-ed, and read from that descriptor only if it is a regular file.
- ``write PATH MTIME`` (the data on stdin): the missing folders are made; the data goes to a
  new file in the folder, gets MTIME as its modification time, and is renamed over PATH. The
  file at PATH is replaced, never written through: a hard link's other names keep what they
  held. A link, folder, FIFO, socket or device at PATH, or anything but a folder on the way,
  is refused.
- ``check PATH``: whether PATH is a regular file or a folder (what the evaluator may open in
  an app).
- ``list PATH MAX_BYTES SECONDS``: OSWorld's ``list_directory`` tree as JSON; links are listed
  as files and never entered. A folder's entries are read one at a time (``scandir``: the kind
  of an entry from the folder itself, no ``stat``), and the listing stops with `TOO_BIG` as soon
  as it passes `MAX_ENTRIES` entries, `MAX_DEPTH` levels, MAX_BYTES of JSON or SECONDS: a home
  of millions of files costs what the bound allows, never the whole walk.

Exit status: 0 done; `MISSING` (the file or folder is not there, or is not what was asked
for); `IN_THE_WAY` (a write refused, the reason on stderr); `TOO_BIG` (a read or listing past
its bound, the reason on stderr); anything else is an error.
"""

import json
import os
import secrets
import stat
import sys
import time

MISSING = 3
IN_THE_WAY = 4
TOO_BIG = 5
CHUNK = 1 << 20
MAX_ENTRIES = 100_000
MAX_DEPTH = 64
FOLDER_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class InTheWay(Exception):
    """Something the evaluator may not go through or replace sits where it goes."""


class TooBig(Exception):
    """A file or a listing past the bound it was asked for."""


def kind(mode):
    """What a file of this mode is, in words."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "an unknown kind of file"


def parts(path):
    """The names of an absolute path, ``.`` and ``..`` resolved by name (no link is ever followed,
    so resolving them by name is what walking them would do)."""
    if not path.startswith("/"):
        raise ValueError(f"expected an absolute path, received {path!r}")
    names = [name for name in os.path.normpath(path).split("/") if name]
    if not names:
        raise ValueError("the root folder is not a file")
    return names


def open_folder(names, create, flags=os.O_PATH):
    """A descriptor of the folder `names` lead to from ``/``, each opened from the one before
    without following links; missing ones made when `create`. FileNotFoundError when one is
    missing, InTheWay when one is not a folder."""
    fd = os.open("/", flags | FOLDER_FLAGS)
    try:
        for depth, name in enumerate(names):
            try:
                child = os.open(name, flags | FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile: opened below like any other
                child = os.open(name, flags | FOLDER_FLAGS, dir_fd=fd)
            except PermissionError:
                raise
            except OSError as exc:  # ELOOP or ENOTDIR: a link or a file where a folder goes
                found = kind(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
                raise InTheWay(f"/{'/'.join(names[:depth + 1])} is {found}, where a folder goes") from exc
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def read(path, max_bytes):
    names = parts(path)
    try:
        folder = open_folder(names[:-1], create=False)
    except (FileNotFoundError, PermissionError, InTheWay):
        return MISSING
    try:
        fd = os.open(names[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                     dir_fd=folder)
    except OSError:  # missing, a link (ELOOP), a socket (ENXIO), not the user's to read
        return MISSING
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as source:
        found = os.fstat(source.fileno())
        if not stat.S_ISREG(found.st_mode):
            return MISSING
        if found.st_size > max_bytes:
            raise TooBig(f"{path} is {found.st_size} bytes, over the {max_bytes} bytes allowed")
        left = max_bytes + 1  # one byte more tells a file that grew while it was read
        while left > 0:
            chunk = source.read(min(CHUNK, left))
            if not chunk:
                return 0
            left -= len(chunk)
            if left > 0:
                sys.stdout.buffer.write(chunk)
    raise TooBig(f"{path} is over the {max_bytes} bytes allowed")


def write(path, mtime):
    names = parts(path)
    folder = open_folder(names[:-1], create=True)
    try:
        name = names[-1]
        try:
            found = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        except FileNotFoundError:
            found = None
        if found is not None and not stat.S_ISREG(found):
            raise InTheWay(f"{path} is {kind(found)}, where the file goes")
        temporary = f".gui-gym-write-{secrets.token_hex(8)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as target:
                while chunk := sys.stdin.buffer.read(CHUNK):
                    target.write(chunk)
                target.flush()
                os.utime(target.fileno(), (mtime, mtime))
            try:
                os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
            except IsADirectoryError as exc:  # a folder put there since the check
                raise InTheWay(f"{path} is a folder, where the file goes") from exc
        except BaseException:
            os.unlink(temporary, dir_fd=folder)
            raise
    finally:
        os.close(folder)
    return 0


def check(path):
    names = parts(path)
    try:
        folder = open_folder(names[:-1], create=False)
    except (FileNotFoundError, PermissionError, InTheWay):
        return MISSING
    try:
        mode = os.stat(names[-1], dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return MISSING
    finally:
        os.close(folder)
    return 0 if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else MISSING


def listing(path, max_bytes, seconds):
    """OSWorld's tree of `path`: ``{name, type, children}``, folders sorted by name, within the
    bounds the module docstring names (TooBig past one)."""
    names = parts(path)
    try:
        root = open_folder(names, create=False, flags=os.O_RDONLY)
    except (FileNotFoundError, InTheWay, PermissionError):
        return MISSING
    deadline = time.monotonic() + seconds
    spent = {"entries": 0, "bytes": 0}

    def count(name):
        spent["entries"] += 1
        spent["bytes"] += len(json.dumps(name)) + 40  # the node around the name, at most
        if spent["entries"] > MAX_ENTRIES:
            raise TooBig(f"{path} holds more than {MAX_ENTRIES} entries")
        if spent["bytes"] > max_bytes:
            raise TooBig(f"the listing of {path} is over the {max_bytes} bytes allowed")
        if time.monotonic() > deadline:
            raise TooBig(f"the listing of {path} took over {seconds:g} s")

    def tree(fd, name, depth):
        node = {"name": name, "type": "directory", "children": []}
        try:
            with os.scandir(fd) as entries:
                found = []
                for entry in entries:
                    count(entry.name)
                    found.append((entry.name, entry.is_dir(follow_symlinks=False)))
            for entry, is_dir in sorted(found):
                if not is_dir:
                    node["children"].append({"name": entry, "type": "file"})
                    continue
                if depth >= MAX_DEPTH:
                    raise TooBig(f"{path} is more than {MAX_DEPTH} folders deep")
                try:
                    child = os.open(entry, os.O_RDONLY | FOLDER_FLAGS, dir_fd=fd)
                except OSError:  # replaced meanwhile, or not the user's to read
                    node["children"].append({"name": entry, "type": "file"})
                    continue
                node["children"].append(tree(child, entry, depth + 1))
        finally:
            os.close(fd)
        return node
    sys.stdout.write(json.dumps(tree(root, names[-1], 0)))
    return 0


def main(argv):
    op, path, *rest = argv
    try:
        if op == "read":
            return read(path, int(rest[0]))
        if op == "write":
            return write(path, int(rest[0]))
        if op == "check":
            return check(path)
        if op == "list":
            return listing(path, int(rest[0]), float(rest[1]))
    except InTheWay as exc:
        sys.stderr.write(f"{exc}\n")
        return IN_THE_WAY
    except TooBig as exc:
        sys.stderr.write(f"{exc}\n")
        return TOO_BIG
    raise SystemExit(f"unknown operation {op!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
