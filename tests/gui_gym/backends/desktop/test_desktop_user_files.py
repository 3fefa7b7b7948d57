"""The evaluator's file operations on the desktop (`user_files.py`, run as a script the way the
server runs it): each attack a home can hold (a link, a hard link, a FIFO, a folder in the
way) is performed, with the plain case beside it as the control. The same script runs as the
sandbox's ``user`` in test_osworld_hostile_home.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from gui_gym.backends.desktop.inside import user_files
from gui_gym.backends.desktop.inside.session import USER_FILES


def run(*arguments: str, data: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-S", str(USER_FILES), *arguments], input=data,
                          capture_output=True, timeout=30)


def write(path: Path, data: bytes, mtime: int = 1_700_000_000) -> subprocess.CompletedProcess:
    return run("write", str(path), str(mtime), data=data)


def read(path: Path, max_bytes: int = 1 << 20) -> bytes | None:
    done = run("read", str(path), str(max_bytes))
    return done.stdout if done.returncode == 0 else None


def listing(path: Path, max_bytes: int = 1 << 20, seconds: float = 20.0) -> subprocess.CompletedProcess:
    return run("list", str(path), str(max_bytes), str(seconds))


def test_a_plain_write_makes_its_folders_and_sets_the_time(tmp_path):
    target = tmp_path / "a" / "b" / "gold.xlsx"
    assert write(target, b"GOLD").returncode == 0
    assert target.read_bytes() == b"GOLD" and int(target.stat().st_mtime) == 1_700_000_000
    assert write(target, b"NEW").returncode == 0 and target.read_bytes() == b"NEW"  # a regular file is replaced
    assert sorted(p.name for p in target.parent.iterdir()) == ["gold.xlsx"]  # no temporary file left


def test_a_write_never_goes_through_a_link(tmp_path):
    mine = tmp_path / "Employee.xlsx"
    mine.write_bytes(b"AGENT")
    (tmp_path / "Employee_gold.xlsx").symlink_to(mine)
    done = write(tmp_path / "Employee_gold.xlsx", b"GOLD")
    assert done.returncode == user_files.IN_THE_WAY and b"is a symbolic link, where the file goes" in done.stderr
    assert mine.read_bytes() == b"AGENT"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")
    done = write(tmp_path / "linked" / "gold.xlsx", b"GOLD")
    assert done.returncode == user_files.IN_THE_WAY and b"linked is a symbolic link, where a folder goes" in done.stderr
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_write_over_a_hard_link_leaves_the_other_name_as_it_was(tmp_path):
    mine = tmp_path / "Employee.xlsx"
    mine.write_bytes(b"AGENT")
    os.link(mine, tmp_path / "Employee_gold.xlsx")
    assert write(tmp_path / "Employee_gold.xlsx", b"GOLD").returncode == 0
    assert (tmp_path / "Employee_gold.xlsx").read_bytes() == b"GOLD" and mine.read_bytes() == b"AGENT"


def test_a_folder_fifo_or_socket_in_the_way_is_refused_and_left_alone(tmp_path):
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "socket"))
        for name, what in (("folder", b"a folder"), ("fifo", b"a FIFO"), ("socket", b"a socket")):
            done = write(tmp_path / name, b"GOLD")
            assert done.returncode == user_files.IN_THE_WAY and what + b", where the file goes" in done.stderr
    (tmp_path / "file").write_bytes(b"x")
    done = write(tmp_path / "file" / "below.txt", b"GOLD")
    assert done.returncode == user_files.IN_THE_WAY and b"file is a regular file, where a folder goes" in done.stderr
    assert (tmp_path / "folder").is_dir() and (tmp_path / "fifo").is_fifo() and (tmp_path / "file").read_bytes() == b"x"


def test_a_read_takes_a_regular_file_through_no_link_and_never_waits_on_a_fifo(tmp_path):
    (tmp_path / "real.txt").write_bytes(b"0123456789")
    assert read(tmp_path / "real.txt") == b"0123456789" and read(tmp_path / "real.txt", 10) == b"0123456789"
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    (tmp_path / "dir").symlink_to(tmp_path)
    os.mkfifo(tmp_path / "fifo")  # no writer: a blocking open would wait for good
    (tmp_path / "folder").mkdir()
    for path in ("link.txt", "dir/real.txt", "fifo", "folder", "missing", "real.txt/below"):
        assert read(tmp_path / path) is None, path


def test_check_finds_files_and_folders_through_no_link(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "a.txt")
    os.mkfifo(tmp_path / "fifo")
    assert [run("check", str(tmp_path / name)).returncode for name in ("a.txt", ".", "link", "fifo", "none")] == [
        0, 0, user_files.MISSING, user_files.MISSING, user_files.MISSING]


def test_a_listing_enters_no_link(tmp_path):
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "a.txt").write_text("a")
    (tmp_path / "docs" / "loop").symlink_to(tmp_path)  # followed, it would never end
    (tmp_path / "docs" / "deep" / "b.txt").write_text("b")
    done = listing(tmp_path / "docs")
    assert json.loads(done.stdout) == {"name": "docs", "type": "directory", "children": [
        {"name": "a.txt", "type": "file"},
        {"name": "deep", "type": "directory", "children": [{"name": "b.txt", "type": "file"}]},
        {"name": "loop", "type": "file"}]}
    (tmp_path / "linked").symlink_to(tmp_path / "docs")
    assert listing(tmp_path / "linked").returncode == user_files.MISSING


def test_a_file_over_the_bound_is_refused_as_too_big_without_being_read(tmp_path):
    """The caller's bound reaches the script: a file over it is refused by its size (a sparse
    file of 10 GiB costs nothing), never read in part and handed out as if whole."""
    (tmp_path / "real.txt").write_bytes(b"0123456789")
    with open(tmp_path / "sparse.bin", "wb") as sparse:
        sparse.truncate(10 << 30)
    for name, bound in (("real.txt", 9), ("sparse.bin", 1 << 30)):
        done = run("read", str(tmp_path / name), str(bound))
        assert (done.returncode, done.stdout) == (user_files.TOO_BIG, b""), name
        assert f"over the {bound} bytes allowed".encode() in done.stderr


def test_a_listing_past_its_bytes_entries_depth_or_time_is_refused(tmp_path):
    """A folder the agent filled is refused at the bound instead of walked whole: by the bytes of
    its answer, by its depth, by the time it takes; the same folder within the bounds lists."""
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for index in range(3000):
        (crowded / f"file-{index:05d}.txt").touch()
    deep = tmp_path / "deep"
    (deep / Path(*["d"] * (user_files.MAX_DEPTH + 1))).mkdir(parents=True)
    assert len(json.loads(listing(crowded).stdout)["children"]) == 3000
    refused = {"bytes": listing(crowded, max_bytes=10_000), "time": listing(crowded, seconds=0),
               "depth": listing(deep)}
    assert {what: done.returncode for what, done in refused.items()} == dict.fromkeys(refused, user_files.TOO_BIG)
    assert b"is over the 10000 bytes allowed" in refused["bytes"].stderr
    assert b"took over 0 s" in refused["time"].stderr
    assert f"is more than {user_files.MAX_DEPTH} folders deep".encode() in refused["depth"].stderr
