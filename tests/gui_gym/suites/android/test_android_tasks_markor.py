"""Markor tasks on the virtual phone: notes are files under Documents/Markor, set up over
adb, changed by the test as an agent would, scored from the file system."""

from __future__ import annotations

import shutil

import mutagen.mp4
import pytest

from tests.fakes.android_world import fake_phone
from gui_gym.suites.android.tasks.sms import SimpleSMSSendSms

MARKOR = "/sdcard/Documents/Markor"
SMS = "com.simplemobiletools.smsmessenger"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p, pytest.MonkeyPatch.context() as patch:
        patch.setattr(SimpleSMSSendSms, "send_wait_s", 0.2)  # a message not sent is not waited for long
        yield p


def folder(phone, sub=""):
    return phone.device.host_path(f"{MARKOR}/{sub}".rstrip("/"))


def test_move_note(phone):
    task = phone.task("MarkorMoveNote", seed=1)
    source, target = folder(phone, task.params["source_folder"]), folder(phone, task.params["destination_folder"])
    assert (source / task.params["file_name"]).is_file() and target.is_dir() and phone.score(task) == 0.0
    shutil.move(source / task.params["file_name"], target)
    assert phone.score(task) == 1.0


def test_create_folder(phone):
    task = phone.task("MarkorCreateFolder", seed=1)
    assert any(folder(phone).iterdir()) and phone.score(task) == 0.0  # noise notes only
    (folder(phone) / task.params["folder_name"]).mkdir()
    assert phone.score(task) == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_edit_note(phone, seed):
    task = phone.task("MarkorEditNote", seed=seed)
    note = folder(phone) / task.params["file_name"]
    original = note.read_text().strip()
    assert phone.score(task) == 0.0
    edit = task.params["edit_type"]
    text = {"header": lambda: task.params["header"] + "\n" + original, "footer": lambda: original + "\n" +
            task.params["footer"], "replace": lambda: task.params["replace_text"]}[edit]()
    note.write_text(text + "\n")
    assert phone.score(task) == 1.0


def test_delete_note(phone):
    task = phone.task("MarkorDeleteNote", seed=2)
    assert phone.score(task) == 0.0
    (folder(phone) / task.params["file_name"]).unlink()
    assert phone.score(task) == 1.0


def test_delete_newest_note(phone):
    task = phone.task("MarkorDeleteNewestNote", seed=3)
    notes = sorted(folder(phone).iterdir(), key=lambda p: p.stat().st_mtime)
    assert len({int(p.stat().st_mtime) for p in notes}) == len(notes) >= 2  # set apart in time
    assert phone.score(task) == 0.0
    notes[0].unlink()  # the oldest
    assert phone.score(task) == 0.0
    task = phone.task("MarkorDeleteNewestNote", seed=3)
    sorted(folder(phone).iterdir(), key=lambda p: p.stat().st_mtime)[-1].unlink()
    assert phone.score(task) == 1.0


def test_delete_all_notes(phone):
    task = phone.task("MarkorDeleteAllNotes", seed=4)
    assert 2 <= len(list(folder(phone).iterdir())) <= 6 and phone.score(task) == 0.0
    for note in folder(phone).iterdir():
        note.unlink()
    assert phone.score(task) == 1.0


def test_create_note(phone):
    task = phone.task("MarkorCreateNote", seed=5)
    assert phone.score(task) == 0.0
    (folder(phone) / task.params["file_name"]).write_text(task.params["text"].upper())  # case is not compared
    assert phone.score(task) == 1.0


def test_create_note_from_clipboard(phone):
    task = phone.task("MarkorCreateNoteFromClipboard", seed=6)
    assert phone.device.clipboard == task.params["file_content"] and phone.score(task) == 0.0
    folder(phone).mkdir(parents=True, exist_ok=True)
    (folder(phone) / task.params["file_name"]).write_text(phone.device.clipboard)
    assert phone.score(task) == 1.0


def test_merge_notes(phone):
    task = phone.task("MarkorMergeNotes", seed=7)
    contents = [task.params[f"file{n}_content"] for n in (1, 2, 3)]
    assert [(folder(phone) / task.params[f"file{n}_name"]).read_text() for n in (1, 2, 3)] == [c + "\n" for c in contents]
    merged = folder(phone) / task.params["new_file_name"]
    merged.write_text("\n".join(contents) + "\n")  # no blank lines between
    assert phone.score(task) == 0.0
    merged.write_text("\n\n".join(contents) + "\n")
    assert phone.score(task) == 1.0


def test_change_note_content_and_add_header(phone):
    task = phone.task("MarkorChangeNoteContent", seed=8)
    assert phone.score(task) == 0.0
    (folder(phone) / task.params["original_name"]).rename(folder(phone) / task.params["new_name"])
    assert phone.score(task) == 0.0  # renamed, old text
    (folder(phone) / task.params["new_name"]).write_text(task.params["updated_content"] + "\n")
    assert phone.score(task) == 1.0

    task = phone.task("MarkorAddNoteHeader", seed=9)
    original = folder(phone) / task.params["original_name"]
    assert original.read_text() == task.params["original_content"] + "\n"
    renamed = original.rename(folder(phone) / task.params["new_name"])
    renamed.write_text(task.params["header"] + "\n" + task.params["original_content"] + "\n")  # no blank line
    assert phone.score(task) == 0.0  # an exact match is asked for
    renamed.write_text(task.params["header"] + "\n\n" + task.params["original_content"] + "\n")
    assert phone.score(task) == 1.0


def test_transcribe_receipt(phone):
    task = phone.task("MarkorTranscribeReceipt", seed=10)
    picture = phone.device.host_path("/sdcard/DCIM/receipt.png")
    assert picture.read_bytes()[:4] == b"\x89PNG" and task.params["text"].startswith("Date, Item, Amount\n")
    assert phone.score(task) == 0.0
    folder(phone).mkdir(parents=True, exist_ok=True)
    (folder(phone) / "receipt.md").write_text(task.params["text"] + "\n")
    assert phone.score(task) == 1.0


def test_transcribe_video(phone):
    task = phone.task("MarkorTranscribeVideo", seed=11)
    video = phone.device.host_path(f"/sdcard/Download/{task.params['video_name']}")
    assert mutagen.mp4.MP4(video).info.length == 8 * len(task.params["messages"])
    assert len(list(phone.device.host_path("/sdcard/Download").iterdir())) == 1 + len(task.params["noise_files"])
    assert phone.score(task) == 0.0
    (folder(phone) / task.params["file_name"]).write_text(",".join(task.params["messages"]))
    assert phone.score(task) == 1.0


def test_create_note_and_sms_scores_half_each(phone):
    task = phone.task("MarkorCreateNoteAndSms", seed=12)
    assert phone.score(task) == 0.0
    (folder(phone) / task.params["file_name"]).write_text(task.params["text"])
    assert phone.score(task) == 0.5
    phone.device.add_sms(task.params["number"], task.params["text"], sent=True)
    phone.device.show(SMS)
    assert phone.score(task) == 1.0
