"""Simple Gallery Pro and Simple Draw Pro tasks on the virtual phone: files copied or saved."""

from __future__ import annotations

import shutil

import pytest

from tests.fakes.android_world import fake_phone


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def test_save_copy_of_receipt(phone):
    task = phone.task("SaveCopyOfReceiptTaskEval", seed=1)
    picture = phone.device.host_path(f"/sdcard/DCIM/{task.params['file_name']}")
    assert picture.read_bytes()[:2] == b"\xff\xd8" and phone.score(task) == 0.0
    shutil.copy(picture, phone.device.host_path(f"/sdcard/Download/{task.params['file_name']}"))
    assert phone.score(task) == 1.0


def test_create_drawing(phone):
    task = phone.task("SimpleDrawProCreateDrawing", seed=2)
    assert phone.score(task) == 0.0
    phone.device.host_path(f"/sdcard/Pictures/{task.params['file_name']}").write_bytes(b"png")
    assert phone.score(task) == 1.0
