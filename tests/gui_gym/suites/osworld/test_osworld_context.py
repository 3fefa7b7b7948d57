"""The OSWorld file cache: OSWorld's layout, downloads over loopback, offline errors."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld.context import FileCache
from tests.fakes.file_site import serve_folder


@pytest.fixture
def site(tmp_path: Path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "a.xlsx").write_bytes(b"payload")

    with serve_folder(root) as site:
        yield site[0]


def test_download_path_follows_osworld(tmp_path: Path):
    cache = FileCache(tmp_path)
    url = "https://huggingface.co/x/a.xlsx"
    assert cache.download_path("task", url, "/home/user/b.xlsx") == \
        tmp_path / "task" / f"{uuid.uuid5(uuid.NAMESPACE_URL, url)}_b.xlsx"


def test_fetch_downloads_once_then_reads_the_cache(tmp_path: Path, site: str):
    cache = FileCache(tmp_path / "cache")
    target = tmp_path / "cache" / "t" / "a.xlsx"
    assert cache.fetch(f"{site}/a.xlsx", target).read_bytes() == b"payload"
    target.write_bytes(b"cached")
    assert cache.fetch(f"{site}/a.xlsx", target).read_bytes() == b"cached"
    assert not list(target.parent.glob("*.part-*"))


def test_fetch_errors_name_the_url_and_the_cache_path(tmp_path: Path, site: str):
    with pytest.raises(MissingResourceError, match=r"cannot download http://127.0.0.1:\d+/none.xlsx .*put the file at"):
        FileCache(tmp_path).fetch(f"{site}/none.xlsx", tmp_path / "t" / "none.xlsx")
    with pytest.raises(MissingResourceError, match=r"downloads are off; put the file at .*t/a.xlsx"):
        FileCache(tmp_path, allow_download=False).fetch(f"{site}/a.xlsx", tmp_path / "t" / "a.xlsx")
