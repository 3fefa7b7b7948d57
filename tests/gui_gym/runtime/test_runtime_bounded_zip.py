"""A zip archive someone else made, read within bounds: member count, a member's size and
ratio, the total unpacked, each refused before a byte is unpacked; what fits reads as
`zipfile` reads it."""

from __future__ import annotations

import struct
import zipfile

import pytest

from gui_gym.errors import LimitExceededError
from gui_gym.runtime.bounded_zip import BoundedZip, ZipBounds


def packed(tmp_path, parts: dict[str, bytes]) -> str:
    path = tmp_path / "deck.pptx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return str(path)


def test_what_fits_is_read_and_extracted_whole(tmp_path):
    path = packed(tmp_path, {"ppt/slides/slide1.xml": b"<x/>", "ppt/media/a.mp3": b"ID3" * 1000})
    with BoundedZip(path) as archive:
        assert archive.read("ppt/slides/slide1.xml") == b"<x/>"
        archive.extract("ppt/media/a.mp3", tmp_path / "out" / "a.mp3")
        with pytest.raises(KeyError):
            archive.read("missing")
    assert (tmp_path / "out" / "a.mp3").read_bytes() == b"ID3" * 1000


def test_a_bomb_is_refused_before_it_is_unpacked(tmp_path):
    """512 MiB of zeros pack into ~510 KiB: refused for its ratio, and under a smaller cap for
    its size; the XML cap of a read holds too."""
    path = packed(tmp_path, {"bomb": bytes(64 << 20), "small": b"x" * 100})
    with BoundedZip(path) as archive:
        with pytest.raises(LimitExceededError, match="unpacks .* bytes to 67108864, over 100 times"):
            archive.read("bomb")
        with pytest.raises(LimitExceededError, match="over the 10 read"):
            archive.read("small", 10)
    with BoundedZip(path, ZipBounds(max_member_bytes=1 << 20, max_ratio=10_000)) as archive:
        with pytest.raises(LimitExceededError, match="unpacks to 67108864 bytes, over the 1048576 read"):
            archive.extract("bomb", tmp_path / "bomb")
    assert not (tmp_path / "bomb").exists()


def test_the_total_and_the_member_count_are_bounded(tmp_path):
    path = packed(tmp_path, {f"m{i}": bytes(600) for i in range(5)})
    with BoundedZip(path, ZipBounds(max_total_bytes=1_000)) as archive:
        archive.read("m0")
        with pytest.raises(LimitExceededError, match="over 1000 bytes in all"):
            archive.read("m1")
    with pytest.raises(LimitExceededError, match="lists 5 members, over the 4 read"):
        BoundedZip(path, ZipBounds(max_members=4))


def test_a_member_that_lies_about_its_size_unpacks_no_more_than_it_declares(tmp_path):
    """The bounds trust the declared size because `zipfile` stops there (a CRC error after)."""
    path = packed(tmp_path, {"liar": bytes(10 << 20)})
    data = bytearray(open(path, "rb").read())
    entry = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, entry + 24, 1000)  # the central directory's unpacked size
    (tmp_path / "liar.pptx").write_bytes(data)
    with BoundedZip(tmp_path / "liar.pptx") as archive:
        with pytest.raises(zipfile.BadZipFile, match="Bad CRC-32"):
            archive.read("liar")
        with pytest.raises(zipfile.BadZipFile):
            archive.extract("liar", tmp_path / "liar")
    assert (tmp_path / "liar").stat().st_size <= 1000
