"""Prompt formats for VLM agents: what the model is told, and how its answer becomes an action.

Two families, both Qwen2.5-VL based and both answering in the pixels of the screenshot after
Qwen2.5-VL's `smart_resize` (older UI-TARS: a 0-1000 grid):

- ``uitars`` (UI-TARS-1.5): ``Thought: ...`` then ``Action: click(start_box='(x,y)')``. The
  answer goes to the env unchanged, as action format "uitars"; the env's parser maps the
  coordinates back to screen pixels (`gui_gym.action_formats.coords`), so the text in the
  trajectory is exactly what the model said.
- ``qwen25vl`` (Qwen2.5-VL function calling): a ``computer_use`` tool described in the system
  message; the model answers ``<tool_call>{"name": "computer_use", "arguments": {...}}</tool_call>``.
  Read here into a canonical `Action`, with the same coordinate mapping. An answer that holds
  no readable call goes to the env as it came, so it costs a step with an ``action_error``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from gui_gym.actions import DEFAULT_SCROLL_AMOUNT, MAX_OUTPUT_CHARS, Action, check_text, finite_float
from gui_gym.action_formats import uitars
from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.action_formats.reading import load_json
from gui_gym.errors import ActionParseError, AgentError, JudgeFormatError, excerpt
from gui_gym.judges.parsing import extract_json_object
from gui_gym.models.chat import Message
from gui_gym.records import ImageLike

_UITARS_ACTIONS = {
    "computer": """click(start_box='(x,y)')
left_double(start_box='(x,y)')
right_single(start_box='(x,y)')
drag(start_box='(x1,y1)', end_box='(x2,y2)')
hotkey(key='ctrl c')  # lowercase key names separated by spaces
type(content='text')  # end the content with \\n to press Enter after typing
scroll(start_box='(x,y)', direction='down')  # up, down, left or right
wait()  # let the screen change for a moment
finished(content='answer')  # the task is complete; give the answer here if the task asks a question""",
    "mobile": """click(start_box='(x,y)')
long_press(start_box='(x,y)')
type(content='text')
scroll(start_box='(x,y)', direction='down')  # up, down, left or right
open_app(app_name='name')
press_home()
press_back()
wait()
finished(content='answer')  # the task is complete; give the answer here if the task asks a question""",
}

_UITARS_PROMPT = """You operate a {platform} to carry out a user's task. Every turn shows you the current screenshot. Reply with a brief thought and then exactly one action.

## Reply format
Thought: <what the screen shows and what you do next>
Action: <one action from the list>

## Actions
{actions}

## Rules
- Coordinates are pixels of the screenshot you are shown.
- Write your thought in {language}.

## Task
{instruction}"""

_QWEN_TOOL = {
    "type": "function",
    "function": {
        "name": "computer_use",
        "description": "Act on the screen with the mouse and keyboard. Coordinates are pixels of the screenshot you are shown.",
        "parameters": {
            "type": "object",
            "required": ["action"],
            "properties": {
                "action": {"type": "string", "enum": [
                    "left_click", "double_click", "right_click", "mouse_move", "left_click_drag", "type", "key",
                    "scroll", "wait", "answer", "terminate"]},
                "coordinate": {"type": "array", "description": "[x, y] the action acts at (the drag's end)"},
                "start_coordinate": {"type": "array", "description": "[x, y] where left_click_drag starts"},
                "text": {"type": "string", "description": "text to type, or the answer"},
                "keys": {"type": "array", "description": "keys pressed together, e.g. [\"ctrl\", \"c\"]"},
                "direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
                "amount": {"type": "integer", "description": "scroll wheel notches"},
                "time": {"type": "number", "description": "seconds to wait"},
                "status": {"type": "string", "enum": ["success", "failure"]},
            },
        },
    },
}

_QWEN_SYSTEM = """You are a helpful assistant that operates a {platform} for the user.

# Tools

You may call the function below. Its signature is given inside <tools></tools> XML tags:
<tools>
{tool}
</tools>

For each turn, first write one short sentence of reasoning, then return one function call as a JSON object with the function name and arguments inside <tool_call></tool_call> XML tags:
<tool_call>
{{"name": "computer_use", "arguments": {{"action": "left_click", "coordinate": [100, 200]}}}}
</tool_call>
Call terminate with status success when the task is done, or answer when the task asks a question."""

_QWEN_USER = "Task: {instruction}"

_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)


@dataclass(frozen=True)
class PromptFormat:
    """How one model family is prompted and how its answers are read.

    `to_action(text, screen_size, coordinates)` turns an answer into what the env receives:
    text in `action_format`, or an `Action`.
    """

    name: str
    action_format: str
    system: Callable[[str, str, str], str | None]
    first_user: Callable[[str, str, str], str]
    thought: Callable[[str], str | None]
    to_action: Callable[[str, tuple[int, int], str], "Action | str"]

    def conversation(self, instruction: str, turns: Sequence[tuple[ImageLike | None, str]], screenshot: ImageLike, *,
                     platform: str = "computer", language: str = "English") -> list[Message]:
        """One step's messages, for every agent prompted in this format (the OpenAI agent, the
        VLM policy): the system prompt and first user turn for `instruction`, each earlier
        turn (its screenshot when kept, then the model's answer), then the current screenshot."""
        system = self.system(instruction, platform, language)
        messages = [Message.system(system)] if system else []
        messages.append(Message.user(self.first_user(instruction, platform, language)))
        for image, text in turns:
            if image is not None:
                messages.append(Message.user(image))
            messages.append(Message.assistant(text))
        messages.append(Message.user(screenshot))
        return messages

    def format_context(self, coordinates: str) -> dict[str, str] | None:
        """What the env's parser needs besides the action format to read this format's
        answers: UI-TARS's coordinate space (the other format's actions are read here)."""
        return {"coordinates": coordinates} if self.action_format == "uitars" else None


