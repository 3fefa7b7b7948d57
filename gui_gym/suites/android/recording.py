"""Record AndroidControl-layout episodes from a live device by playing scripted steps.

A script is a goal and steps of (step instruction, action), where a pointer action names its
target by label ("Wi-Fi", "Create contact") instead of by pixels: at recording time the label
is looked up in the device's UI elements, the action is taken at the element's centre, and
the step is written with its screenshot, element list, focused app, action in
AndroidControl's JSON and the element's box as the target. The bundled sample
(``data/androidcontrol_sample``) is `SAMPLE_SCRIPTS` recorded on the test suite's virtual
device (``python -m tests.fakes.adb_server --record-sample <folder>``); the same scripts record
on an emulator whose apps carry those labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from PIL import Image

from gui_gym.action_formats import format_action
from gui_gym.actions import Action
from gui_gym.backends.android import AndroidBackend
from gui_gym.backends.android_elements import UIElement
from gui_gym.errors import ActionExecutionError


@dataclass(frozen=True)
class ScriptedStep:
    """One step: `kind` and fields of the canonical action; `target` is the label of the
    element a pointer action acts on."""

    instruction: str
    kind: str
    target: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Script:
    episode_id: str
    goal: str
    steps: tuple[ScriptedStep, ...]


def find_element(elements: Sequence[UIElement], label: str) -> UIElement:
    """The first element whose text, content description or hint is `label`."""
    for element in elements:
        if label in (element.text, element.content_description, element.hint_text) and element.bbox_pixels:
            return element
    shown = sorted({e.label for e in elements if e.label})
    raise ActionExecutionError(f"no element labelled {label!r} on screen; labels: {shown}")


def record_episode(backend: AndroidBackend, script: Script, out_dir: str | Path) -> Path:
    """Play `script` on the device behind `backend` (started, on the screen the script
    starts from) and write the episode folder; returns it."""
    folder = Path(out_dir) / script.episode_id
    folder.mkdir(parents=True, exist_ok=True)
    steps = []
    for n, step in enumerate(script.steps):
        observation = backend.observe()
        elements = backend.elements()
        target = find_element(elements, step.target) if step.target is not None else None
        point = {"x": round(target.bbox_pixels.center[0]), "y": round(target.bbox_pixels.center[1])} if target else {}
        action = Action(step.kind, **point, **step.fields)
        shot, listing = f"{n:02d}.png", f"{n:02d}.json"
        Image.fromarray(observation.screenshot).save(folder / shot, optimize=True)
        (folder / listing).write_text(json.dumps([e.to_dict() for e in elements], separators=(",", ":")) + "\n")
        record: dict[str, Any] = {"screenshot": shot, "elements": listing, "app": observation.app,
                                  "step_instruction": step.instruction,
                                  "action": format_action(action, "androidworld", input_text_submits=False)}
        if target is not None:
            box = target.bbox_pixels
            record["target_box"] = [box.x_min, box.y_min, box.x_max, box.y_max]
        steps.append(record)
        backend.execute(action)
    final = f"{len(script.steps):02d}.png"
    Image.fromarray(backend.observe().screenshot).save(folder / final, optimize=True)
    episode = {"episode_id": script.episode_id, "goal": script.goal, "screen_size": list(backend.screen_size),
               "steps": steps, "final_screenshot": final}
    (folder / "episode.json").write_text(json.dumps(episode, indent=1) + "\n")
    return folder


def _s(instruction: str, kind: str, target: str | None = None, **fields: Any) -> ScriptedStep:
    return ScriptedStep(instruction, kind, target, fields)


SAMPLE_SCRIPTS = (
    Script("settings-wifi-off", "Turn off Wi-Fi.", (
        _s("Open the Settings app", "open_app", text="Settings"),
        _s("Tap the Wi-Fi switch to turn it off", "click", "Wi-Fi"))),
    Script("contacts-add-ada", "Add a contact named Ada with the phone number 555-0100.", (
        _s("Open the Contacts app", "open_app", text="Contacts"),
        _s("Tap the button to create a contact", "click", "Create contact"),
        _s("Tap the First name field", "click", "First name"),
        _s("Type Ada", "type", text="Ada"),
        _s("Tap the Phone field", "click", "Phone"),
        _s("Type 555-0100", "type", text="555-0100"),
        _s("Tap Save", "click", "Save"))),
    Script("clock-timer-5min", "Set a 5 minute timer in the Clock app without starting it.", (
        _s("Open the Clock app", "open_app", text="Clock"),
        _s("Go to the Timer tab", "click", "Timer"),
        _s("Press 5", "click", "5"),
        _s("Press 0", "click", "0"),
        _s("Press 0 again", "click", "0"))),
    Script("files-browse-pictures", "Look into the Pictures folder in Files, then return to the home screen.", (
        _s("Open the Files app", "open_app", text="Files"),
        _s("Scroll down the folder list", "scroll", direction="down"),
        _s("Open the Pictures folder", "click", "Pictures"),
        _s("Wait for the folder to load", "wait"),
        _s("Go back to the folder list", "navigate_back"),
        _s("Go to the home screen", "navigate_home"))),
    Script("files-delete-music", "Delete the Music folder with the Files app.", (
        _s("Open the Files app", "open_app", text="Files"),
        _s("Long press the Music folder to select it", "long_press", "Music"),
        _s("Tap Delete", "click", "Delete"))),
)
"""The scripts of the bundled sample: every AndroidControl action type occurs."""
