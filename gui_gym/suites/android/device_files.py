"""Files on the device as AndroidWorld's tasks create, list and check them.

Files go over adb sync (push, pull, STAT, LIST); bulk deletions and copies run on the device
(``rm``, ``find -delete``, ``cp -a``). A file created with text gets a trailing newline, as
AndroidWorld's ``echo 'text' > file`` gives it, since some checks count on it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

STORAGE = "/storage/emulated/0"
"""Shared storage: the "sdk_gphone_x86_64 storage area" AndroidWorld's goals name."""
DOWNLOAD = f"{STORAGE}/Download"
DOCUMENTS = f"{STORAGE}/Documents"
MARKOR = f"{STORAGE}/Documents/Markor"
GALLERY = "/sdcard/DCIM"
PICTURES = "/sdcard/Pictures"
MOVIES = "/sdcard/Movies"
MUSIC = "/sdcard/Music"
AUDIO_RECORDINGS = f"{STORAGE}/Android/data/com.dimowner.audiorecorder/files/Music/records"


@dataclass(frozen=True)
class FileInfo:
    """A regular file with what AndroidWorld's listings keep of it."""

    name: str
    path: str
    size: int
    mtime_s: int


class FileOps:
    """File operations of `Device` (mixed in; needs `backend`, `shell` and `run`)."""

    def exists(self, path: str) -> bool:
        return self.backend.exists(path)

    def is_dir(self, path: str) -> bool:
        parent, name = posixpath.split(path.rstrip("/"))
        return any(e.name == name and e.is_dir for e in self.backend.list_entries(parent or "/"))

    def exists_in(self, folder: str, name: str) -> bool:
        """Whether `folder/name` is a file or folder (AndroidWorld's check_file_or_folder_exists)."""
        return self.exists(posixpath.join(folder, name))

    def make_dirs(self, path: str) -> None:
        self.shell("mkdir", "-p", path)

    def write_file(self, path: str, data: bytes = b"", *, world_writable: bool = False) -> None:
        """Push `data` to `path` (adb creates its folders); `world_writable` opens its permissions
        (AndroidWorld does for files an app must rewrite, such as databases)."""
        self.backend.write_file(path, data)  # adbd creates missing folders
        if world_writable:
            self.shell("chmod", "777", path)

    def create_text_file(self, folder: str, name: str, content: str) -> str:
        """A text file holding `content` and a newline; returns `content`."""
        self.write_file(posixpath.join(folder, name), (content + "\n").encode())
        return content

    def read_text(self, path: str) -> str | None:
        """A file's text (newlines as written), None when it does not exist."""
        data = self.backend.read_file(path)
        return None if data is None else data.decode(errors="replace").replace("\r", "")

    def files_with_metadata(self, folder: str) -> list[FileInfo]:
        """The regular files in `folder` (AndroidWorld's get_file_list_with_metadata);
        RuntimeError when the folder does not exist."""
        if not self.exists(folder):
            raise RuntimeError(f"{folder} is not a valid directory.")
        return [FileInfo(e.name, posixpath.join(folder, e.name), e.size, e.mtime_s)
                for e in self.backend.list_entries(folder) if e.is_file]

    def names_in(self, folder: str) -> list[str]:
        """What ``ls folder`` lists (names, without dot files), [] when it is absent."""
        return sorted(n for n in self.backend.list_dir(folder) if not n.startswith("."))

    def clear_directory(self, folder: str) -> None:
        """Remove everything in `folder` (but dot files, as ``rm -r folder/*``), keeping it."""
        names = self.names_in(folder)
        if names:
            self.shell("rm", "-r", *(posixpath.join(folder, n) for n in names))

    def remove(self, path: str) -> None:
        """Remove a file or folder if it exists."""
        if self.exists(path):
            self.shell("rm", "-r", path)

    def clear_internal_storage(self) -> None:
        """Delete every file under shared storage, keeping the folders."""
        self.shell("find", STORAGE + "/", "-mindepth", "1", "-type", "f", "-delete")

    def clear_device_storage(self) -> None:
        """Shared storage emptied and the media store's download entries dropped."""
        self.clear_internal_storage()
        self.shell("content", "delete", "--uri", "content://media/external/downloads")

    def copy_dir(self, source: str, target: str) -> None:
        """Copy a folder's contents, keeping owners and modes (``cp -a``)."""
        if not self.exists(source):
            return
        self.make_dirs(target)
        self.shell("cp", "-a", f"{source}/.", f"{target}/")

    def media_scan(self, path: str) -> None:
        """Ask the media scanner to index `path`, so apps list files pushed over adb."""
        self.broadcast("android.intent.action.MEDIA_SCANNER_SCAN_FILE", data_uri=f"file://{path}")
