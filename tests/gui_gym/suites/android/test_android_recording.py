"""Recording episodes from a device; the bundled sample is what its scripts record."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from tests.fakes.adb_server import FakeAdbServer, record_sample
from tests.fakes.virtual_device import VirtualDevice
from gui_gym.backends.android.backend import AndroidBackend, AndroidConfig
from gui_gym.errors import ActionExecutionError
from gui_gym.suites.android.androidcontrol import SAMPLE_DIR, load_episode
from gui_gym.suites.android.recording import Script, ScriptedStep, record_episode


def test_recording_writes_the_documented_layout(tmp_path):
    script = Script("t", "Turn on Bluetooth.", (ScriptedStep("Open Settings", "open_app", fields={"text": "Settings"}),
                                                 ScriptedStep("Tap Bluetooth", "click", "Bluetooth")))
    with FakeAdbServer([VirtualDevice()]) as server:
        backend = AndroidBackend(AndroidConfig(adb_port=server.port))
        backend.start()
        backend.new_episode()
        folder = record_episode(backend, script, tmp_path)
        assert server.devices["emulator-5554"].settings["global"]["bluetooth_on"] == "1"
        with pytest.raises(ActionExecutionError, match=r"no element labelled 'Airplane' on screen; labels: \["):
            record_episode(backend, Script("u", "x", (ScriptedStep("Tap", "click", "Airplane"),)), tmp_path)
    episode = load_episode(folder)
    assert [s.gold.kind for s in episode.steps] == ["open_app", "click"]
    assert episode.steps[1].target_box is not None and episode.steps[1].app == "com.android.settings"
    assert episode.final_screenshot.name == "02.png"


@pytest.mark.slow
def test_the_bundled_sample_is_what_the_scripts_record(tmp_path):
    record_sample(str(tmp_path))
    bundled = sorted(p.relative_to(SAMPLE_DIR) for p in SAMPLE_DIR.rglob("*.*"))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.*")) == bundled
    for name in bundled:
        if name.suffix == ".json":
            assert json.loads((tmp_path / name).read_text()) == json.loads((SAMPLE_DIR / name).read_text()), name
        else:
            assert np.array_equal(np.asarray(Image.open(tmp_path / name)), np.asarray(Image.open(SAMPLE_DIR / name)))
