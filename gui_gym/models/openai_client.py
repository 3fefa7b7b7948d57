"""A client of any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, hosted APIs):
the chat model of the OpenAI agent, the LVLM judges, and the VLM policy's generation server.

Images travel as base64 PNG data URLs, downscaled to `max_image_side` first: a 1920x1080
screenshot per step would otherwise blow the context and the request size. Every request has
a deadline, from connect to last byte (`gui_gym.runtime.bounded_http`: a server that trickles its
answer cannot hold a call past it), and an answer longer than `max_answer_bytes` is refused
unread. Connection failures, timeouts, 408/409/429 and 5xx answers are retried with
exponential backoff through the project's one retry helper; any other HTTP error, and an
oversized answer, is a `JudgeError` at once, since asking again would get the same answer.

Settings come from the arguments, else from the environment (the judges' variables: the
agent passes its own settings):
``GUI_GYM_JUDGE_BASE_URL`` (then ``OPENAI_BASE_URL``), ``GUI_GYM_JUDGE_MODEL``,
``GUI_GYM_JUDGE_API_KEY`` (then ``OPENAI_API_KEY``; a local server may need none).
"""

from __future__ import annotations

import base64
import os
from typing import Any, Sequence

import httpx

from gui_gym.runtime.bounded_http import AnswerTooLarge, make_client, request
from gui_gym.errors import JudgeError, JudgeFormatError, MissingResourceError, excerpt
from gui_gym.models.chat import Message, SharedOnCopy, to_png
from gui_gym.runtime.waiting import retry

BASE_URL_VARS = ("GUI_GYM_JUDGE_BASE_URL", "OPENAI_BASE_URL")
MODEL_VARS = ("GUI_GYM_JUDGE_MODEL",)
API_KEY_VARS = ("GUI_GYM_JUDGE_API_KEY", "OPENAI_API_KEY")
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_ANSWER_BYTES = 16 * 2**20
"""A chat completion is kilobytes; with token log-probs for a long answer, a few megabytes."""


class _Retryable(Exception):
    """An answer worth asking again for (rate limit, server error)."""


def from_env(value: str | None, names: Sequence[str]) -> str | None:
    """`value` when given, else the first of the environment variables `names` that is set."""
    if value:
        return value
    return next((os.environ[name] for name in names if os.environ.get(name)), None)


MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")
"""Where a request may carry the answer length cap: the classic field, or the one OpenAI's
reasoning models require."""


