"""Audio Recorder tasks on the virtual phone: the app's recordings folder."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone

RECORDS = "/storage/emulated/0/Android/data/com.dimowner.audiorecorder/files/Music/records"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        phone = p
        phone.device.show("com.dimowner.audiorecorder")  # its first start makes the folder
        yield p


def test_record_audio(phone):
    old = phone.device.host_path(f"{RECORDS}/Record-1.m4a")
    old.write_bytes(b"audio")
    task = phone.task("AudioRecorderRecordAudio")
    assert phone.score(task) == 0.0
    phone.device.host_path(f"{RECORDS}/Record-2.m4a").write_bytes(b"")  # started, nothing saved yet
    assert phone.score(task) == 0.0
    phone.device.host_path(f"{RECORDS}/Record-2.m4a").write_bytes(b"audio data")
    assert phone.score(task) == 1.0


def test_record_audio_with_file_name(phone):
    task = phone.task("AudioRecorderRecordAudioWithFileName", seed=3)
    assert task.params["file_name"].endswith(".m4a") and phone.score(task) == 0.0
    assert not any(phone.device.host_path(RECORDS).iterdir())
    phone.device.host_path(f"{RECORDS}/{task.params['file_name']}.m4a").write_bytes(b"audio")  # the app adds .m4a
    assert phone.score(task) == 1.0
