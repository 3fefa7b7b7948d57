"""Chat models: what agents, judges and trainable policies send messages of text and images
to, and read answers (and, for a policy, token ids and log-probs) from.

- `chat` (`gui_gym.models.chat`): the `Message` type, the `ChatModel` protocol (messages in,
  text out, an `identity` a cache keys on) and the image helpers (capped PNG, digests);
- `OpenAIClient` (`gui_gym.models.openai_client`): any OpenAI-compatible chat-completions
  endpoint (vLLM, SGLang, hosted APIs), with timeouts and retries;
- `TransformersModel` and `QwenVL` (`gui_gym.models.transformers_model`): a local
  Qwen-VL-family checkpoint in-process (torch is imported only when one is built).

Each loads on first use, so ``import gui_gym.models`` imports no HTTP client or torch.
"""

from __future__ import annotations

from gui_gym.lazy_names import lazy_names

_LAZY: dict[str, str] = {
    "ChatModel": "gui_gym.models.chat",
    "Message": "gui_gym.models.chat",
    "OpenAIClient": "gui_gym.models.openai_client",
    "TransformersModel": "gui_gym.models.transformers_model",
    "QwenVL": "gui_gym.models.transformers_model",
}
"""Public name -> the module defining it."""

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names(__name__, _LAZY)
