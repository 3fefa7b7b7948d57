"""The desktop files the evaluator reads, writes and lists, opened so that nothing the agent
left in the home can steer them. Run by the server as ``user`` (`session.Session`), as a
script: ``python -I -S user_files.py OP PATH ...``, standard library only, so that no module
the agent planted is imported (the server imports it for its exit codes only).

Every folder of a path is opened from the one before it (``openat``) with ``O_NOFOLLOW``: a
symbolic link anywhere on the way is refused, never followed, and nothing can be swapped in
between a check and the use of what was checked, because the use is on the descriptor the
check looked at.

- ``read PATH MAX_BYTES``: the file's bytes (at most MAX_BYTES) on stdout. The file is opened
  once, ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer),
  ``fstat``-ed, and read from that descriptor only if it is a regular file.
- ``write PATH MTIME`` (the data on stdin): the missing folders are made; the data goes to a
  new file in the folder, gets MTIME as its modification time, and is renamed over PATH. The
  file at PATH is replaced, never written through: a hard link's other names keep what they
  held. A link, folder, FIFO, socket or device at PATH, or anything but a folder on the way,
  is refused.
- ``check PATH``: whether PATH is a regular file or a folder (what the evaluator may open in
  an app).
- ``list PATH``: OSWorld's ``list_directory`` tree as JSON; links are listed as files and
  never entered; at most `MAX_ENTRIES` entries and `MAX_DEPTH` levels.

Exit status: 0 done; `MISSING` (the file or folder is not there, or is not what was asked
for); `IN_THE_WAY` (a write refused, the reason on stderr); anything else is an error.
"""

import json
import os
import secrets
import stat
import sys

MISSING = 3
IN_THE_WAY = 4
CHUNK = 1 << 20
MAX_ENTRIES = 100_000
MAX_DEPTH = 64
FOLDER_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class InTheWay(Exception):
    """Something the evaluator may not go through or replace sits where it goes."""


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
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            return MISSING
        left = max_bytes
        while left > 0:
            chunk = source.read(min(CHUNK, left))
            if not chunk:
                break
            sys.stdout.buffer.write(chunk)
            left -= len(chunk)
    return 0


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


def listing(path):
    """OSWorld's tree of `path`: ``{name, type, children}``, folders sorted by name."""
    names = parts(path)
    try:
        root = open_folder(names, create=False, flags=os.O_RDONLY)
    except (FileNotFoundError, InTheWay, PermissionError):
        return MISSING
    count = [0]

    def tree(fd, name, depth):
        node = {"name": name, "type": "directory", "children": []}
        try:
            entries = sorted(os.listdir(fd))
            for entry in entries:
                count[0] += 1
                if count[0] > MAX_ENTRIES:
                    raise OverflowError(f"{path} holds more than {MAX_ENTRIES} entries")
                mode = os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode
                if stat.S_ISDIR(mode) and depth < MAX_DEPTH:
                    try:
                        child = os.open(entry, os.O_RDONLY | FOLDER_FLAGS, dir_fd=fd)
                    except OSError:  # replaced meanwhile, or not the user's to read
                        node["children"].append({"name": entry, "type": "file"})
                        continue
                    node["children"].append(tree(child, entry, depth + 1))
                else:
                    node["children"].append({"name": entry, "type": "directory" if stat.S_ISDIR(mode) else "file"})
        finally:
            os.close(fd)
        return node
    try:
        result = tree(root, names[-1], 0)
    except OverflowError as exc:
        sys.stderr.write(f"{exc}\n")
        return MISSING
    sys.stdout.write(json.dumps(result))
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
            return listing(path)
    except InTheWay as exc:
        sys.stderr.write(f"{exc}\n")
        return IN_THE_WAY
    raise SystemExit(f"unknown operation {op!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
