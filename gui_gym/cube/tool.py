"""The CUBE tool of every exported family: one gui-gym env, its actions as CUBE tool actions.

A `GUITool` holds one env of a ``GUI/*`` id, made from its `GUIToolConfig` when the task
opens (`GUITool.open`: ``reset(options={"task_id", "instance_seed"})``).
Each tool action is a kind of the canonical `Action`, its arguments the action's fields; the
tool hands the call to the env's own step in the ``function_call`` action format, so a call
is read, limited and scored exactly as the same action given to the env (a malformed one is
the step's ``action_error`` and costs a step, as natively). The observation after each action
is the env's: the screenshot as an image, the a11y tree, url or app as text.

A tool whose env drives a device that outlives the task (a phone over adb;
``GUIToolConfig.shared_device``) holds that device from `GUITool.open` to `GUITool.close`:
tasks of one process on the same device take turns, since each task's set-up rewrites the
device's state under any other.

Why not cube-browser-tool or cube-computer-tool: both drive a screen of their own (a
Playwright session the tool opens; OSWorld's guest agent, unauthenticated), so the suite's
step accounting, settling, web-access rules and scoring would not see the actions; the
scores would not be gui-bench's. The action names follow our `Action` kinds instead.

No ``from __future__ import annotations`` here: CUBE reads each action's parameter types
from its signature.
"""

import json
import logging
import threading
from typing import Any

import numpy as np
from cube.container import Container
from cube.core import Action as CubeAction
from cube.core import AgentStop, ImageContent, Observation, TextContent
from cube.tool import Tool, ToolConfig, tool_action
from PIL import Image

from gui_gym.registration import make

logger = logging.getLogger(__name__)

FUNCTION_CALL = "function_call"
SHOWN_ORIGIN = "http://gui-gym.localhost"
"""What the agent sees of the env's own server URL (whose port changes from one env to the
next): texts show it instead, and a ``goto`` to it goes to the server. So two resets of a
task show the same first observation, as CUBE's compliance suite asks."""
TEXT_KEYS = ("a11y_tree", "url", "app")
"""Text observation keys carried as named text contents, when the env has them."""

POINTER_KINDS = ("click", "double_click", "right_click", "move", "drag", "scroll")
KEYBOARD_KINDS = ("type", "key", "hotkey")
ANSWER_KINDS = ("wait", "answer", "done", "fail")
BROWSER_KINDS = POINTER_KINDS + KEYBOARD_KINDS + ANSWER_KINDS + ("goto", "navigate_back")
DESKTOP_KINDS = (POINTER_KINDS + ("triple_click", "mouse_down", "mouse_up") + KEYBOARD_KINDS
                 + ("key_down", "key_up") + ANSWER_KINDS)
MOBILE_KINDS = ("click", "long_press", "swipe", "type", "open_app", "navigate_back", "navigate_home") + ANSWER_KINDS
"""The action kinds a family offers its agents (`GUIToolConfig.kinds`)."""


class GUIToolConfig(ToolConfig):
    """Which env the tool plays: a ``GUI/*`` id, its ``gym.make`` arguments, and the action
    kinds offered (``final_step``, CUBE's stop, is always there)."""

    env_id: str = ""
    env_kwargs: dict[str, Any] = {}
    kinds: list[str] = list(BROWSER_KINDS)
    shared_device: bool = False
    """The env drives a device outside this process that outlives the task (a phone over
    adb): a task holds it from open to close, and the tasks of this process with the same
    env id and arguments take turns on it."""

    def make(self, container: Container | None = None) -> "GUITool":
        if not self.env_id:
            raise ValueError("GUIToolConfig needs an env_id (a GUI/* id); GUITaskConfig.make sets the task's")
        return GUITool(self)


