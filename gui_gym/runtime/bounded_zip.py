"""A zip archive someone else made (an agent's ``.pptx``), read within bounds.

A zip member says in the archive's directory how big it is unpacked, and Python's `zipfile`
never unpacks more than that, so the sizes can be checked before a byte is unpacked: a member
over `ZipBounds.max_member_bytes`, one that unpacks to over `max_ratio` times its packed size
(past the first `ratio_floor_bytes`: small parts of XML pack well), more than
`max_total_bytes` unpacked in all, or an archive of over `max_members` members, is refused with
`LimitExceededError`. A 255 KiB presentation unpacked its 768 MiB member into memory, and a
510 KiB one wrote 512 MiB to the disk, before these bounds. Reading the archive's directory
costs memory by the member, so run this in a bounded worker (`gui_gym.runtime.bounded_call`).
"""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from gui_gym.errors import LimitExceededError


@dataclass(frozen=True)
class ZipBounds:
    """What reading one archive may unpack."""

    max_members: int = 10_000
    """Members the archive may list (a presentation has hundreds)."""
    max_member_bytes: int = 100 << 20
    """The largest member read or extracted, unpacked."""
    max_total_bytes: int = 200 << 20
    """Everything read or extracted from the archive, unpacked."""
    max_ratio: int = 100
    """Unpacked over packed size, past `ratio_floor_bytes` (media pack about 1:1, XML ~10:1)."""
    ratio_floor_bytes: int = 1 << 20


class BoundedZip:
    """An archive opened for bounded reads (a context manager, like `zipfile.ZipFile`)."""

    def __init__(self, path: str | Path, bounds: ZipBounds = ZipBounds()):
        self.bounds = bounds
        self.archive = zipfile.ZipFile(path)
        self.unpacked = 0
        members = len(self.archive.infolist())
        if members > bounds.max_members:
            self.archive.close()
            raise LimitExceededError(f"{Path(path).name} lists {members} members, over the {bounds.max_members} read")

    def __enter__(self) -> "BoundedZip":
        return self

    def __exit__(self, *exc: object) -> None:
        self.archive.close()

    def names(self) -> list[str]:
        return self.archive.namelist()

    def read(self, name: str, max_bytes: int | None = None) -> bytes:
        """The member `name` unpacked (KeyError when there is none), within the bounds and at
        most `max_bytes`."""
        with self.archive.open(self._admit(name, max_bytes)) as member:
            return member.read()

    def extract(self, name: str, target: Path) -> None:
        """Unpack the member `name` into the file `target` (its folders made), within the bounds."""
        info = self._admit(name, None)
        target.parent.mkdir(parents=True, exist_ok=True)
        with self.archive.open(info) as member, open(target, "wb") as out:
            shutil.copyfileobj(member, out)

    def _admit(self, name: str, max_bytes: int | None) -> zipfile.ZipInfo:
        """The member's entry, once its declared sizes are within the bounds (`zipfile`
        unpacks no more than the entry declares)."""
        info, bounds = self.archive.getinfo(name), self.bounds
        cap = bounds.max_member_bytes if max_bytes is None else min(max_bytes, bounds.max_member_bytes)
        if info.file_size > cap:
            raise LimitExceededError(f"member {name} unpacks to {info.file_size} bytes, over the {cap} read")
        if info.file_size > bounds.ratio_floor_bytes and info.file_size > bounds.max_ratio * max(info.compress_size, 1):
            raise LimitExceededError(f"member {name} unpacks {info.compress_size} bytes to {info.file_size}, over "
                                     f"{bounds.max_ratio} times")
        if self.unpacked + info.file_size > bounds.max_total_bytes:
            raise LimitExceededError(f"the archive's members read unpack to over {bounds.max_total_bytes} bytes in all")
        self.unpacked += info.file_size
        return info
