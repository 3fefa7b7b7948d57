"""Camera tasks on the virtual phone: exactly one new photo or video."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


@pytest.mark.parametrize("task_id, folder, ext", [("CameraTakePhoto", "Pictures", "jpg"), ("CameraTakeVideo", "Movies", "mp4")])
def test_one_new_file(phone, task_id, folder, ext):
    stale = phone.device.host_path(f"/sdcard/{folder}/stale.{ext}")
    stale.write_bytes(b"x")
    task = phone.task(task_id)
    assert not stale.exists() and phone.score(task) == 0.0
    phone.device.host_path(f"/sdcard/{folder}/IMG_20231015_153500.{ext}").write_bytes(b"x")
    assert phone.score(task) == 1.0
    phone.device.host_path(f"/sdcard/{folder}/IMG_20231015_153501.{ext}").write_bytes(b"x")
    assert phone.score(task) == 0.0  # two
