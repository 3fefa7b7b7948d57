"""AndroidControl-style offline evaluation: recorded episodes replayed step by step.

An episode is a goal, and per step a screenshot, the UI elements, the action taken and a
step instruction. In High mode the agent sees the goal only; in Low mode the instruction is
the current step's (AndroidControl's low-level instruction). Every step shows the recorded
screen whatever the agent did before (teacher forcing), and the episode's score is its step
success rate (see `metrics`); per-step scores are left on the task as ``step_scores`` and
``summary`` after the episode.

Folder layout (one folder per episode, any folder name)::

    <root>/<episode>/episode.json
    <root>/<episode>/<screenshots and element files named in episode.json>

``episode.json``::

    {"episode_id": "settings-wifi-off", "goal": "Turn off Wi-Fi.",
     "screen_size": [1080, 2400],                    # optional: else the first screenshot's;
                                                     #   the pixels actions and boxes are in
     "steps": [{"screenshot": "00.png",
                "elements": "00.json",               # optional: UI elements (AndroidWorld
                                                     #   fields, as UIElement.to_dict) or a
                                                     #   uiautomator dump (.xml)
                "app": "com.android.settings",       # optional: the package in focus
                "step_instruction": "Open the Settings app",
                "action": {"action_type": "open_app", "app_name": "Settings"},
                "target_box": [0, 80, 360, 152]},    # optional: x_min, y_min, x_max, y_max
               ...],
     "final_screenshot": "02.png"}                   # optional: the screen after the last step

Actions are AndroidControl's JSON (AndroidWorld's JSONAction: click / long_press with x, y
in screenshot pixels, scroll with direction, input_text with text (no Enter), open_app with
app_name, navigate_home, navigate_back, wait). A click's target box, when not given, is the
smallest recorded element containing the point. Converting AndroidControl's TFRecords to this
layout is one loop over its fields (goal, screenshots, accessibility_trees, actions,
step_instructions) and is left to the user: it needs TensorFlow to read them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from PIL import Image

from gui_gym.action_formats import parse_action
from gui_gym.actions import Action
from gui_gym.backends.android_elements import BoundingBox, UIElement, parse_uiautomator_xml
from gui_gym.backends.android_replay import RecordedScreen, ReplayBackend
from gui_gym.backends.base import Backend
from gui_gym.errors import ActionParseError, MissingResourceError, TaskConfigError
from gui_gym.suites.android.metrics import StepScore, score_step, summarize
from gui_gym.suites.base import Episode, Task, TaskSuite

ENV_VAR = "GUI_GYM_ANDROIDCONTROL_DIR"
SAMPLE_DIR = Path(__file__).resolve().parent / "data" / "androidcontrol_sample"
MODES = ("high", "low")
GOLD_TYPES = frozenset({"click", "long_press", "scroll", "type", "open_app", "navigate_home", "navigate_back", "wait"})


@dataclass(frozen=True)
class RecordedStep:
    screenshot: Path
    gold: Action
    instruction: str
    elements: tuple[UIElement, ...] | None = None
    target_box: BoundingBox | None = None
    app: str | None = None


@dataclass(frozen=True)
class RecordedEpisode:
    episode_id: str
    goal: str
    screen_size: tuple[int, int]
    steps: tuple[RecordedStep, ...]
    final_screenshot: Path | None = None


def data_root(explicit: str | os.PathLike | None) -> Path:
    """The episodes folder: explicit, else $GUI_GYM_ANDROIDCONTROL_DIR, else the bundled sample."""
    value = explicit if explicit is not None else os.environ.get(ENV_VAR) or SAMPLE_DIR
    root = Path(value)
    if not root.is_dir():
        source = "data_dir" if explicit is not None else f"${ENV_VAR}"
        raise MissingResourceError(f"{source} points at {str(root)!r}, which is not a folder of episodes "
                                   "(<root>/<episode>/episode.json); see docs/android.md")
    return root


def load_episodes(root: str | os.PathLike) -> list[RecordedEpisode]:
    """Every episode under `root`, in folder-name order."""
    folders = sorted(p.parent for p in Path(root).glob("*/episode.json"))
    if not folders:
        raise MissingResourceError(f"no <episode>/episode.json under {root}; see the layout in docs/android.md")
    episodes = [load_episode(folder) for folder in folders]
    seen: set[str] = set()
    for episode in episodes:
        if episode.episode_id in seen:
            raise TaskConfigError(f"{root}: episode_id {episode.episode_id!r} appears twice")
        seen.add(episode.episode_id)
    return episodes


def load_episode(folder: str | os.PathLike) -> RecordedEpisode:
    """One episode folder; TaskConfigError naming the file and field when it is malformed."""
    folder = Path(folder)
    path = folder / "episode.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    for key, kind in (("episode_id", str), ("goal", str), ("steps", list)):
        if not isinstance(data.get(key), kind) or not data[key]:
            raise TaskConfigError(f"{path}: {key} must be a non-empty {kind.__name__}, received {data.get(key)!r}")
    steps = tuple(_step(folder, path, n, raw) for n, raw in enumerate(data["steps"]))
    size = data.get("screen_size")
    if size is None:
        with Image.open(steps[0].screenshot) as image:
            size = image.size
    if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise TaskConfigError(f"{path}: screen_size must be [width, height] in pixels, received {size!r}")
    final = _file(folder, path, "final_screenshot", data["final_screenshot"]) if data.get("final_screenshot") else None
    return RecordedEpisode(data["episode_id"], data["goal"], (size[0], size[1]), steps, final)


def _file(folder: Path, path: Path, field: str, name: Any) -> Path:
    if not isinstance(name, str) or not (folder / name).is_file():
        raise TaskConfigError(f"{path}: {field} names {name!r}, which is not a file in {folder}")
    return folder / name


def _step(folder: Path, path: Path, n: int, raw: Any) -> RecordedStep:
    where = f"steps[{n}]"
    if not isinstance(raw, dict):
        raise TaskConfigError(f"{path}: {where} must be an object, received {type(raw).__name__}")
    screenshot = _file(folder, path, f"{where}.screenshot", raw.get("screenshot"))
    elements = None
    if raw.get("elements") is not None:
        source = _file(folder, path, f"{where}.elements", raw["elements"])
        try:
            text = source.read_text(encoding="utf-8")
            elements = tuple(parse_uiautomator_xml(text) if source.suffix == ".xml"
                             else (UIElement.from_dict(e) for e in json.loads(text)))
        except (ValueError, TypeError) as exc:
            raise TaskConfigError(f"{source}: not a UI element list ({exc})") from None
    try:
        gold = parse_action(raw.get("action"), "androidworld", input_text_submits=False)
    except ActionParseError as exc:
        raise TaskConfigError(f"{path}: {where}.action: {exc}") from None
    if gold.kind not in GOLD_TYPES:
        raise TaskConfigError(f"{path}: {where}.action is {gold.kind!r}; recorded steps are AndroidControl actions")
    target = raw.get("target_box")
    if target is not None:
        if not (isinstance(target, list) and len(target) == 4 and all(isinstance(v, (int, float)) for v in target)):
            raise TaskConfigError(f"{path}: {where}.target_box must be [x_min, y_min, x_max, y_max], received {target!r}")
        target = BoundingBox(x_min=target[0], x_max=target[2], y_min=target[1], y_max=target[3])
    if gold.element is not None:  # an index into the recorded elements: the element's centre
        if elements is None or gold.element >= len(elements) or elements[gold.element].bbox_pixels is None:
            raise TaskConfigError(f"{path}: {where}.action indexes element {gold.element}, which was not recorded")
        target = target or elements[gold.element].bbox_pixels
        x, y = target.center
        gold = replace(gold, element=None, x=x, y=y)
    if target is None and gold.point is not None and elements:
        around = [e.bbox_pixels for e in elements if e.bbox_pixels is not None and e.bbox_pixels.contains(*gold.point)]
        target = min(around, key=lambda b: b.area, default=None)
    instruction = raw.get("step_instruction")
    if not isinstance(instruction, str):
        raise TaskConfigError(f"{path}: {where}.step_instruction must be a string, received {instruction!r}")
    return RecordedStep(screenshot, gold, instruction, elements, target, raw.get("app"))


class AndroidControlTask(Task):
    """One recorded episode, scored step by step."""

    def __init__(self, episode: RecordedEpisode, mode: str) -> None:
        self.episode, self.mode = episode, mode
        self.task_id, self.goal = episode.episode_id, episode.goal
        self.domain, self.max_steps = "androidcontrol", len(episode.steps)
        self.metadata = {"mode": mode, "steps": len(episode.steps)}
        self.step_scores: list[StepScore] = []
        self.summary: dict[str, float | int] = {}
        self._backend: ReplayBackend | None = None

    @property
    def instruction(self) -> str:
        if self.mode == "high":
            return self.goal
        position = self._backend.position if self._backend is not None else 0
        return self.episode.steps[min(position, len(self.episode.steps) - 1)].instruction

    def setup(self, backend: Backend) -> None:
        if not isinstance(backend, ReplayBackend):
            raise TypeError(f"AndroidControl tasks replay on a ReplayBackend, received {type(backend).__name__}")
        screens = [RecordedScreen(s.screenshot, s.elements, s.app) for s in self.episode.steps]
        if self.episode.final_screenshot is not None:
            screens.append(RecordedScreen(self.episode.final_screenshot, None, screens[-1].app))
        backend.load(screens)
        self._backend = backend

    def evaluate(self, backend: Backend, episode: Episode) -> float:
        steps = self.episode.steps
        predictions = list(backend.predictions[:len(steps)]) + [None] * max(0, len(steps) - len(backend.predictions))
        self.step_scores = [score_step(p, s.gold, self.episode.screen_size, s.target_box)
                            for p, s in zip(predictions, steps)]
        self.summary = summarize(self.step_scores)
        return float(self.summary["step_success_rate"])

    def oracle(self, backend: Backend) -> Iterator[Action]:
        """The recorded actions: a replay agent."""
        for _ in self.episode.steps:
            yield self.episode.steps[backend.position].gold


class AndroidControlSuite(TaskSuite):
    """Recorded episodes under a folder (the bundled sample by default)."""

    name = "androidcontrol"

    def __init__(self, data_dir: str | os.PathLike | None = None, mode: str = "high") -> None:
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"mode must be one of {MODES}, received {mode!r}")
        self.mode = mode.lower()
        self.root = data_root(data_dir)
        self.episodes = {e.episode_id: e for e in load_episodes(self.root)}

    def make_backend(self) -> ReplayBackend:
        """The backend these episodes replay on (the first episode's size until one is shown)."""
        return ReplayBackend(next(iter(self.episodes.values())).screen_size)

    @property
    def task_ids(self) -> list[str]:
        return list(self.episodes)

    def make_task(self, task_id: str, seed: int) -> AndroidControlTask:
        self.check_task_id(task_id)
        return AndroidControlTask(self.episodes[task_id], self.mode)

    def describe(self, task_id: str) -> dict[str, Any]:
        self.check_task_id(task_id)
        episode = self.episodes[task_id]
        return {"task_id": task_id, "domain": "androidcontrol", "goal": episode.goal, "steps": len(episode.steps),
                "mode": self.mode}