def with_plan(instruction: str, plan: Sequence[str] | None) -> str:
    """The instruction with an expert plan appended as numbered steps (BEPA's LEVEL-1)."""
    if not plan:
        return instruction
    return instruction + "\n\nPlan:\n" + "\n".join(f"{i}. {step}" for i, step in enumerate(plan, 1))


def _uitars_user(instruction: str, platform: str, language: str) -> str:
    return _UITARS_PROMPT.format(platform=platform, actions=_UITARS_ACTIONS[platform],
                                 language=language, instruction=instruction)


def _qwen_system(instruction: str, platform: str, language: str) -> str:
    return _QWEN_SYSTEM.format(platform=platform, tool=json.dumps(_QWEN_TOOL))


def _qwen_thought(text: str) -> str | None:
    head = text.split("<tool_call>", 1)[0].strip()
    return head or None


def read_qwen_tool_call(text: str, screen_size: tuple[int, int], coordinates: str = "smart_resize") -> Action:
    """The `Action` of a Qwen2.5-VL ``computer_use`` tool call, with coordinates mapped from
    the model's space (`coordinates`, as in `CoordinateMapping`) to screen pixels."""
    check_text(text, "the Qwen2.5-VL answer", MAX_OUTPUT_CHARS)
    match = _TOOL_CALL.search(text)
    try:
        call = extract_json_object(match.group(1) if match else text)
    except JudgeFormatError as exc:
        raise ActionParseError(f"expected a <tool_call> holding a JSON computer_use call, received {excerpt(text, 120)}") from exc
    args = call.get("arguments", call)
    if isinstance(args, str):  # some servers pass arguments as a JSON string, as OpenAI tools do
        args = load_json(args, "computer_use arguments as a JSON object")
    if not isinstance(args, dict) or "action" not in args:
        raise ActionParseError(f"expected computer_use arguments with an 'action', received {excerpt(args, 120)}")
    mapping = CoordinateMapping(coordinates, screen_size)

    def point(key: str = "coordinate") -> tuple[float, float]:
        value = args.get(key)
        if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            raise ActionParseError(f"computer_use {args['action']}: expected {key}=[x, y], received {excerpt(value)}")
        return mapping.to_screen(*(finite_float(v, f"computer_use {key}") for v in value))

    action = args["action"]
    if not isinstance(action, str):
        raise ActionParseError(f"expected computer_use's 'action' as a name, received {excerpt(action)}")
    pointer = {"left_click": "click", "double_click": "double_click", "right_click": "right_click",
               "mouse_move": "move"}
    if action in pointer:
        x, y = point()
        return Action(pointer[action], x=x, y=y)
    if action == "left_click_drag":
        (x, y), (to_x, to_y) = point("start_coordinate"), point()
        return Action.drag(x, y, to_x, to_y)
    if action == "type":
        return Action.type(str(args.get("text") or ""))
    if action == "key":
        keys = args.get("keys")
        keys = [keys] if isinstance(keys, str) else keys
        if not isinstance(keys, list) or not keys:
            raise ActionParseError(f"computer_use key: expected keys=[...], received {keys!r}")
        return Action("key" if len(keys) == 1 else "hotkey", keys=tuple(str(k) for k in keys))
    if action == "scroll":
        x, y = point() if "coordinate" in args else (None, None)
        amount = args.get("amount", DEFAULT_SCROLL_AMOUNT)
        if isinstance(amount, float) and amount.is_integer():
            amount = int(amount)
        return Action.scroll(str(args.get("direction", "")), amount, x, y)
    if action == "wait":
        return Action.wait(finite_float(args.get("time", 1.0), "computer_use wait: time"))
    if action == "answer":
        return Action.answer(str(args.get("text") or ""))
    if action == "terminate":
        return Action.done() if args.get("status", "success") == "success" else Action.fail()
    raise ActionParseError(f"unknown computer_use action {excerpt(action)}; expected one of "
                           f"{_QWEN_TOOL['function']['parameters']['properties']['action']['enum']}")


def _qwen_to_action(text: str, screen_size: tuple[int, int], coordinates: str) -> "Action | str":
    try:
        return read_qwen_tool_call(text, screen_size, coordinates)
    except ActionParseError:
        return text  # the env reports it as this step's action_error


FORMATS: dict[str, PromptFormat] = {
    "uitars": PromptFormat("uitars", "uitars", lambda *a: None, _uitars_user, uitars.thought,
                           lambda text, size, coordinates: text),
    "qwen25vl": PromptFormat("qwen25vl", "json", _qwen_system, lambda i, p, l: _QWEN_USER.format(instruction=i),
                             _qwen_thought, _qwen_to_action),
}
PLATFORMS = ("computer", "mobile")


def get_prompt_format(name: str) -> PromptFormat:
    if name not in FORMATS:
        raise AgentError(f"unknown prompt format {name!r}; expected one of {sorted(FORMATS)}")
    return FORMATS[name]
