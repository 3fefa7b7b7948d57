"""A chat model run in-process from a local Qwen-VL-family checkpoint (Qwen2-VL, Qwen2.5-VL and
their fine-tunes: UI-TARS-1.5, OpenCUA), through transformers' ``from_pretrained``.

torch and transformers are imported when a `TransformersModel` is built, never with
``gui_gym``. The inputs are assembled from the checkpoint's tokenizer (and its chat
template) and image processor, with each image placeholder expanded to the image's token
count, as the Qwen-VL processors do: the full ``AutoProcessor`` of these models also loads a
video processor that needs torchvision, which a reader of screenshots has no use for. That
assembly (`QwenVL`) is shared with the trainers' VLM policy.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from gui_gym.errors import JudgeError, MissingResourceError
from gui_gym.models.chat import Message, SharedOnCopy, to_pil

INSTALL_HINT = "install the training extra: pip install 'gui-gym[train]'"


def hf_chat(messages: Sequence[Message], max_image_side: int) -> tuple[list[dict[str, Any]], list[Any]]:
    """`messages` as a Hugging Face chat (``{"role", "content": [{"type": "text", ...},
    {"type": "image", "image": PIL}]}``) and its images in order, each downscaled so neither
    side exceeds `max_image_side`: what `QwenVL` renders and what the verl agent loop hands
    verl's processor, so both see the same pixels."""
    chat: list[dict[str, Any]] = []
    images = []
    for message in messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, str):
                content.append({"type": "text", "text": part})
            else:
                picture = to_pil(part)
                picture.thumbnail((max_image_side, max_image_side))
                images.append(picture)
                content.append({"type": "image", "image": picture})
        chat.append({"role": message.role, "content": content})
    return chat, images


class QwenVL:
    """A loaded Qwen-VL-family checkpoint and the assembly of its inputs from chat messages:
    shared by `TransformersModel` and the trainers' VLM policy, so both read a conversation
    with images the same way.

    Args:
        model_path: a folder holding config, weights, tokenizer (with a chat template) and
            image processor, as ``save_pretrained`` writes them.
        device: torch device ("cpu", "cuda", "cuda:1", ...).
        dtype: torch dtype name ("float32", "bfloat16", ...); "auto" keeps the checkpoint's.
    """

    def __init__(self, model_path: str | os.PathLike[str], *, device: str = "cpu", dtype: str = "auto"):
        path = Path(model_path)
        if not (path / "config.json").is_file():
            raise MissingResourceError(f"no checkpoint at {path}: expected a folder with config.json, weights, "
                                       "tokenizer and image processor (as save_pretrained writes them)")
        try:
            import torch
            from transformers import AutoImageProcessor, AutoModelForImageTextToText, AutoTokenizer
        except ImportError as exc:
            raise MissingResourceError(f"a local Qwen-VL model needs torch and transformers ({exc}); {INSTALL_HINT}") from exc
        self.torch = torch
        self.path = path
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.image_processor = AutoImageProcessor.from_pretrained(path)
        kwargs: dict[str, Any] = {} if dtype == "auto" else {"dtype": getattr(torch, dtype)}
        self.model = AutoModelForImageTextToText.from_pretrained(path, **kwargs).to(device).eval()
        image_token_id = getattr(self.model.config, "image_token_id", None)
        merge_size = getattr(self.image_processor, "merge_size", None)
        if image_token_id is None or merge_size is None:
            raise MissingResourceError(f"{path} is not a Qwen-VL-family checkpoint: expected config.image_token_id and "
                                       "an image processor with merge_size")
        self.image_token = self.tokenizer.convert_ids_to_tokens(int(image_token_id))
        self.merge_size = int(merge_size)
        self.device = device

    def inputs(self, messages: Sequence[Message], *, max_image_side: int, device: str | None = None) -> dict[str, Any]:
        """The model's inputs for `messages` followed by the assistant's turn: ``input_ids``
        and ``attention_mask``, plus ``pixel_values`` and ``image_grid_thw`` when images come;
        on `device` (default: the model's)."""
        device = device or self.device
        chat, images = hf_chat(messages, max_image_side)
        text = self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        inputs: dict[str, Any] = {}
        if images:
            vision = self.image_processor(images=images, return_tensors="pt")
            text = self._expand_images(text, vision["image_grid_thw"])
            inputs.update(pixel_values=vision["pixel_values"].to(device),
                          image_grid_thw=vision["image_grid_thw"].to(device))
        encoded = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        inputs.update(input_ids=encoded["input_ids"].to(device), attention_mask=encoded["attention_mask"].to(device))
        return inputs

    def _expand_images(self, text: str, grid_thw: Any) -> str:
        """Each image placeholder repeated once per merged patch of its image."""
        pieces = text.split(self.image_token)
        if len(pieces) - 1 != len(grid_thw):
            raise JudgeError(f"the chat template wrote {len(pieces) - 1} image placeholder(s) {self.image_token!r} "
                             f"for {len(grid_thw)} image(s)")
        counts = [int(grid.prod()) // self.merge_size**2 for grid in grid_thw]
        return pieces[0] + "".join(self.image_token * count + piece for count, piece in zip(counts, pieces[1:]))


class TransformersModel(SharedOnCopy):
    """Answers from a local vision-language checkpoint (a `ChatModel`).

    Args:
        model_path: a folder holding config, weights, tokenizer (with a chat template) and
            image processor, as ``save_pretrained`` writes them.
        device: torch device ("cpu", "cuda", "cuda:1", ...).
        dtype: torch dtype name ("float32", "bfloat16", ...); "auto" keeps the checkpoint's.
        temperature: 0 decodes greedily; above 0 samples, seeded per call.
        max_new_tokens: answer length cap.
        max_image_side: images are downscaled so neither side exceeds this many pixels.
    """

    def __init__(self, model_path: str | os.PathLike[str], *, device: str = "cpu", dtype: str = "auto",
                 temperature: float = 0.0, max_new_tokens: int = 512, max_image_side: int = 1280):
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, received {temperature}")
        if max_new_tokens < 1 or max_image_side < 1:
            raise ValueError(f"max_new_tokens and max_image_side must be >= 1, received {max_new_tokens}, {max_image_side}")
        path = Path(model_path)
        self.qwen = QwenVL(path, device=device, dtype=dtype)
        self.device = device
        self.temperature = float(temperature)
        self.max_new_tokens = int(max_new_tokens)
        self.max_image_side = int(max_image_side)
        self.identity = (f"transformers:{path.resolve()}:t={self.temperature:g}:max_new_tokens={self.max_new_tokens}"
                         f":side={self.max_image_side}")

    def complete(self, messages: Sequence[Message], *, seed: int | None = None) -> str:
        torch = self.qwen.torch
        try:
            inputs = self.qwen.inputs(messages, max_image_side=self.max_image_side)
            sampling = ({"do_sample": True, "temperature": self.temperature} if self.temperature > 0
                        else {"do_sample": False})
            devices = [torch.device(self.device).index or 0] if self.device.startswith("cuda") else []
            with torch.random.fork_rng(devices=devices), torch.inference_mode():
                torch.manual_seed(0 if seed is None else int(seed))
                output = self.qwen.model.generate(**inputs, max_new_tokens=self.max_new_tokens, **sampling)
        except (RuntimeError, ValueError) as exc:
            raise JudgeError(f"local judge {self.identity!r} failed to generate: {type(exc).__name__}: {exc}") from exc
        return self.qwen.tokenizer.decode(output[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
