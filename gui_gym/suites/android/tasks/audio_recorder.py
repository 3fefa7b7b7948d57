"""Audio Recorder tasks (AndroidWorld's ``single/audio_recorder.py``), read from its recordings folder.

RecordAudio: exactly one recording (non-empty file) that was not there, or changed, after
set-up. RecordAudioWithFileName: the folder (emptied first) holds the named recording. The app
appends ``.m4a`` to the name typed, and AndroidWorld's name already ends in ``.m4a``, so the
file checked for is ``<name>.m4a``, as AndroidWorld checks it.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.suites.android import generation
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import AUDIO_RECORDINGS
from gui_gym.suites.android.tasks.base import AndroidWorldTask

RECORDING_NAMES = ("interview", "meeting", "lecture", "session", "note", "conference", "webinar", "workshop", "seminar",
                   "briefing", "discussion", "talk", "presentation", "training", "guidance", "memo", "narration",
                   "storytelling", "journal", "diary", "debate", "symposium", "roundtable", "consultation", "review")


class AudioRecorderRecordAudio(AndroidWorldTask):
    name, complexity, app_names = "AudioRecorderRecordAudio", 1.2, ("audio recorder",)
    template = "Record an audio clip using Audio Recorder app and save it."

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        try:
            self.before = device.files_with_metadata(AUDIO_RECORDINGS)
        except RuntimeError as exc:
            raise RuntimeError(f"cannot list {AUDIO_RECORDINGS}; is Audio Recorder installed and set up?") from exc

    def is_successful(self, device: Device) -> float:
        new = [f for f in device.files_with_metadata(AUDIO_RECORDINGS) if f.size > 0 and f not in self.before]
        return float(len(new) == 1)


class AudioRecorderRecordAudioWithFileName(AndroidWorldTask):
    name, complexity, app_names = "AudioRecorderRecordAudioWithFileName", 2, ("audio recorder",)
    template = 'Record an audio clip and save it with name "{file_name}" using Audio Recorder app.'

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"file_name": generation.modified_file_name(rng, rng.choice(RECORDING_NAMES) + ".m4a"), "text": ""}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.clear_directory(AUDIO_RECORDINGS)

    def is_successful(self, device: Device) -> float:
        return float(device.exists_in(AUDIO_RECORDINGS, self.params["file_name"] + ".m4a"))

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()
        device.clear_directory(AUDIO_RECORDINGS)


TASKS = (AudioRecorderRecordAudio, AudioRecorderRecordAudioWithFileName)
