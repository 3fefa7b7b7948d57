"""Markor tasks (AndroidWorld's ``single/markor.py`` and ``composite/markor_sms.py``).

Markor keeps notes as plain files in /storage/emulated/0/Documents/Markor, so success is read
from the file system: a note or folder exists or is gone, a note's text (``cat``, compared
fuzzily unless the task asks for exact content), the set of notes and their change times.
Set-up empties the Markor folder, and creates the task's notes among 1 to 20 noise notes named
like common note titles. Notes are created as AndroidWorld creates them (text and a newline).
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from gui_gym.suites.android import generation, media
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import DOWNLOAD, GALLERY, MARKOR
from gui_gym.suites.android.matching import fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask, CompositeTask
from gui_gym.suites.android.tasks.files import create_noise_files, move_file_check, move_file_setup
from gui_gym.suites.android.tasks.sms import SimpleSMSSendSms

NOTE_TITLES = (
    "weekly_groceries.md", "team_sync_notes.md", "goals_this_year.md", "books_to_read.md", "paper_summary.md",
    "holiday_plans.md", "kitchen_remodel_budget.md", "running_plan.md", "gift_ideas.md", "pizza_dough_recipe.md",
    "saturday_chores.md", "phone_plan_comparison.md", "sketchbook_ideas.md", "rust_study_plan.md",
    "trip_journal.md", "business_ideas.md", "client_calls.md", "quotes_i_like.md", "balcony_garden.md",
    "talk_outline.md")
"""Noise note names (the kind AndroidWorld uses)."""
SUBFOLDERS = ("Reading", "Snippets", "Journal", "Workouts", "Meetings", "Diary", "Recipes", "Revision", "Travel",
              "Projects")
RECEIPT_ITEMS = (("HDMI Adapter", (5, 20)), ("Laptop Stand", (15, 60)), ("Mechanical Keyboard", (30, 100)),
                 ("Portable SSD", (50, 150)), ("Headset", (20, 70)), ("Desk Lamp", (10, 50)))
RECEIPT_COMPANIES = ("Circuit Corner Ltd.", "Bright Byte Co.", "Nimbus Devices Inc.", "Pixel Supply LLC")
RECEIPT_SLOGANS = ("Gear for Great Work", "Built to Last", "Tools That Fit", "Quality You Can Plug In")


def random_note(rng: random.Random) -> tuple[str, str]:
    """(file name with .md or .txt, a sentence)."""
    return generation.random_file_name(rng) + rng.choice((".md", ".txt")), generation.random_sentence(rng)


def note_text(device: Device, name: str) -> str | None:
    """A note's text as ``cat`` prints it, carriage returns dropped, None if it is missing."""
    return device.read_text(f"{MARKOR}/{name}")


def create_file_check(device: Device, folder: str, name: str, text: str) -> float:
    """AndroidWorld's CreateFile check: the file exists and its text (stripped) fuzzily matches."""
    content = device.read_text(f"{folder}/{name}")
    return float(content is not None and fuzzy_match(content.strip(), text))


class Markor(AndroidWorldTask):
    """Markor's folder emptied before and after."""

    app_names = ("markor",)

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_directory(MARKOR)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_directory(MARKOR)