class OpenAIClient(SharedOnCopy):
    """Chat completions with images.

    Args:
        model: the served model's name.
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` for vLLM.
        api_key: sent as a bearer token when given.
        temperature: sampling temperature; independent judging rounds need it above 0.
        max_tokens: answer length cap.
        max_tokens_field: the request field that carries it: "max_tokens" (vLLM, SGLang, most
            servers) or "max_completion_tokens" (OpenAI's reasoning models refuse
            ``max_tokens``).
        timeout_s: the most one request may take, from connect to the answer's last byte
            (each retry gets its own).
        attempts: tries per request, transport failures and 429/5xx included.
        max_image_side: images are downscaled so neither side exceeds this many pixels.
        backoff_s: the first retry's delay; it doubles per retry (with jitter).
        extra_body: further request fields (e.g. ``{"top_p": 0.9}``).
        max_answer_bytes: a longer answer is refused (a `JudgeError`) without being read whole.

    >>> judge = OpenAIClient(model="qwen2.5-vl-7b", base_url="http://127.0.0.1:8000/v1")
    >>> judge.identity
    'openai:http://127.0.0.1:8000/v1:qwen2.5-vl-7b:t=0.7:max_tokens=1024:side=1280'
    """

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None, *,
                 temperature: float = 0.7, max_tokens: int = 1024, timeout_s: float = 60.0, attempts: int = 4,
                 max_image_side: int = 1280, backoff_s: float = 0.5, extra_body: dict[str, Any] | None = None,
                 max_answer_bytes: int = MAX_ANSWER_BYTES, max_tokens_field: str = "max_tokens"):
        self.base_url = from_env(base_url, BASE_URL_VARS)
        self.model = from_env(model, MODEL_VARS)
        if not self.base_url:
            raise MissingResourceError("no judge endpoint: pass base_url=... or set GUI_GYM_JUDGE_BASE_URL "
                                       "(e.g. http://127.0.0.1:8000/v1 for a local vLLM server)")
        if not self.model:
            raise MissingResourceError("no judge model: pass model=... or set GUI_GYM_JUDGE_MODEL to the served model's name")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"expected base_url to start with http:// or https://, received {self.base_url!r}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, received {temperature}")
        for name, value in (("max_tokens", max_tokens), ("attempts", attempts), ("max_image_side", max_image_side),
                            ("max_answer_bytes", max_answer_bytes)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, received {value}")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, received {timeout_s}")
        if max_tokens_field not in MAX_TOKENS_FIELDS:
            raise ValueError(f"max_tokens_field must be one of {list(MAX_TOKENS_FIELDS)}, received {max_tokens_field!r}")
        self.base_url = self.base_url.rstrip("/")
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.max_tokens_field = max_tokens_field
        self.attempts = int(attempts)
        self.max_image_side = int(max_image_side)
        self.backoff_s = float(backoff_s)
        self.extra_body = dict(extra_body or {})
        self.timeout_s = float(timeout_s)
        self.max_answer_bytes = int(max_answer_bytes)
        headers = {"Content-Type": "application/json"}
        key = from_env(api_key, API_KEY_VARS)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = make_client(self.base_url, headers=headers, timeout_s=self.timeout_s)
        self.identity = (f"openai:{self.base_url}:{self.model}:t={self.temperature:g}:{max_tokens_field}={self.max_tokens}"
                         f":side={self.max_image_side}")

    def complete(self, messages: Sequence[Message], *, seed: int | None = None) -> str:
        return self._answer(self.respond(messages, seed=seed))

    def respond(self, messages: Sequence[Message], *, seed: int | None = None, **fields: Any) -> dict[str, Any]:
        """The whole chat-completion response, for callers that need more than the text (the
        trainers' VLM policy reads token ids and log-probs); `fields` are added to the request (a
        ``max_tokens`` among them goes under `max_tokens_field`, as the client's own does)."""
        limit = fields.pop("max_tokens", self.max_tokens)
        body: dict[str, Any] = {"model": self.model, "messages": [self._message(m) for m in messages],
                                "temperature": self.temperature, self.max_tokens_field: limit, **self.extra_body,
                                **fields}
        if seed is not None:
            body["seed"] = int(seed)
        url = f"{self.base_url}/chat/completions"
        try:
            response = retry(lambda: self._post(url, body), attempts=self.attempts,
                             retry_on=(_Retryable, httpx.TransportError), base_delay_s=self.backoff_s)
        except (_Retryable, httpx.TransportError) as exc:
            raise JudgeError(f"judge at {url} failed after {self.attempts} attempt(s): "
                             f"{type(exc).__name__}: {exc}") from exc
        return response

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "OpenAIClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = request(self._client, "POST", url, json=body, timeout_s=self.timeout_s,
                               max_bytes=self.max_answer_bytes)
        except AnswerTooLarge as exc:
            raise JudgeError(f"judge at {url} sent an answer too large to accept: {exc} (max_answer_bytes); "
                             "a chat completion is far smaller, so the endpoint is not what it should be") from exc
        if response.status_code in RETRY_STATUS:
            raise _Retryable(f"HTTP {response.status_code}: {excerpt(response.text)}")
        if response.status_code != 200:
            raise JudgeError(f"judge at {url} refused the request: HTTP {response.status_code}: {excerpt(response.text)}")
        try:
            return response.json()
        except (ValueError, RecursionError) as exc:  # not JSON, or JSON nested too deep to read
            raise JudgeError(f"judge at {url} answered with a body that is not JSON: {excerpt(response.text)}") from exc

    def _message(self, message: Message) -> dict[str, Any]:
        if all(isinstance(part, str) for part in message.content):
            return {"role": message.role, "content": message.text}
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, str):
                parts.append({"type": "text", "text": part})
            else:
                data = base64.b64encode(to_png(part, self.max_image_side)).decode("ascii")
                parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
        return {"role": message.role, "content": parts}

    @staticmethod
    def _answer(response: dict[str, Any]) -> str:
        try:
            content = response["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise JudgeError(f"expected a chat completion with choices[0].message.content, received "
                             f"{excerpt(str(response))}") from exc
        if isinstance(content, list):  # some servers answer in content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str) or not content.strip():
            shown = repr(content) if isinstance(content, str) and len(content) <= 200 else excerpt(content)
            raise JudgeFormatError(f"expected a non-empty text answer, received {shown}", str(content))
        # A lone surrogate (half an emoji, split by a server's tokenizer) is no text: it could not be
        # sent back in the next request of a conversation, nor written to a file. "?" stands for it.
        return content.encode("utf-8", "replace").decode("utf-8")

    def post(self, path: str, body: dict[str, Any], *, timeout_s: float = 60.0) -> httpx.Response:
        """POST `body` to `path` under the API root with this client's headers (a vLLM
        server's adapter endpoints, ``/load_lora_adapter``); the response as it came, read
        within `timeout_s` and at most `max_answer_bytes` long (else `AnswerTooLarge`)."""
        return request(self._client, "POST", f"{self.base_url}/{path.lstrip('/')}", json=body,
                       timeout_s=timeout_s, max_bytes=self.max_answer_bytes)


def discover_model(base_url: str, api_key: str | None = None, *, timeout_s: float = 60.0,
                   attempts: int = 4) -> str:
    """The first model ``{base_url}/models`` lists (a vLLM or SGLang server serves one), with
    the retries every request gets and the bounded read of every answer; `JudgeError` when
    none is listed."""
    url = f"{base_url.rstrip('/')}/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def get() -> dict[str, Any]:
        with make_client(url, headers=headers, timeout_s=timeout_s) as client:
            response = request(client, "GET", url, timeout_s=timeout_s, max_bytes=MAX_ANSWER_BYTES)
        response.raise_for_status()
        return response.json()
    try:
        listing = retry(get, attempts=attempts, retry_on=(httpx.TransportError,), base_delay_s=0.5)
        return str(listing["data"][0]["id"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:  # AnswerTooLarge included
        raise JudgeError(f"{url} did not list a model ({type(exc).__name__}: {exc})") from exc