class GUITool(Tool):
    """One env behind CUBE's tool interface. The env is made at the first `open` and closed
    by `close` (safe twice)."""

    def __init__(self, config: GUIToolConfig) -> None:
        self.config = config
        self.env: Any = None
        self._device: _DeviceTurn | None = None
        self.ended = False
        self.last_info: dict[str, Any] = {}
        self.last_reward = 0.0
        self._stepped: dict[str, Any] | None = None
        """The env's observation after the call being carried out, if it reached the env."""

    # ---- the task's side: open, score, state --------------------------------------------

    def open(self, task_id: str, seed: int) -> tuple[Observation, dict[str, Any]]:
        """The task's start: the env reset on task `task_id` with instance seed `seed` (the
        parameters of a parametric task; what ``info["seed"]`` and gui-bench's results call
        the seed); the first observation carries the instruction."""
        if self.config.shared_device and self._device is None:
            arguments = json.dumps(self.config.env_kwargs, sort_keys=True, default=str)
            self._device = _DeviceTurn.take(f"{self.config.env_id} {arguments}")
        if self.env is None:
            self.env = make(self.config.env_id, {**self.config.env_kwargs, "action_format": FUNCTION_CALL})
        obs, info = self.env.reset(options={"task_id": task_id, "instance_seed": seed})
        self.ended, self.last_info, self.last_reward = False, dict(info), 0.0
        contents = [TextContent(name="instruction", data=self._shown(obs["instruction"])), *self._screen(obs)]
        return Observation(contents=contents), _plain(info)

    def score(self) -> tuple[float, dict[str, Any]]:
        """(reward, info) of the episode as it stands: the env's final reward once it ended,
        else the task's evaluator on the state now (what a truncation would score)."""
        if self.ended:
            return self.last_reward, _plain(self.last_info)
        unwrapped = self.env.unwrapped
        score = float(unwrapped.task.evaluate(unwrapped.backend, unwrapped.episode))
        return score, {"score": score, "success": score >= 1.0, "ended": False}

    def marks(self) -> dict[str, Any]:
        """Progress and subtask marks: the task's ordered milestones and which hold now, the
        share that holds, and the expert plan when the task has one."""
        unwrapped = self.env.unwrapped
        milestones = unwrapped.task.milestones()
        reached = unwrapped.milestones_reached()
        return {
            "task_id": unwrapped.task.task_id, "instance_seed": unwrapped.episode.seed,
            "milestones": [{"description": m.description, "reached": r} for m, r in zip(milestones, reached)],
            "progress": sum(reached) / len(reached) if reached else None,
            "expert_plan": unwrapped.task.metadata.get("expert_plan"),
        }

    # ---- CUBE's side ----------------------------------------------------------------------

    @property
    def action_set(self):
        return [schema for schema in super().action_set if schema.name in self.config.kinds or schema.name == "final_step"]

    def execute_action(self, action: CubeAction) -> Observation:
        """The call's result text, then the screen after it (when the call reached the env)."""
        self._stepped = None
        result = super().execute_action(action)
        if self._stepped is not None:
            result.contents += self._screen(self._stepped)
        return result

    def final_step(self) -> str:
        """Stop the task execution."""
        if not self.ended:
            self._step({"name": "done", "arguments": {}})
        raise AgentStop(Observation(contents=self._screen(self._stepped)) if self._stepped else None)

    def close(self) -> None:
        try:
            if self.env is not None:
                self.env.close()
                self.env = None
        finally:
            if self._device is not None:
                self._device, device = None, self._device
                device.give_back()

    def _step(self, call: dict[str, Any]) -> str:
        if self.env is None:
            raise RuntimeError("the task has not been reset: no env to act on")
        if self.ended:
            return "The episode has ended; no action is carried out."
        obs, reward, terminated, truncated, info = self.env.step(call)
        self._stepped = obs
        self.ended, self.last_info, self.last_reward = terminated or truncated, dict(info), float(reward)
        if info.get("action_error"):
            return f"Action error: {info['action_error']}"
        if info.get("infra_error"):
            return f"Infrastructure error: {info['infra_error']}"
        return f"{call['name']} done" + (" (episode ended)" if self.ended else "")

    def _screen(self, obs: dict[str, Any]) -> list:
        contents: list = []
        if "screenshot" in obs:
            contents.append(ImageContent(name="screenshot", data=Image.fromarray(np.asarray(obs["screenshot"]))))
        contents += [TextContent(name=key, data=self._shown(obs[key])) for key in TEXT_KEYS if key in obs]
        return contents

    def _shown(self, text: str) -> str:
        origin = self.env.unwrapped.suite.snapshot_origin()
        return text.replace(origin, SHOWN_ORIGIN) if origin else text

    # ---- the actions: one per kind of the canonical Action ----------------------------------

    @tool_action
    def click(self, x: float | None = None, y: float | None = None, element: int | None = None) -> str:
        """Click at a point of the screen, or on an element of the a11y tree.

        Args:
            x: Horizontal pixel of the screenshot, from its left edge.
            y: Vertical pixel of the screenshot, from its top edge.
            element: Instead of x and y, the index of an element of the a11y tree ([index] at the start of its line).
        """
        arguments = {"x": x, "y": y, "element": element}
        return self._step({"name": "click", "arguments": {k: v for k, v in arguments.items() if v is not None}})

    @tool_action
    def double_click(self, x: float, y: float) -> str:
        """Double-click at a point of the screen.

        Args:
            x: Horizontal pixel of the screenshot.
            y: Vertical pixel of the screenshot.
        """
        return self._step({"name": "double_click", "arguments": {"x": x, "y": y}})

    @tool_action
    def triple_click(self, x: float, y: float) -> str:
        """Triple-click at a point of the screen (selects a line or paragraph).

        Args:
            x: Horizontal pixel of the screenshot.
            y: Vertical pixel of the screenshot.
        """
        return self._step({"name": "triple_click", "arguments": {"x": x, "y": y}})

    @tool_action
    def right_click(self, x: float, y: float) -> str:
        """Right-click at a point of the screen.

        Args:
            x: Horizontal pixel of the screenshot.
            y: Vertical pixel of the screenshot.
        """
        return self._step({"name": "right_click", "arguments": {"x": x, "y": y}})

    @tool_action
    def move(self, x: float, y: float) -> str:
        """Move the pointer to a point (hover).

        Args:
            x: Horizontal pixel of the screenshot.
            y: Vertical pixel of the screenshot.
        """
        return self._step({"name": "move", "arguments": {"x": x, "y": y}})

    @tool_action
    def long_press(self, x: float, y: float) -> str:
        """Touch a point of the screen and hold.

        Args:
            x: Horizontal pixel of the screenshot.
            y: Vertical pixel of the screenshot.
        """
        return self._step({"name": "long_press", "arguments": {"x": x, "y": y}})

    @tool_action
    def mouse_down(self) -> str:
        """Press the left mouse button where the pointer is."""
        return self._step({"name": "mouse_down", "arguments": {}})

    @tool_action
    def mouse_up(self) -> str:
        """Release the left mouse button where the pointer is."""
        return self._step({"name": "mouse_up", "arguments": {}})

    @tool_action
    def drag(self, x: float, y: float, to_x: float, to_y: float) -> str:
        """Drag from one point to another with the left button held.

        Args:
            x: Horizontal pixel where the drag starts.
            y: Vertical pixel where the drag starts.
            to_x: Horizontal pixel where it ends.
            to_y: Vertical pixel where it ends.
        """
        return self._step({"name": "drag", "arguments": {"x": x, "y": y, "to_x": to_x, "to_y": to_y}})

    @tool_action
    def swipe(self, x: float, y: float, to_x: float, to_y: float) -> str:
        """Swipe a finger from one point to another.

        Args:
            x: Horizontal pixel where the swipe starts.
            y: Vertical pixel where the swipe starts.
            to_x: Horizontal pixel where it ends.
            to_y: Vertical pixel where it ends.
        """
        return self._step({"name": "swipe", "arguments": {"x": x, "y": y, "to_x": to_x, "to_y": to_y}})

    @tool_action
    def scroll(self, direction: str, amount: int = 5, x: float | None = None, y: float | None = None) -> str:
        """Scroll, at a point or under the pointer.

        Args:
            direction: One of up, down, left, right.
            amount: Wheel notches.
            x: Horizontal pixel to scroll at (default: where the pointer is).
            y: Vertical pixel to scroll at (default: where the pointer is).
        """
        arguments = {"direction": direction, "amount": amount, "x": x, "y": y}
        return self._step({"name": "scroll", "arguments": {k: v for k, v in arguments.items() if v is not None}})

    @tool_action
    def type(self, text: str) -> str:
        """Type text where the keyboard focus is.

        Args:
            text: The characters to type; a newline presses Enter.
        """
        return self._step({"name": "type", "arguments": {"text": text}})

    @tool_action
    def key(self, key: str) -> str:
        """Press and release one key.

        Args:
            key: A key name such as enter, tab, esc, backspace, up, pagedown, f5, or one character.
        """
        return self._step({"name": "key", "arguments": {"key": key}})

    @tool_action
    def hotkey(self, keys: list) -> str:
        """Press keys together, as a chord.

        Args:
            keys: Key names in pressing order, such as ["ctrl", "c"].
        """
        return self._step({"name": "hotkey", "arguments": {"keys": keys}})

    @tool_action
    def key_down(self, key: str) -> str:
        """Hold a key down.

        Args:
            key: The key name.
        """
        return self._step({"name": "key_down", "arguments": {"key": key}})

    @tool_action
    def key_up(self, key: str) -> str:
        """Release a held key.

        Args:
            key: The key name.
        """
        return self._step({"name": "key_up", "arguments": {"key": key}})

    @tool_action
    def goto(self, text: str) -> str:
        """Open a URL in the browser.

        Args:
            text: The URL.
        """
        origin = self.env.unwrapped.suite.snapshot_origin() if self.env is not None else None
        return self._step({"name": "goto", "arguments": {"text": text.replace(SHOWN_ORIGIN, origin) if origin else text}})

    @tool_action
    def navigate_back(self) -> str:
        """Go back (the browser's or the phone's back)."""
        return self._step({"name": "navigate_back", "arguments": {}})

    @tool_action
    def navigate_home(self) -> str:
        """Go to the phone's home screen."""
        return self._step({"name": "navigate_home", "arguments": {}})

    @tool_action
    def open_app(self, text: str) -> str:
        """Open an app by its name.

        Args:
            text: The app's name.
        """
        return self._step({"name": "open_app", "arguments": {"text": text}})

    @tool_action
    def wait(self, duration_s: float = 1.0) -> str:
        """Wait, then look again.

        Args:
            duration_s: Seconds to wait.
        """
        return self._step({"name": "wait", "arguments": {"duration_s": duration_s}})

    @tool_action
    def answer(self, text: str) -> str:
        """Give the task's answer and end the episode.

        Args:
            text: The answer.
        """
        return self._step({"name": "answer", "arguments": {"text": text}})

    @tool_action
    def done(self, text: str) -> str:
        """Say the task is done, with a final message, and end the episode.

        Args:
            text: The final message (final_step ends without one).
        """
        return self._step({"name": "done", "arguments": {"text": text}})

    @tool_action
    def fail(self) -> str:
        """Say the task cannot be done (it is infeasible) and end the episode."""
        return self._step({"name": "fail", "arguments": {}})


