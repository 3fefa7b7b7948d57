"""`GuardedFiles`: a file the evaluation writes is put in place through no link, and every way of
taking its name away afterwards is seen: renamed over, removed, a folder on its path moved,
swapped away and back. Here in a temporary folder as this test's user; in the sandbox the copy
is the server's, which neither of the agent's ids may write (test_osworld_leftover_processes.py)."""

from __future__ import annotations

import os
import stat

import pytest

from gui_gym.backends.desktop.inside import guarded_files
from gui_gym.backends.desktop.inside.guarded_files import MODE, GuardedFiles
from gui_gym.backends.desktop.inside.user_files import InTheWay


@pytest.fixture
def guarded():
    files = GuardedFiles()
    yield files
    files.reset()


def test_a_file_is_placed_with_its_time_and_mode_and_nothing_is_replaced_yet(tmp_path, guarded):
    target = tmp_path / "home" / "eval.sh"
    target.parent.mkdir()
    target.write_text("what the user's write left")
    guarded.place(str(target), b"echo checked\n", 1_700_000_000)
    found = target.stat()
    assert target.read_bytes() == b"echo checked\n" and stat.S_IMODE(found.st_mode) == MODE
    assert int(found.st_mtime) == 1_700_000_000 and sorted(os.listdir(target.parent)) == ["eval.sh"]
    (target.parent / "other.txt").write_text("the evaluation's own work around it")
    (target.parent / "other.txt").rename(target.parent / "moved.txt")
    assert guarded.replaced() == []


@pytest.mark.parametrize("attack", ["renamed over", "removed and made again", "swapped away and back",
                                    "its folder moved", "its folder moved and made again"])
def test_every_way_of_taking_a_guarded_name_is_seen(tmp_path, guarded, attack):
    home = tmp_path / "home"
    (home / "Desktop").mkdir(parents=True)
    target, mine = home / "Desktop" / "script.py", home / "mine.py"
    guarded.place(str(target), b"print('checked')\n", 0)
    mine.write_text("print('true')\n")
    if attack == "renamed over":
        os.replace(mine, target)
    elif attack == "removed and made again":
        target.unlink()
        target.write_text("print('true')\n")
    elif attack == "swapped away and back":
        os.replace(target, home / "kept.py")
        os.replace(home / "kept.py", target)
    else:
        (home / "Desktop").rename(home / "Elsewhere")
        if attack.endswith("made again"):
            (home / "Desktop").mkdir()
            os.replace(mine, home / "Desktop" / "script.py")
    assert guarded.replaced() == [str(target)]
    guarded.reset()  # a new evaluation forgets the old one's files
    assert guarded.replaced() == []


def test_a_link_on_the_way_is_refused(tmp_path, guarded):
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    with pytest.raises(InTheWay, match="linked is a symbolic link, where a folder goes"):
        guarded.place(str(tmp_path / "linked" / "eval.sh"), b"x", 0)
    assert list((tmp_path / "real").iterdir()) == []


def test_a_flood_of_changes_in_a_watched_folder_cannot_hold_the_look_and_counts_as_replaced(
        tmp_path, guarded, monkeypatch):
    """A process that makes and removes names in a guarded file's folder without end keeps the
    event queue from ever running dry: here the queue always has another 64 KiB of such events
    (names other than the guarded one). The look stops after its bound of reads (before, it read
    on for as long as the flood lasted) and counts every guarded file replaced."""
    target = tmp_path / "home" / "eval.sh"
    target.parent.mkdir()
    guarded.place(str(target), b"echo checked\n", 1_700_000_000)
    event = guarded_files.EVENT.pack(1, guarded_files.IN_CREATE, 0, 16) + b"other".ljust(16, b"\0")
    endless, read = event * ((1 << 16) // len(event)), os.read
    monkeypatch.setattr(guarded_files.os, "read", lambda fd, size: endless if fd == guarded._inotify else read(fd, size))
    assert guarded.replaced() == [str(target)]
