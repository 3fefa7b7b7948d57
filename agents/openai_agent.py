"""`OpenAIAgent`: a VLM behind any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs).

Each turn sends the task prompt, the conversation so far and the current screenshot; only the
last `history_images` screenshots travel as images (older turns keep their text), which bounds
the request while the model still reads its own earlier reasoning. Screenshots are sent at
full resolution on purpose: the model answers in the pixels of the image its server resized
with `smart_resize`, and the env maps those back to the screen exactly only if the image was
not resized on the way (see `gui_gym.action_formats.coords`).

The prompt is its format's conversation (`gui_gym.agents.prompts`), as the VLM policy's is; the HTTP
side is the shared OpenAI-compatible client (`gui_gym.models.openai_client`): every request
has a timeout, and transport failures, 429 and 5xx are retried with backoff. An
endpoint that stays down is an `AgentError`, which the harness records as an error, not as a
failed task.

Settings come from the arguments, else the environment: ``GUI_GYM_AGENT_BASE_URL`` (then
``OPENAI_BASE_URL``), ``GUI_GYM_AGENT_API_KEY`` (then ``OPENAI_API_KEY``), ``GUI_GYM_AGENT_MODEL``;
without a model name the agent asks the server's ``/models`` and takes the first (a vLLM or
SGLang server serves one).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from gui_gym.agents.base import BaseAgent
from gui_gym.agents.prompts import PLATFORMS, get_prompt_format
from gui_gym.action_formats.coords import MODES
from gui_gym.actions import Action
from gui_gym.errors import AgentError, JudgeError
from gui_gym.models.chat import Message, transcript
from gui_gym.models.openai_client import MAX_TOKENS_FIELDS, OpenAIClient, discover_model, from_env

BASE_URL_VARS = ("GUI_GYM_AGENT_BASE_URL", "OPENAI_BASE_URL")
API_KEY_VARS = ("GUI_GYM_AGENT_API_KEY", "OPENAI_API_KEY")
MODEL_VARS = ("GUI_GYM_AGENT_MODEL",)
FULL_RESOLUTION = 1 << 16
"""Image side cap given to the client: larger than any screen, so nothing is downscaled."""


class OpenAIAgent(BaseAgent):
    """A VLM agent over an OpenAI-compatible chat-completions API.

    Args:
        model: served model name; discovered from ``/models`` when omitted.
        base_url: API root, e.g. ``http://127.0.0.1:8000/v1``.
        api_key: bearer token, when the server wants one.
        prompt: "uitars" (UI-TARS-1.5) or "qwen25vl" (Qwen2.5-VL function calling).
        coordinates: the model's coordinate space: "smart_resize" (UI-TARS-1.5, Qwen2.5-VL),
            "relative1000" (older UI-TARS), "absolute", "normalized".
        history_images: screenshots sent per request, the current one included.
        platform: "computer" or "mobile" (the action list the prompt offers).
        language: language of the model's thoughts.
        temperature, max_tokens: sampling settings.
        max_tokens_field: "max_tokens" (the default; vLLM and most servers) or
            "max_completion_tokens" (OpenAI's reasoning models, which refuse ``max_tokens``).
        timeout_s: per-request timeout.
        attempts: tries per request.
        extra_body: further request fields (e.g. ``{"top_p": 0.9}``).
    """

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 prompt: str = "uitars", coordinates: str = "smart_resize", history_images: int = 3,
                 platform: str = "computer", language: str = "English", temperature: float = 0.0,
                 max_tokens: int = 512, timeout_s: float = 60.0, attempts: int = 4,
                 extra_body: dict[str, Any] | None = None, max_tokens_field: str = "max_tokens"):
        super().__init__()
        self.prompt = get_prompt_format(prompt)
        if coordinates not in MODES:
            raise AgentError(f"openai agent: coordinates must be one of {list(MODES)}, received {coordinates!r}")
        if platform not in PLATFORMS:
            raise AgentError(f"openai agent: platform must be one of {list(PLATFORMS)}, received {platform!r}")
        if not isinstance(history_images, int) or history_images < 1:
            raise AgentError(f"openai agent: history_images must be an int >= 1, received {history_images!r}")
        for name, value, low in (("temperature", temperature, 0), ("max_tokens", max_tokens, 1),
                                 ("timeout_s", timeout_s, 1e-9), ("attempts", attempts, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
                raise AgentError(f"openai agent: {name} must be a number >= {low:g}, received {value!r}")
        self.base_url = from_env(base_url, BASE_URL_VARS)
        if not self.base_url:
            raise AgentError("openai agent: no endpoint; pass --agent-arg base_url=http://HOST:PORT/v1 "
                             f"or set {BASE_URL_VARS[0]} (or {BASE_URL_VARS[1]})")
        self.model = from_env(model, MODEL_VARS)
        self.api_key = from_env(api_key, API_KEY_VARS)
        self.coordinates, self.history_images = coordinates, history_images
        self.platform, self.language = platform, language
        self.timeout_s, self.attempts = float(timeout_s), int(attempts)
        if max_tokens_field not in MAX_TOKENS_FIELDS:
            raise AgentError(f"openai agent: max_tokens_field must be one of {list(MAX_TOKENS_FIELDS)}, "
                             f"received {max_tokens_field!r}")
        self._client_settings = {"temperature": temperature, "max_tokens": max_tokens, "timeout_s": timeout_s,
                                 "attempts": attempts, "max_image_side": FULL_RESOLUTION, "extra_body": extra_body,
                                 "max_tokens_field": max_tokens_field}
        self.action_format = self.prompt.action_format
        self.format_context = self.prompt.format_context(coordinates)
        self._client: OpenAIClient | None = None
        self._instruction = ""
        self._turns: list[tuple[bytes | None, str]] = []

    def reset(self, task_info: dict[str, Any]) -> None:
        super().reset(task_info)
        self._instruction = str(task_info.get("instruction") or "")
        self._turns = []

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> "Action | str":
        screenshot = obs["screenshot"]
        png = _png(screenshot)
        messages = self._messages(png)
        self.last_prompt = transcript(messages)
        text = self._complete(messages)
        self._turns.append((png, text))
        if len(self._turns) >= self.history_images:  # drop images that will leave the window
            _, old_text = self._turns[-self.history_images]
            self._turns[-self.history_images] = (None, old_text)
        self.last_response, self.last_thought = text, self.prompt.thought(text)
        height, width = screenshot.shape[:2]
        return self.prompt.to_action(text, (width, height), self.coordinates)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # ---- internals ----------------------------------------------------------------------

    def _messages(self, current_png: bytes) -> list[Message]:
        return self.prompt.conversation(self._instruction, self._turns, current_png, platform=self.platform,
                                        language=self.language)

    def _complete(self, messages: list[Message]) -> str:
        try:
            return self._chat_client().complete(messages)
        except JudgeError as exc:
            raise AgentError(f"model endpoint {self.base_url}: {exc}") from exc

    def _chat_client(self) -> OpenAIClient:
        if self._client is None:
            model = self.model or self._discover_model()
            self.model = model
            self._client = OpenAIClient(model=model, base_url=self.base_url, api_key=self.api_key or None,
                                       **self._client_settings)
        return self._client

    def _discover_model(self) -> str:
        try:
            return discover_model(self.base_url, self.api_key, timeout_s=self.timeout_s, attempts=self.attempts)
        except JudgeError as exc:
            raise AgentError(f"openai agent: no model given and {exc}; pass --agent-arg model=NAME or set "
                             f"{MODEL_VARS[0]}") from exc


def _png(image: np.ndarray) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