class _DeviceTurn:
    """One task's turn on a shared device: the device's lock, held by one thread at a time."""

    _locks: dict[str, threading.Lock] = {}
    _guard = threading.Lock()
    _holders: dict[str, int] = {}

    def __init__(self, key: str, lock: threading.Lock) -> None:
        self.key, self.lock = key, lock

    @classmethod
    def take(cls, key: str) -> "_DeviceTurn":
        """Wait for the device `key` names (env id and arguments), then hold it. A thread that
        already holds it for another task gets an error rather than waiting for itself."""
        with cls._guard:
            lock = cls._locks.setdefault(key, threading.Lock())
            if cls._holders.get(key) == threading.get_ident():
                raise RuntimeError(f"this thread already holds the device of {key} for another task: close that task "
                                   "before opening one more on the same device")
        if not lock.acquire(blocking=False):
            logger.info("waiting for the device of %s: another task of this process holds it", key)
            lock.acquire()
        with cls._guard:
            cls._holders[key] = threading.get_ident()
        return cls(key, lock)

    def give_back(self) -> None:
        with self._guard:
            self._holders.pop(self.key, None)
        self.lock.release()


def _plain(info: dict[str, Any]) -> dict[str, Any]:
    """An env info as CUBE's info: the same keys, without the wall-clock timings (CUBE adds
    its own profiling)."""
    return {key: value for key, value in info.items() if not key.endswith("_time_s")}
