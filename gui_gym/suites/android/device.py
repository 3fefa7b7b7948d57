"""Device state over adb, as AndroidWorld's tasks set it up and read it back.

Success is read from where Android keeps state, never from pixels: the settings tables
(``settings get``), content providers (``content query``), files (adb sync), app databases
(SQLite files pulled over adb sync, with their ``-wal`` and ``-shm`` companions so rows not yet
checkpointed are seen, then read with `sqlite3`), the focused activity (``dumpsys window``)
and the UI element list. Everything goes through the backend's shell and sync calls; nothing
here imports adbutils.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Sequence

from gui_gym.backends.android import AndroidBackend
from gui_gym.backends.android_elements import UIElement
from gui_gym.errors import MissingResourceError

CONTACTS_PROVIDER = "com.android.providers.contacts"
PHONES_URI = "content://com.android.contacts/data/phones"
STORAGE = "/storage/emulated/0"
"""Shared storage, the "sdk_gphone_x86_64" storage area AndroidWorld's file tasks name."""


class Device:
    """What a task reads and sets on the phone, over its `AndroidBackend`."""

    def __init__(self, backend: AndroidBackend) -> None:
        if not isinstance(backend, AndroidBackend):
            raise TypeError(f"Android tasks need an AndroidBackend, received {type(backend).__name__}")
        self.backend = backend

    def shell(self, *argv: str) -> str:
        """Run one command (arguments quoted for the device shell); its stdout."""
        return self.backend.shell(list(argv)).stdout

    # ---- settings and services -------------------------------------------------------------

    def setting(self, namespace: str, key: str) -> str:
        """``settings get``: the value as text, "null" when unset."""
        return self.shell("settings", "get", namespace, key).strip()

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self.shell("settings", "put", namespace, key, value)

    def set_radio(self, service: str, on: bool) -> None:
        """Turn "wifi" or "bluetooth" on or off through ``svc``, as AndroidWorld does."""
        self.shell("svc", service, "enable" if on else "disable")

    # ---- providers and databases ----------------------------------------------------------

    def content_query(self, uri: str, projection: Sequence[str]) -> list[dict[str, str]]:
        """Rows of ``content query --uri ... --projection a:b``, as {column: text}."""
        output = self.shell("content", "query", "--uri", uri, "--projection", ":".join(projection))
        columns = "|".join(re.escape(c) for c in projection)
        rows = []
        for line in output.splitlines():
            if not line.startswith("Row: "):
                continue
            fields = re.split(rf", (?=(?:{columns})=)", line.split(" ", 2)[2])
            rows.append(dict(field.split("=", 1) for field in fields))
        return rows

    def contacts(self) -> list[tuple[str, str]]:
        """(display name, phone number) of every phone entry in the contacts provider."""
        return [(row["display_name"], row["number"])
                for row in self.content_query(PHONES_URI, ("display_name", "number"))]

    def clear_contacts(self) -> None:
        self.shell("pm", "clear", CONTACTS_PROVIDER)

    def sqlite_query(self, database: str, sql: str, params: Sequence[Any] = ()) -> list[tuple] | None:
        """Rows of `sql` on an app database pulled from the device; None when the database
        does not exist (the app never created it). Reading /data/data needs adbd as root."""
        if database.startswith("/data/") and self.shell("id", "-u").strip() != "0":
            raise MissingResourceError(
                f"reading {database} needs adbd running as root: run `adb root` (emulator images without "
                "Google Play allow it)")
        with tempfile.TemporaryDirectory(prefix="gui-gym-db-") as folder:
            local = Path(folder) / Path(database).name
            for suffix in ("", "-wal", "-shm"):
                data = self.backend.read_file(database + suffix)
                if data is None and not suffix:
                    return None
                if data is not None:
                    Path(str(local) + suffix).write_bytes(data)
            connection = sqlite3.connect(local)
            try:
                return connection.execute(sql, tuple(params)).fetchall()
            finally:
                connection.close()

    # ---- files ----------------------------------------------------------------------------

    def file_exists(self, path: str) -> bool:
        return self.backend.exists(path)

    def write_file(self, path: str, data: bytes = b"") -> None:
        self.backend.write_file(path, data)

    def media_scan(self, path: str) -> None:
        """Ask the media scanner to index `path`, so file browsers list files pushed over adb."""
        self.shell("am", "broadcast", "-a", "android.intent.action.MEDIA_SCANNER_SCAN_FILE", "-d", f"file://{path}")

    def make_dirs(self, path: str) -> None:
        self.shell("mkdir", "-p", path)

    def clear_folder(self, path: str) -> None:
        """Remove everything inside a device folder, keeping the folder."""
        names = self.backend.list_dir(path)
        if names:
            self.shell("rm", "-rf", *(f"{path}/{name}" for name in names))

    # ---- apps and screen ------------------------------------------------------------------

    def foreground(self) -> tuple[str, str]:
        """(package, activity) in focus."""
        return self.backend.foreground()

    def ui_elements(self) -> list[UIElement]:
        return self.backend.elements()

    def force_stop(self, package: str) -> None:
        self.shell("am", "force-stop", package)

    def clear_app_data(self, package: str) -> None:
        self.shell("pm", "clear", package)

    def go_home(self) -> None:
        self.backend.go_home()