class MarkorMoveNote(Markor):
    name, complexity = "MarkorMoveNote", 1.4
    template = "In Markor, move the note {file_name} from {source_folder} to {destination_folder}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        source = rng.choice(SUBFOLDERS)
        return {"file_name": random_note(rng)[0], "source_folder": source,
                "destination_folder": rng.choice([f for f in SUBFOLDERS if f != source]),
                "noise_candidates": list(NOTE_TITLES)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        move_file_setup(device, self.rng, MARKOR, self.params)

    def is_successful(self, device: Device) -> float:
        return move_file_check(device, MARKOR, self.params)

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class MarkorCreateFolder(Markor):
    name, complexity = "MarkorCreateFolder", 1
    template = "Create a new folder in Markor named {folder_name}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        # AndroidWorld stamps the name with the time the task was made; a seeded stamp keeps it reproducible
        stamp = datetime.datetime(2023, 1, 1) + datetime.timedelta(seconds=rng.randrange(365 * 24 * 3600))
        return {"folder_name": "folder_" + stamp.strftime("%Y%m%d_%H%M%S")}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        create_noise_files(device, self.rng, "file", MARKOR, NOTE_TITLES)

    def is_successful(self, device: Device) -> float:
        return float(device.exists_in(MARKOR, self.params["folder_name"]))


class MarkorEditNote(Markor):
    name, complexity = "MarkorEditNote", 1.2
    TEMPLATES = {"header": "Edit {file_name} in Markor. Add to the top of the note {header}",
                 "footer": "Edit {file_name} in Markor. Add to the bottom of the note {footer}",
                 "replace": "Edit {file_name} in Markor. Replace the text with {replace_text}"}
    template = TEMPLATES["header"]

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        edit_type = rng.choice(("header", "footer", "replace"))
        params: dict[str, Any] = {"file_name": f"note_{generation.random_string(rng, 5)}{rng.choice(('.md', '.txt'))}",
                                  "edit_type": edit_type}
        if edit_type == "replace":
            params["replace_text"] = "\n".join(generation.random_sentence(rng) for _ in range(3))
        else:
            params[edit_type] = generation.random_sentence(rng)
        return params

    @property
    def goal(self) -> str:
        return self.TEMPLATES[self.params["edit_type"]].format(**self.params)

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        create_noise_files(device, self.rng, self.params["file_name"], MARKOR, NOTE_TITLES)
        self.original = device.create_text_file(MARKOR, self.params["file_name"], generation.random_sentence(self.rng))

    def is_successful(self, device: Device) -> float:
        content = (note_text(device, self.params["file_name"]) or "").strip()
        edit = self.params["edit_type"]
        expected = {"header": lambda: self.params["header"] + "\n" + self.original,
                    "footer": lambda: self.original + "\n" + self.params["footer"],
                    "replace": lambda: self.params["replace_text"]}[edit]()
        return float(fuzzy_match(content, expected))


class MarkorDeleteNote(Markor):
    name, complexity = "MarkorDeleteNote", 1
    template = "Delete the note in Markor named {file_name}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"file_name": generation.random_file_name(rng), "noise_candidates": list(NOTE_TITLES)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.create_text_file(MARKOR, self.params["file_name"], generation.random_string(self.rng, 20))
        create_noise_files(device, self.rng, self.params["file_name"], MARKOR, self.params["noise_candidates"])

    def is_successful(self, device: Device) -> float:
        return float(not device.exists_in(MARKOR, self.params["file_name"]))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class MarkorDeleteNewestNote(Markor):
    """The note changed last must go, every other note untouched (names and change times)."""

    name, complexity, template = "MarkorDeleteNewestNote", 1, "Delete the newest note in Markor."

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        for _ in range(self.rng.randint(2, 6)):
            name, content = random_note(self.rng)
            device.create_text_file(MARKOR, name, content)
            device.advance_time(datetime.timedelta(minutes=self.rng.randint(-500, 500)))  # apart in time
        self.initial = sorted(device.files_with_metadata(MARKOR), key=lambda f: f.mtime_s)

    def is_successful(self, device: Device) -> float:
        now = sorted(device.files_with_metadata(MARKOR), key=lambda f: f.mtime_s)
        if any((a.name, a.mtime_s) != (b.name, b.mtime_s) for a, b in zip(now, self.initial)):
            return 0.0
        return float(len(now) == len(self.initial) - 1)


class MarkorDeleteAllNotes(Markor):
    name, complexity, template = "MarkorDeleteAllNotes", 1.4, "Delete all my notes in Markor."

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        create_noise_files(device, self.rng, generation.random_string(self.rng, 5), MARKOR, NOTE_TITLES,
                           self.rng.randint(2, 6))

    def is_successful(self, device: Device) -> float:
        return float(not device.files_with_metadata(MARKOR))


class MarkorCreateNote(Markor):
    name, complexity = "MarkorCreateNote", 1.6
    template = "Create a new note in Markor named {file_name} with the following text: {text}"

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        name, text = random_note(rng)
        return {"file_name": name, "text": text}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()

    def is_successful(self, device: Device) -> float:
        return create_file_check(device, MARKOR, self.params["file_name"], self.params["text"])

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class MarkorCreateNoteFromClipboard(MarkorCreateNote):
    name, complexity = "MarkorCreateNoteFromClipboard", 1.4
    app_names = ("markor", "clipper")
    template = "Create a note in Markor named {file_name}. Perform a paste operation in the note and save the note."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"file_name": random_note(rng)[0], "file_content": generation.random_string(rng, 10)}

    def initialize_task(self, device: Device) -> None:
        AndroidWorldTask.initialize_task(self, device)
        device.clear_directory(MARKOR)
        device.set_clipboard(self.params["file_content"])
        if device.clipboard() != self.params["file_content"]:
            raise RuntimeError("the clipboard does not hold the note's text after setting it")
        device.clear_device_storage()

    def is_successful(self, device: Device) -> float:
        return create_file_check(device, MARKOR, self.params["file_name"], self.params["file_content"])


