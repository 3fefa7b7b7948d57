"""File tasks on the virtual phone: shared storage emptied, the file and its noise neighbours
created, success read from the file system."""

from __future__ import annotations

import shutil

import pytest

from tests.fakes.android_world import fake_phone


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def test_delete_file(phone):
    stale = phone.device.host_path("/sdcard/Music/stale.mp3")
    stale.write_bytes(b"x")
    task = phone.task("FilesDeleteFile", seed=5)
    folder = phone.device.host_path(f"/sdcard/{task.params['subfolder']}")
    names = {p.name for p in folder.iterdir()}
    assert not stale.exists() and task.params["file_name"] in names and 2 <= len(names) <= 21
    assert phone.score(task) == 0.0
    (folder / sorted(names - {task.params["file_name"]})[0]).unlink()  # a noise file: still there
    assert phone.score(task) == 0.0
    (folder / task.params["file_name"]).unlink()
    assert phone.score(task) == 1.0
    task.teardown(phone.backend)
    assert not any(p.is_file() for p in folder.iterdir())


def test_move_file(phone):
    task = phone.task("FilesMoveFile", seed=2)
    source = phone.device.host_path(f"/sdcard/{task.params['source_folder']}")
    destination = phone.device.host_path(f"/sdcard/{task.params['destination_folder']}")
    assert (source / task.params["file_name"]).is_file() and destination.is_dir()
    assert phone.score(task) == 0.0
    shutil.copy(source / task.params["file_name"], destination)  # copied, not moved
    assert phone.score(task) == 0.0
    (source / task.params["file_name"]).unlink()
    assert phone.score(task) == 1.0
