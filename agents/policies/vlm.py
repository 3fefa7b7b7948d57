"""`VLMPolicy`: a Qwen2.5-VL-family checkpoint (Qwen2.5-VL, UI-TARS-1.5, OpenCUA) as a
trainable agent, prompted as the OpenAI agent is (`gui_gym.agents.prompts`, UI-TARS by default).

A step's prompt is its prompt format's conversation (the one the OpenAI agent sends) for the
instruction (BEPA's LEVEL-1 appends the plan), the model's own last `history_turns` answers
as assistant turns, the last `history_images` of them preceded by the screenshot they
answered (UI-TARS and ARPO keep several), and the current screenshot (kept as PNG bytes,
downscaled to `max_image_side`). The model's inputs are assembled by `QwenVL`, the same code the
transformers chat model uses; a generation server is reached through the same
OpenAI-compatible client as the OpenAI agent's (`gui_gym.models.openai_client`).

Generation runs in-process with transformers, sampling from softmax(logits / temperature)
with no top-k / top-p, so the recorded log-probs are those of the distribution the loss
assumes; or on an OpenAI-compatible server (vLLM on a GPU: ``server_url``), which returns
token ids and log-probs (vLLM's ``return_tokens_as_token_ids``). Either way the loss's
log-probs come from a teacher-forced forward pass of the local model (verl recomputes them
too). LoRA (peft) is optional; with a server, `sync_server` pushes the adapter to vLLM's
``/v1/load_lora_adapter`` after each update, so the server samples from the current weights.

Training on a server's samples is only honest when the server samples from the weights being
trained and sees the same visual tokens: `check_trainable` (called by the trainers at start)
refuses a server policy whose weights are never pushed (no LoRA, or no ``server_sync_dir``)
unless ``allow_stale_server`` says so, and compares the server's prompt-token count for probe
screenshots with the local processor's (a different min/max pixels setting gives other
image tokens, so the recomputed log-probs would condition on another input). A wave's
generation requests go to the server together (`generate_many`), so vLLM batches them.
"""

from __future__ import annotations

import copy
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import torch

from gui_gym.agents.base import Act, Context, PolicyAgent
from gui_gym.agents.prompts import PLATFORMS, get_prompt_format, with_plan
from gui_gym.action_formats import format_action
from gui_gym.action_formats.coords import MODES
from gui_gym.actions import Action
from gui_gym.errors import ActionParseError, AgentError, JudgeError, MissingResourceError
from gui_gym.models.chat import Message, to_png
from gui_gym.models.openai_client import OpenAIClient, discover_model
from gui_gym.models.transformers_model import QwenVL

logger = logging.getLogger(__name__)

PROBE_SIZES = ((1280, 800), (64, 40))
"""Probe screenshot sizes (width, height) for the server's image-token check: one above a
typical max_pixels, one below a typical min_pixels, so both bounds are compared."""