class MarkorMergeNotes(Markor):
    """A new note must hold the three notes' texts in order, a blank line between each."""

    name, complexity = "MarkorMergeNotes", 7.8
    template = ("Merge the contents of Markor notes {file1_name}, {file2_name} and {file3_name} (in the same order) "
                "into a new Markor note named {new_file_name} and save it. Add a new line between the content of each "
                "note.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        names = [random_note(rng)[0] for _ in range(3)]
        return {"file1_name": names[0], "file2_name": names[1], "file3_name": names[2],
                "new_file_name": generation.random_string(rng, 8),
                **{f"file{n}_content": generation.random_string(rng, 20) for n in (1, 2, 3)}}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        for n in (1, 2, 3):
            device.create_text_file(MARKOR, self.params[f"file{n}_name"], self.params[f"file{n}_content"])

    def is_successful(self, device: Device) -> float:
        # each note was created with a trailing newline, so the merge reads "a\n\nb\n\nc"
        merged = "\n\n".join(self.params[f"file{n}_content"] for n in (1, 2, 3)) + "\n"
        if not create_file_check(device, MARKOR, self.params["new_file_name"], merged):
            return 0.0
        lines = (note_text(device, self.params["new_file_name"]) or "").strip().split("\n")
        return float(len(lines) == 5 and not lines[1] and not lines[3])

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        for n in (1, 2, 3):
            device.remove(f"{MARKOR}/{self.params[f'file{n}_name']}")
        device.clear_device_storage()


class _RenameNote(Markor):
    """A note to change and rename: the old name gone, the new one holding the right text."""

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.create_text_file(MARKOR, self.params["original_name"], self.original_content())
        create_noise_files(device, self.rng, self.params["original_name"], MARKOR, NOTE_TITLES)

    def original_content(self) -> str:
        raise NotImplementedError

    def content_right(self, content: str) -> bool:
        raise NotImplementedError

    def is_successful(self, device: Device) -> float:
        if device.exists_in(MARKOR, self.params["original_name"]):
            return 0.0
        content = note_text(device, self.params["new_name"])
        return float(content is not None and self.content_right(content))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.remove(f"{MARKOR}/{self.params['original_name']}")


class MarkorChangeNoteContent(_RenameNote):
    name, complexity = "MarkorChangeNoteContent", 1.2
    template = 'Update the content of {original_name} to "{updated_content}" in Markor and change its name to {new_name}.'

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"original_name": random_note(rng)[0], "new_name": random_note(rng)[0],
                "updated_content": generation.random_string(rng, 20)}

    def original_content(self) -> str:
        return generation.random_string(self.rng, 20)

    def content_right(self, content: str) -> bool:
        return fuzzy_match(content.strip(), self.params["updated_content"])


class MarkorAddNoteHeader(_RenameNote):
    name, complexity = "MarkorAddNoteHeader", 1.2
    template = ("Update the Markor note {original_name} by adding the following text, along with a new blank line "
                'before the existing content: "{header}", and rename it to {new_name}.')

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"original_name": random_note(rng)[0], "original_content": generation.random_sentence(rng),
                "new_name": random_note(rng)[0], "header": generation.random_string(rng, 20)}

    def original_content(self) -> str:
        return self.params["original_content"]

    def content_right(self, content: str) -> bool:
        return content == self.params["header"] + "\n\n" + self.params["original_content"] + "\n"  # exact


