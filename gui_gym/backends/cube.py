"""A CUBE task's tool as a screen: the backend of ``GUI/CUBE-v0``.

CUBE (``cube-standard``, Python >= 3.12) gives a task a tool with function-call actions and
observations that are lists of contents (text, images, structured data). This backend holds
the live CUBE task the suite spawned (`open`) and translates both ways:

- an `Action` becomes the call the task's tool set offers for it (the ``function_call``
  format's `call_for`: our own kinds, ``final_step``, an answer function); a CUBE tool error
  is the step's action error;
- an observation is the latest screenshot (the last image content; the one before when a step
  showed none; a black pixel before any), the text contents named ``a11y_tree``, ``url`` and
  ``app`` in those fields, and every other text in ``text``.

Terminal actions (done, fail, answer) reach the task through `finish`, which the suite's
evaluate calls; a task CUBE says is done ends the episode (`done`). The backend knows the
CUBE protocol only, never a benchmark.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from cube.core import Action as CubeAction
from cube.core import AgentStop, EnvironmentOutput, ImageContent, Observation as CubeObservation, StructuredContent
from PIL import Image

from gui_gym.action_formats.function_call import STOP, Function, call_for
from gui_gym.actions import Action
from gui_gym.backends.base import Backend, Observation
from gui_gym.backends.static import ScreenshotSpace
from gui_gym.errors import ActionExecutionError, ActionParseError

NAMED_TEXTS = ("a11y_tree", "url", "app")
"""Contents of these names fill the observation field of the same name."""
NOT_SHOWN = ("instruction",)
"""Contents of these names are the task's (its instruction), not the screen's."""
BLANK = np.zeros((1, 1, 3), np.uint8)


@dataclass
class CubeScreen(Observation):
    """A backend observation with the CUBE observation's other texts."""

    text: str | None = None


class CubeBackend(Backend):
    """The screen of whichever CUBE task is open; screenshots keep the size the task gives."""

    observation_text_keys = ("text",)

    def __init__(self) -> None:
        super().__init__()
        self.task: Any = None
        """The live CUBE ``Task``."""
        self.observation: CubeObservation | None = None
        """The task's latest observation, as CUBE gave it."""
        self.output: EnvironmentOutput | None = None
        """The latest step's output (None before the first step)."""
        self.reset_info: dict[str, Any] = {}
        self.functions: tuple[Function, ...] = ()
        self.screenshot_space = ScreenshotSpace()
        self._screenshot = BLANK

    @property
    def screen_size(self) -> tuple[int, int]:
        return self._screenshot.shape[1], self._screenshot.shape[0]

    @property
    def done(self) -> bool:
        """Whether the CUBE task said its episode is over."""
        return self.output is not None and self.output.done

    def open(self, task: Any) -> None:
        """Reset CUBE task `task` (closing the one before) and show its first observation."""
        self._close()
        self.task = task
        self.observation, self.reset_info = task.reset()
        self.output = None
        self.functions = tuple(Function.from_schema(schema.name, schema.parameters) for schema in task.action_set)
        self._screenshot = BLANK
        self._see(self.observation)

    def finish(self, action: Action | None) -> tuple[float, dict[str, Any]]:
        """The episode's (reward, info) from CUBE: the task's own at its end; else the
        terminal `action` is sent (an answer to the answer function, done or fail to the stop
        action) and the task stopped if it goes on; with no action (a truncation), the task's
        evaluator on the state as it stands."""
        if not self.done and action is not None:
            name, arguments = self._call_for(action)
            self._step(CubeAction(name=name, arguments=arguments))
            if not self.done:
                self._step(CubeAction(name=STOP, arguments={}))
        if self.done:
            return float(self.output.reward), dict(self.output.info)
        reward, info = self.task.evaluate(self.observation)
        return float(reward), dict(info)

    def privileged(self) -> dict[str, Any]:
        """The task's privileged info, as data ({} when it is not structured)."""
        content = self.task.get_privileged_info()
        return dict(content.data) if isinstance(content, StructuredContent) and isinstance(content.data, dict) else {}

    # ---- the Backend contract ------------------------------------------------------------

    def _start(self) -> None:
        pass

    def _new_episode(self) -> None:
        pass  # the suite opens the episode's task (`open`)

    def _execute(self, action: Action) -> None:
        if self.task is None:
            raise ActionExecutionError("no CUBE task is open")
        name, arguments = self._call_for(action)
        output = self._step(CubeAction(name=name, arguments=arguments))
        error = output.error or output.obs.error
        if error is not None:
            raise ActionExecutionError(f"{error.error_type}: {error.exception_str}")

    def _observe(self, a11y: bool, screenshot: bool = True) -> Observation:
        observation = self.observation or CubeObservation()
        texts = {name: None for name in NAMED_TEXTS}
        others = []
        for content in observation.contents:
            if isinstance(content, ImageContent) or content.name in NOT_SHOWN:
                continue
            if content.name in NAMED_TEXTS and isinstance(content.data, str):
                texts[content.name] = content.data
            else:
                others.append(content.to_markdown())
        return CubeScreen(screenshot=self._screenshot.copy() if screenshot else None,
                          a11y_tree=texts["a11y_tree"] if a11y else None, url=texts["url"], app=texts["app"],
                          text="\n\n".join(others))

    def _close(self) -> None:
        if self.task is not None:
            task, self.task = self.task, None
            task.close()

    def _alive(self) -> bool:
        return True  # the task runs in this process

    # ---- internals --------------------------------------------------------------------------

    def _call_for(self, action: Action) -> tuple[str, dict[str, Any]]:
        try:
            return call_for(action, self.functions)
        except ActionParseError as exc:
            raise ActionExecutionError(str(exc)) from exc

    def _step(self, call: CubeAction) -> EnvironmentOutput:
        try:
            output = self.task.step(call)
        except AgentStop as stop:  # a tool that stops outside the gym view's own catch
            output = EnvironmentOutput(obs=stop.observation, done=True)
        self.output, self.observation = output, output.obs
        self._see(output.obs)
        return output

    def _see(self, observation: CubeObservation) -> None:
        images = [content for content in observation.contents if isinstance(content, ImageContent)]
        if images:
            self._screenshot = _rgb(images[-1].data)


class OpenFunctions:
    """The functions of whichever task is open, read at each use: the ``functions`` of the
    ``function_call`` format's context in ``GUI/CUBE-v0``, so an agent's calls are read
    against the tool set of its own episode."""

    def __init__(self, backend: CubeBackend):
        self.backend = backend

    def __iter__(self):
        return iter(self.backend.functions)

    def __len__(self) -> int:
        return len(self.backend.functions)


def _rgb(image: Image.Image | bytes) -> np.ndarray:
    if isinstance(image, (bytes, bytearray)):
        image = Image.open(io.BytesIO(image))
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"), dtype=np.uint8)