LORA_DEFAULTS = {"r": 16, "lora_alpha": 32, "lora_dropout": 0.0,
                 "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
"""LoRA on the language model's attention projections (the vision tower stays frozen)."""


@dataclass(frozen=True)
class VLMPrompt:
    """One step's conversation and the screen size its coordinates refer to."""

    messages: tuple[Message, ...]
    screen_size: tuple[int, int]


class VLMPolicy(PolicyAgent):
    """A Qwen-VL-family checkpoint as a `TrainableAgent`.

    Args:
        model_path: a local checkpoint folder (``save_pretrained`` layout).
        device, dtype: where and in what precision the model runs.
        lora: None for full fine-tuning, or peft LoraConfig fields (merged over `LORA_DEFAULTS`).
        temperature: sampling temperature (also applied to the log-probs, as verl does).
        max_new_tokens: answer length cap.
        max_image_side: screenshots are downscaled so neither side exceeds this.
        history_turns: earlier answers kept in the prompt.
        history_images: of those turns, how many of the latest keep the screenshot they
            answered (0: only the current screenshot). Each costs its image tokens.
        input_cache: prompts whose processed model inputs are kept (on the CPU, pixels in the
            model's dtype: ~12 MB per 1280x800 screenshot in bf16). A step's prompt is read by
            generation, the old log-probs, every epoch and the reference; its screenshot's
            preprocessing (~0.25 s on a CPU core, longer than a GPU forward pass) then runs
            once instead of each time. Size it to an iteration's steps; 0 turns it off.
        prompt: the agents' prompt format ("uitars" or "qwen25vl").
        coordinates: the model's coordinate space (see `gui_gym.action_formats.coords`).
        platform: "computer" or "mobile" (the action list the prompt offers).
        language: language of the model's thoughts.
        server_url: an OpenAI-compatible server (vLLM) that generates; None generates locally.
        server_model: the served model name, or, with `server_sync_dir`, the adapter's name.
        server_sync_dir: with LoRA and a server: where the adapter is saved for the server,
            which loads it at the start and after every update (`after_update`).
        allow_stale_server: train on a server's samples although its weights are never updated
            (deliberately off-policy: the server keeps sampling from the weights it loaded).
        gradient_checkpointing: recompute the language model's activations in the backward
            pass instead of keeping them (transformers' non-reentrant checkpointing): the
            activation memory of a step drops from every layer's to about one layer's.
        greedy: how `act` (``gui-bench``) chooses: the most likely answer, or a sample.
        checkpoint: a folder `save` wrote (a ``gui-train`` checkpoint) to start from.
    """

    TRAINER_DEFAULTS = {"learning_rate": 1e-6, "micro_batch_steps": 1}
    """What ``gui-train --policy vlm`` trains with unless told otherwise: a step size for a
    multi-billion-parameter model (the trainers' own 1e-2 suits the element policy and would
    wreck a VLM in a few updates) and one step per forward/backward pass (a whole minibatch of
    a 7B VLM's steps in one pass needs ~225 GiB; docs/training.md, Sizing a 7B policy)."""

    def __init__(self, model_path: str, *, device: str = "cpu", dtype: str = "auto", lora: Mapping[str, Any] | None = None,
                 temperature: float = 1.0, max_new_tokens: int = 128, max_image_side: int = 1280,
                 history_turns: int = 2, history_images: int = 0, input_cache: int = 128, prompt: str = "uitars", coordinates: str = "smart_resize",
                 platform: str = "computer", language: str = "English", server_url: str | None = None,
                 server_model: str | None = None, server_sync_dir: str | None = None,
                 allow_stale_server: bool = False, gradient_checkpointing: bool = False, greedy: bool = True,
                 checkpoint: str | None = None):
        super().__init__()
        if (temperature <= 0 or max_new_tokens < 1 or max_image_side < 1 or history_turns < 0 or history_images < 0
                or input_cache < 0):
            raise ValueError(f"expected temperature > 0, max_new_tokens >= 1, max_image_side >= 1, history_turns >= 0, "
                             f"history_images >= 0, input_cache >= 0, received {temperature}, {max_new_tokens}, "
                             f"{max_image_side}, {history_turns}, {history_images}, {input_cache}")
        if coordinates not in MODES:
            raise AgentError(f"coordinates must be one of {list(MODES)}, received {coordinates!r}")
        if platform not in PLATFORMS:
            raise AgentError(f"platform must be one of {list(PLATFORMS)}, received {platform!r}")
        self.qwen = QwenVL(model_path, device=device, dtype=dtype)
        self.model = self.qwen.model
        self.gradient_checkpointing = bool(gradient_checkpointing)
        if self.gradient_checkpointing:
            if hasattr(self.model, "activation_checkpointing_enable"):  # transformers >= 5.x's name
                self.model.activation_checkpointing_enable({"use_reentrant": False})
            else:
                self.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        self.lora = dict(LORA_DEFAULTS, **lora) if lora is not None else None
        if self.lora is not None:
            try:
                from peft import LoraConfig, get_peft_model
            except ImportError as exc:
                raise MissingResourceError(f"lora needs peft ({exc}); pip install 'gui-gym[train]'") from exc
            self.model = get_peft_model(self.model, LoraConfig(**self.lora))
        self.format = get_prompt_format(prompt)
        self.action_format = self.format.action_format
        self.format_context = self.format.format_context(coordinates)
        self.coordinates, self.platform, self.language, self.greedy = coordinates, platform, language, bool(greedy)
        self.temperature, self.max_new_tokens = float(temperature), int(max_new_tokens)
        self.max_image_side, self.history_turns = int(max_image_side), int(history_turns)
        self.history_images, self.allow_stale_server = int(history_images), bool(allow_stale_server)
        self.input_cache = int(input_cache)
        self._inputs: OrderedDict[VLMPrompt, dict[str, Any]] = OrderedDict()
        self._server = None
        if server_url is not None:
            if server_model is None and server_sync_dir is None:
                try:
                    server_model = discover_model(server_url)
                except JudgeError as exc:
                    raise AgentError(f"vlm policy: no server_model given and {exc}") from exc
            self._server = OpenAIClient(server_model, server_url, temperature=self.temperature,
                                        max_tokens=self.max_new_tokens, max_image_side=self.max_image_side)
        self.server_sync_dir = server_sync_dir
        if checkpoint is not None:
            self.load(checkpoint)
        if server_sync_dir is not None:
            self.after_update()

    # ---- the TrainableAgent protocol ------------------------------------------------------

    def prompt(self, obs: Mapping[str, Any], context: Context) -> VLMPrompt:
        screenshot = obs["screenshot"]
        earlier = context.history[-self.history_turns:] if self.history_turns else ()
        with_image = len(earlier) - self.history_images  # turns from this index on keep their screenshot
        messages = self.format.conversation(with_plan(context.instruction, context.plan),
                                            [(act.detail if i >= with_image else None, act.text)
                                             for i, act in enumerate(earlier)],
                                            to_png(screenshot, self.max_image_side), platform=self.platform,
                                            language=self.language)
        height, width = screenshot.shape[:2]
        return VLMPrompt(tuple(messages), (width, height))

    def generate(self, prompt: VLMPrompt, *, greedy: bool = False) -> Act:
        token_ids, logprobs = self._generate_on_server(prompt, greedy) if self._server else self._generate(prompt, greedy)
        text = self.qwen.tokenizer.decode(token_ids, skip_special_tokens=True)
        action = self.format.to_action(text, prompt.screen_size, self.coordinates)
        # the screenshot it answered is the Act's detail: later prompts show it (history_images)
        return Act(action, text, tuple(token_ids), tuple(logprobs), detail=prompt.messages[-1].images[0])

    def generate_many(self, prompts: Sequence[VLMPrompt], *, greedy: bool = False) -> list[Act]:
        """`generate` for each prompt: on a server, the requests are sent together (one thread
        each), so the server batches a wave's G generations; locally, one after another in
        order (seeded sampling stays reproducible)."""
        if self._server is None or len(prompts) < 2:
            return [self.generate(prompt, greedy=greedy) for prompt in prompts]
        with ThreadPoolExecutor(max_workers=len(prompts), thread_name_prefix="vlm-generate") as threads:
            return list(threads.map(lambda prompt: self.generate(prompt, greedy=greedy), prompts))

    def expert_act(self, prompt: VLMPrompt, action: Action) -> Act | None:
        """An expert's `action` as this policy would answer it: the UI-TARS answer
        (``Action: click(start_box='(x,y)')``, points in the model's coordinate space, the inverse
        of how the env reads the policy's answers) and its tokens ending with the end token, as
        a generated answer ends; supervised pretraining on an expert (`gui_gym.trainers.sft`) trains on
        these tokens. None when the prompt format has no writer (only UI-TARS has one) or the
        action cannot be written in it (an element id, a right-button click)."""
        if self.action_format != "uitars":
            return None
        try:
            text = format_action(action, "uitars", screen_size=prompt.screen_size, coordinates=self.coordinates)
        except ActionParseError:
            return None
        tokenizer = self.qwen.tokenizer
        token_ids = tuple(tokenizer(text, add_special_tokens=False)["input_ids"]) + (tokenizer.eos_token_id,)
        return Act(self.format.to_action(text, prompt.screen_size, self.coordinates), text, token_ids,
                   (0.0,) * len(token_ids), detail=prompt.messages[-1].images[0])

    def logprobs(self, prompts: Sequence[VLMPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        return self.logprobs_and_entropies(prompts, token_ids, entropies=False)[0]

    def entropies(self, prompts: Sequence[VLMPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        return self.logprobs_and_entropies(prompts, token_ids)[1]

    def logprobs_and_entropies(self, prompts: Sequence[VLMPrompt], token_ids: Sequence[Sequence[int]], *,
                               entropies: bool = True) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """Per prompt, the log-probs of its tokens and the entropy of the distribution each was
        drawn from (softmax(logits / temperature)), both from one forward pass, with
        gradients; each entropy is an empty tensor when `entropies` is False."""
        if len(prompts) != len(token_ids):
            raise ValueError(f"expected one token list per prompt, received {len(token_ids)} for {len(prompts)}")
        pairs = [self._sequence_logprobs(self.model, prompt, tokens, entropies=entropies)
                 for prompt, tokens in zip(prompts, token_ids)]
        return [logp for logp, _ in pairs], [entropy for _, entropy in pairs]

    def check_trainable(self) -> None:
        """Called by the trainers before the first rollout: a server policy must sample from
        the weights being trained (or say it knows it does not) and see the screenshots as
        the local processor does."""
        if self._server is None:
            return
        if (self.lora is None or self.server_sync_dir is None) and not self.allow_stale_server:
            raise AgentError(
                "vlm policy: the server's weights would never be updated, so training would keep sampling from the "
                "weights the server loaded. Pass lora={...} and server_sync_dir=FOLDER (vLLM started with "
                "--enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True loads the adapter after every update), or "
                "generate locally (no server_url), or allow_stale_server=True to train on the server's fixed "
                "weights on purpose")
        self.check_server_images()

    def check_server_images(self) -> None:
        """Compare the server's prompt-token count (``usage.prompt_tokens``) for probe
        screenshots with the local processor's: a difference means the server turns images
        into other visual tokens (its min/max pixels differ), and `AgentError` says what to
        start it with."""
        for width, height in PROBE_SIZES:
            screen = np.full((height, width, 3), 127, np.uint8)
            prompt = self.prompt({"screenshot": screen}, Context("probe"))
            local = int(self._model_inputs(prompt)["input_ids"].shape[1])
            response = self._server.respond(prompt.messages, max_tokens=1, temperature=0.0)
            served = (response.get("usage") or {}).get("prompt_tokens")
            if served is None:
                raise AgentError(f"{self._server.base_url} reported no usage.prompt_tokens, so its image tokens "
                                 "cannot be checked against the local processor's")
            if int(served) != local:
                low, high = self._pixel_bounds()
                raise AgentError(
                    f"the server counts {served} prompt tokens for a {width}x{height} probe screenshot, the local "
                    f"processor {local}: the server sees other image tokens than the log-probs are recomputed on. "
                    f"Start vLLM with --mm-processor-kwargs '{{\"min_pixels\": {low}, \"max_pixels\": {high}}}' "
                    f"(the local processor's), or save the checkpoint's preprocessor_config.json with the server's")

    def _pixel_bounds(self) -> tuple[int | None, int | None]:
        """The local image processor's min and max pixels (transformers 5 keeps them as the
        size's shortest and longest edge)."""
        processor = self.qwen.image_processor
        size = getattr(processor, "size", None) or {}
        low = getattr(processor, "min_pixels", None) or getattr(size, "shortest_edge", None)
        high = getattr(processor, "max_pixels", None) or getattr(size, "longest_edge", None)
        return low, high

    def parameters(self) -> Iterator[torch.nn.Parameter]:
        return (p for p in self.model.parameters() if p.requires_grad)

    def reference(self) -> "_Reference":
        """The starting weights: the base model with the adapter switched off (LoRA), or a
        frozen copy (full fine-tuning)."""
        return _Reference(self)

    def save(self, folder: str) -> None:
        """LoRA: the adapter (peft layout); full: a complete checkpoint folder."""
        self.model.save_pretrained(folder)
        if self.lora is None:
            self.qwen.tokenizer.save_pretrained(folder)
            self.qwen.image_processor.save_pretrained(folder)

    def load(self, folder: str) -> None:
        if self.lora is not None:
            from peft import set_peft_model_state_dict
            from safetensors.torch import load_file

            set_peft_model_state_dict(self.model, load_file(str(Path(folder) / "adapter_model.safetensors")))
        else:
            self.model.load_state_dict(type(self.model).from_pretrained(folder).state_dict())

    def after_update(self) -> None:
        """Called by the trainer after each update: a served LoRA policy pushes its adapter."""
        if self.server_sync_dir is not None:
            self.sync_server(self.server_sync_dir, self._server.model if self._server else "")

    def sync_server(self, folder: str, adapter_name: str) -> None:
        """Save the LoRA adapter to `folder` and have the vLLM server load it as
        `adapter_name` (vLLM with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``); later requests
        generate with it."""
        if self._server is None or self.lora is None:
            raise AgentError("sync_server needs a server_url and a LoRA policy: a server serves full weights "
                             "it loaded itself")
        self.model.save_pretrained(folder)
        root = self._server.base_url
        response = self._server.post("unload_lora_adapter", {"lora_name": adapter_name})
        if response.status_code not in (200, 404, 400):
            raise AgentError(f"{root}/unload_lora_adapter answered HTTP {response.status_code}: {response.text[:200]}")
        response = self._server.post("load_lora_adapter", {"lora_name": adapter_name, "lora_path": str(folder)})
        if response.status_code != 200:
            raise AgentError(f"{root}/load_lora_adapter answered HTTP {response.status_code}: {response.text[:200]}")
        self._server.model = adapter_name

    # ---- internals ------------------------------------------------------------------------

    def _model_inputs(self, prompt: VLMPrompt) -> dict[str, Any]:
        """`prompt`'s model inputs on the model's device, from the cache when it holds them."""
        cached = self._inputs.get(prompt)
        if cached is None:
            cached = self.qwen.inputs(prompt.messages, max_image_side=self.max_image_side, device="cpu")
            if "pixel_values" in cached:
                cached["pixel_values"] = cached["pixel_values"].to(self.model.dtype)  # what the vision tower casts to
            if self.input_cache:
                self._inputs[prompt] = cached
                while len(self._inputs) > self.input_cache:
                    self._inputs.popitem(last=False)
        else:
            self._inputs.move_to_end(prompt)
        return {key: value.to(self.qwen.device) for key, value in cached.items()}

    def _generate(self, prompt: VLMPrompt, greedy: bool) -> tuple[list[int], list[float]]:
        inputs = self._model_inputs(prompt)
        # Every sampling setting is pinned: a checkpoint's generation_config (a repetition
        # penalty, top-k) would otherwise reshape the distribution the tokens are drawn from, and
        # the recorded log-probs (from the plain softmax below) would not be theirs.
        sampling = ({"do_sample": False} if greedy else {"do_sample": True, "temperature": self.temperature,
                                                          "top_k": 0, "top_p": 1.0})
        sampling["repetition_penalty"] = 1.0
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, output_logits=True,
                                      return_dict_in_generate=True, **sampling)
        start = inputs["input_ids"].shape[1]
        tokens = out.sequences[0, start:].tolist()
        eos = self.qwen.tokenizer.eos_token_id
        if eos in tokens:
            tokens = tokens[:tokens.index(eos) + 1]  # the end token is the model's output too, and trained
        logits = torch.stack(out.logits[:len(tokens)], dim=1)[0].float() / self.temperature
        logprobs = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(tokens).unsqueeze(1)).squeeze(1)
        return tokens, logprobs.tolist()

    def _generate_on_server(self, prompt: VLMPrompt, greedy: bool) -> tuple[list[int], list[float]]:
        fields: dict[str, Any] = {"logprobs": True, "return_tokens_as_token_ids": True, "top_p": 1.0, "top_k": -1,
                                  "repetition_penalty": 1.0}  # vLLM would apply the checkpoint's generation_config
        if greedy:
            fields["temperature"] = 0.0
        response = self._server.respond(prompt.messages, **fields)
        try:
            content = response["choices"][0]["logprobs"]["content"]
            tokens = [int(str(item["token"]).split("token_id:", 1)[1]) for item in content]
            logprobs = [float(item["logprob"]) for item in content]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise AgentError(f"expected per-token logprobs with 'token_id:N' tokens from {self._server.base_url} "
                             "(vLLM: return_tokens_as_token_ids), received "
                             f"{str(response)[:200]}") from exc
        return tokens, logprobs

    def _sequence_logprobs(self, model: Any, prompt: VLMPrompt, tokens: Sequence[int], *,
                           entropies: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """log p(tokens | prompt) by one teacher-forced forward pass, and (asked for) the
        entropy of each token's distribution from the same logits; an empty tensor if not."""
        inputs = self._model_inputs(prompt)
        start = inputs["input_ids"].shape[1]
        answer = torch.tensor([list(tokens)], dtype=inputs["input_ids"].dtype, device=inputs["input_ids"].device)
        inputs["input_ids"] = torch.cat([inputs["input_ids"], answer], dim=1)
        inputs["attention_mask"] = torch.ones_like(inputs["input_ids"])
        if self.gradient_checkpointing:  # transformers checkpoints only in training mode (Qwen has no dropout)
            model.train(torch.is_grad_enabled())
        logits = model(**inputs, use_cache=False).logits[0, start - 1:start - 1 + len(tokens)].float() / self.temperature
        log_probs = torch.log_softmax(logits, dim=-1)
        chosen = log_probs.gather(1, answer[0].unsqueeze(1)).squeeze(1)
        entropy = -(log_probs.exp() * log_probs).sum(dim=-1) if entropies else chosen.new_zeros(0)
        return chosen, entropy


class _Reference:
    """The frozen starting policy, for the KL term: only `logprobs` is asked of it."""

    def __init__(self, policy: VLMPolicy):
        self.policy = policy
        self.frozen = None if policy.lora is not None else copy.deepcopy(policy.model).requires_grad_(False)

    def logprobs(self, prompts: Sequence[VLMPrompt], token_ids: Sequence[Sequence[int]]) -> list[torch.Tensor]:
        with torch.no_grad():
            if self.frozen is not None:
                return [self.policy._sequence_logprobs(self.frozen, p, t)[0] for p, t in zip(prompts, token_ids)]
            with self.policy.model.disable_adapter():
                return [self.policy._sequence_logprobs(self.policy.model, p, t)[0] for p, t in zip(prompts, token_ids)]