class MarkorTranscribeReceipt(AndroidWorldTask):
    """receipt.md must hold the receipt picture's transactions as CSV (fuzzy match)."""

    name, complexity = "MarkorTranscribeReceipt", 1.8
    app_names = ("simple gallery pro", "markor")
    template = ("Create a file in Markor, called receipt.md with the transactions from the receipt.png. Use Simple "
                'Gallery to view the receipt. Please enter transactions in csv format including the header "Date, '
                'Item, Amount".')

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        receipt = random_receipt(rng, rng.randint(1, 5))
        return {"receipt": receipt, "file_name": "receipt.md", "text": "\n".join(receipt_lines(receipt)[2:])}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.write_file(f"{GALLERY}/receipt.png", receipt_image(self.params["receipt"]), world_writable=True)

    def is_successful(self, device: Device) -> float:
        return create_file_check(device, MARKOR, self.params["file_name"], self.params["text"])

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class MarkorTranscribeVideo(Markor):
    """The text file must list the names shown in the video, comma separated."""

    name, complexity = "MarkorTranscribeVideo", 2
    app_names = ("markor", "vlc")
    template = ("Transcribe the contents of video {video_name} by watching it in VLC player (located in Download) and "
                "writing the sequence of strings shown on each frame to the text file {file_name} in Markor as a comma "
                'separated list. For example, if the first frame shows the text "edna" and the second frame shows the '
                'text "pineapple", then the text file should contain only the following text: "edna, pineapple".')

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        messages = rng.sample(generation.GIVEN_NAMES, rng.randint(2, 4))
        video = generation.video_file_name(rng)
        return {"file_name": f"{video.split('.')[0]}_transcription.txt", "text": ",".join(messages),
                "messages": messages, "video_name": video,
                "noise_files": [generation.video_file_name(rng) for _ in range(rng.randint(5, 20))]}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.write_file(f"{DOWNLOAD}/{self.params['video_name']}",
                          media.message_video(self.params["messages"], 8, seed=self.params.get("seed") or 0),
                          world_writable=True)
        for n, name in enumerate(self.params["noise_files"]):
            device.write_file(f"{DOWNLOAD}/{name}", media.message_video([generation.random_string(self.rng, 10)],
                                                                        self.rng.randint(20, 180), seed=n),
                              world_writable=True)

    def is_successful(self, device: Device) -> float:
        return create_file_check(device, MARKOR, self.params["file_name"], self.params["text"])

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


class MarkorCreateNoteAndSms(Markor, CompositeTask):
    """A note created in Markor (half the score) and its text sent by SMS (the other half)."""

    name, complexity = "MarkorCreateNoteAndSms", 1.8
    app_names = ("markor", "simple sms messenger")
    template = ("Create a new note in Markor named {file_name} with the following text: {text}. Share the entire "
                "content of the note with the phone number {number} via SMS using Simple SMS Messenger")
    needs = ("emulator console",)

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        note = MarkorCreateNote.generate_random_params(rng)
        return {"file_name": note["file_name"], "text": note["text"],
                "number": SimpleSMSSendSms.generate_random_params(rng)["number"]}

    def parts(self) -> list[AndroidWorldTask]:
        return [MarkorCreateNote({"file_name": self.params["file_name"], "text": self.params["text"]}),
                SimpleSMSSendSms({"number": self.params["number"], "message": self.params["text"]})]


def random_receipt(rng: random.Random, transactions: int) -> dict[str, Any]:
    start, days = datetime.date(2023, 1, 1), (datetime.date(2023, 10, 15) - datetime.date(2023, 1, 1)).days
    rows = []
    for _ in range(transactions):
        item, (low, high) = rng.choice(RECEIPT_ITEMS)
        rows.append([str(start + datetime.timedelta(days=rng.randrange(days))), item, f"${rng.uniform(low, high):.2f}"])
    return {"company": rng.choice(RECEIPT_COMPANIES), "slogan": rng.choice(RECEIPT_SLOGANS), "transactions": rows}


def receipt_lines(receipt: dict[str, Any]) -> list[str]:
    """Company, slogan, the CSV header and one line per transaction."""
    return [receipt["company"], receipt["slogan"], "Date, Item, Amount",
            *(", ".join(t) for t in receipt["transactions"])]


def receipt_image(receipt: dict[str, Any]) -> bytes:
    lines = receipt_lines(receipt)
    text = "\n".join(lines[:2]) + "\n\n" + "\n".join(lines[3:]) + "\n\nThank you for your purchase!"
    return media.text_image(text, font_size=18, image_format="PNG")


TASKS = (MarkorMoveNote, MarkorCreateFolder, MarkorEditNote, MarkorDeleteNote, MarkorDeleteNewestNote,
         MarkorDeleteAllNotes, MarkorCreateNote, MarkorCreateNoteFromClipboard, MarkorMergeNotes,
         MarkorChangeNoteContent, MarkorAddNoteHeader, MarkorTranscribeReceipt, MarkorTranscribeVideo,
         MarkorCreateNoteAndSms)
