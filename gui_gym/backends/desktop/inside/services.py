"""Session services the local desktop does without: what GNOME's programs start on the session
bus that no OSWorld task uses, and that cost a pooled desktop memory and its boot CPU.

- Tracker (the file indexer behind Files' search): Files, which the desktop icons start at
  boot, asks the session bus for it, and it then reads the whole home (40 MiB and seconds of
  CPU while the next episode's desktop boots). No task reads the index.
- GVfs's volume monitors (UDisks2 and the others): every GIO program asks for them; the
  sandbox has no disks, phones or cameras to show (``GVFS_REMOTE_VOLUME_MONITOR_IGNORE``).

A service is turned off by a D-Bus service file of the same name in the desktop's own data
folder, searched before the system's, whose program exits at once: the caller gets an error
at once (Files searches without an index), instead of the real service starting.
"""

from __future__ import annotations

from pathlib import Path

UNUSED_SERVICES = (
    "org.freedesktop.Tracker3.Miner.Files", "org.freedesktop.Tracker3.Miner.Files.Control",
    "org.freedesktop.Tracker3.Miner.Extract", "org.freedesktop.Tracker3.Writeback",
    "org.freedesktop.portal.Tracker", "org.gnome.Nautilus.Tracker3.Miner.Files",
    "org.gnome.Nautilus.Tracker3.Miner.Extract",
)
"""Session bus names that are never started."""
ENVIRONMENT = {"GVFS_REMOTE_VOLUME_MONITOR_IGNORE": "1"}
"""Environment of the desktop's programs: no GVfs volume monitors."""


def write_service_masks(data_dir: Path) -> list[Path]:
    """A service file for each of `UNUSED_SERVICES` under `data_dir` (an XDG data folder the
    session bus searches first), each running ``/bin/false``; the files written."""
    folder = data_dir / "dbus-1" / "services"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in UNUSED_SERVICES:
        path = folder / f"{name}.service"
        path.write_text(f"[D-BUS Service]\nName={name}\nExec=/bin/false\n")
        written.append(path)
    return written
