"""Real LocalWeb episodes as verl trains on them, without verl's Ray workers or vLLM: our
``gui_gym`` agent loop plays them against a model served in this process by transformers,
verl's own post-processing turns them into the `DataProto` its trainer updates the actor on,
and a JSON file keeps them for a machine with no browser (a GPU node often has none).

What stands in for what (the agent-loop tests and `gui_gym.benchmarks.perf.gpu_check_verl`
share these):

- `TransformersServer` for verl's server manager (``LLMServerClient.generate``'s signature):
  what a vLLM replica does with a request, on the model's transformers code.
- `image_only_processor` for the model's ``AutoProcessor``: transformers' video processor needs
  torchvision, which has no build for this CPU torch; the image path is the real class's.
- `verl_postprocess`: verl's `AgentLoopWorker` post-processing, its own methods on an object
  with the attributes they read (no Ray actor).

Recording must come before verl's FSDP engine is built in the same process: the engine patches
``Qwen2_5_VLForConditionalGeneration.forward`` class-wide (verl's ``apply_monkey_patch``), after
which transformers' ``generate`` refuses the image inputs.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import types
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gui_gym.models.tiny_qwen import SPECIAL
from gui_gym.models.transformers_model import QwenVL

EPISODES_FORMAT = "gui-gym verl episodes 1"
TEST_SETTINGS = {"max_image_side": 112, "max_new_tokens": 12}
"""The ``gui_gym`` section's defaults here: small screenshots and answers, for CPU runs."""


class TransformersServer:
    """verl's server manager as the agent loop sees it, serving a Qwen2.5-VL in-process. The
    prompt's image placeholders must match ``image_data`` (vLLM refuses a mismatch); sampling is
    softmax(logits / temperature) over the text tokens (a random model would otherwise write
    vision and chat tokens a trained one never writes); each answer ends at ``<|im_end|>`` or
    ``max_tokens``. ``calls`` records every request and answer."""

    def __init__(self, qwen: QwenVL):
        self.qwen = qwen
        self.calls: list[dict] = []
        tokenizer = qwen.tokenizer
        self.eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
        self.image_token = tokenizer.convert_tokens_to_ids("<|image_pad|>")
        self.banned = [tokenizer.convert_tokens_to_ids(token) for token in SPECIAL if token != "<|im_end|>"]

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any],
                       image_data: list[Any] | None = None, video_data: Any = None, audio_data: Any = None,
                       mm_processor_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        vision = self.qwen.image_processor(images=image_data, return_tensors="pt")
        image_tokens = int(sum(int(g.prod()) for g in vision["image_grid_thw"]) // self.qwen.merge_size ** 2)
        if list(prompt_ids).count(self.image_token) != image_tokens:
            raise ValueError(f"{list(prompt_ids).count(self.image_token)} image placeholders for {image_tokens} image "
                             "tokens")
        temperature = float(sampling_params.get("temperature", 1.0))
        with torch.inference_mode():
            out = self.qwen.model.generate(
                input_ids=torch.tensor([list(prompt_ids)]), attention_mask=torch.ones(1, len(prompt_ids), dtype=torch.long),
                pixel_values=vision["pixel_values"], image_grid_thw=vision["image_grid_thw"],
                max_new_tokens=int(sampling_params["max_tokens"]), do_sample=True, temperature=temperature, top_k=0,
                top_p=1.0, suppress_tokens=self.banned, output_logits=True, return_dict_in_generate=True)
        tokens = out.sequences[0, len(prompt_ids):].tolist()
        if self.eos in tokens:
            tokens = tokens[:tokens.index(self.eos) + 1]
        logits = torch.stack(out.logits[:len(tokens)], dim=1)[0].float() / temperature
        logits[:, self.banned] = float("-inf")
        logprobs = torch.log_softmax(logits, -1).gather(1, torch.tensor(tokens).unsqueeze(1)).squeeze(1).tolist()
        self.calls.append({"prompt_ids": list(prompt_ids), "images": len(image_data), "tokens": tokens,
                           "logprobs": logprobs, "sampling_params": dict(sampling_params)})
        return TokenOutput(token_ids=tokens, log_probs=logprobs if sampling_params.get("logprobs") else None)


def image_only_processor(folder: str | Path, tokenizer: Any) -> Any:
    """The model's Qwen2.5-VL processor without its video processor (module docstring)."""
    from transformers import AutoImageProcessor
    from transformers.models.qwen2_5_vl import Qwen2_5_VLProcessor

    class ImageOnlyQwen25VLProcessor(Qwen2_5_VLProcessor):
        @classmethod
        def get_attributes(cls):
            return ["image_processor", "tokenizer"]

    return ImageOnlyQwen25VLProcessor(image_processor=AutoImageProcessor.from_pretrained(folder), tokenizer=tokenizer,
                                      chat_template=tokenizer.chat_template)


def agent_loop(qwen: QwenVL, server: Any, folder: str | Path, sequence_length: int = 4096, **settings: Any) -> Any:
    """Our agent loop as verl's worker makes it; `settings` are the config's ``gui_gym`` section
    over `TEST_SETTINGS`; the config's algorithm is PAGE (its env gets SubtaskAnnotation)."""
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from gui_gym.trainers.verl_plugins.agent_loop import GUIGymAgentLoop

    config = OmegaConf.create({
        "actor_rollout_ref": {"rollout": {"prompt_length": sequence_length, "response_length": sequence_length,
                                          "full_determinism": False}},
        "data": {"apply_chat_template_kwargs": {}, "mm_processor_kwargs": {}},
        "algorithm": {"adv_estimator": "page"},
        "gui_gym": {"env_id": "GUI/LocalWeb-v0", **TEST_SETTINGS, **settings}})
    return GUIGymAgentLoop(trainer_config=DictConfigWrap(config), server_manager=server, tokenizer=qwen.tokenizer,
                           processor=image_only_processor(folder, qwen.tokenizer), dataset_cls=RLHFDataset,
                           data_config=DictConfigWrap(config.data), hf_model_type="qwen2_5_vl")


def play(qwen: QwenVL, server: Any, folder: str | Path, sampling: dict[str, Any], extra_info: dict[str, Any],
         **settings: Any) -> Any:
    """One episode (an `AgentLoopOutput`), the agent loop made inside the running event loop as
    verl's worker makes it."""
    async def episode():
        return await agent_loop(qwen, server, folder, **settings).run(dict(sampling), raw_prompt=[],
                                                                       extra_info=extra_info)
    return asyncio.run(episode())


def verl_postprocess(folder: str | Path, qwen: QwenVL, outs: list[Any], uids: list[str]) -> Any:
    """verl's `AgentLoopWorker` post-processing of agent-loop outputs into a `DataProto`
    (padding, the processor's pixel values from the decoded sequence and the images, mRoPE
    position ids): what verl's trainer computes advantages on and updates the actor with.
    verl 0.9.1 decodes the sequence with ``skip_special_tokens=True`` and expects the vision
    placeholders to survive it; under transformers 5.x (verl asks for < 5.11) a tokenizer that
    marks them special drops them, so the tokenizer here keeps them."""
    from omegaconf import OmegaConf
    from transformers import AutoConfig
    from transformers.models.qwen2_5_vl import Qwen2_5_VLModel
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker

    processor = image_only_processor(folder, qwen.tokenizer)
    processor.config = AutoConfig.from_pretrained(folder)  # what verl's hf_processor binds
    for name in ("get_rope_index", "get_vision_position_ids"):
        setattr(processor, name, types.MethodType(getattr(Qwen2_5_VLModel, name), processor))
    decode = qwen.tokenizer.decode
    qwen.tokenizer.decode = lambda ids, skip_special_tokens=False, **kw: decode(ids, **kw).replace("<|endoftext|>", "")
    worker = object.__new__(AgentLoopWorker)
    length = max(max(len(out.prompt_ids), len(out.response_ids)) for out in outs)
    worker.rollout_config = OmegaConf.create({"prompt_length": length, "response_length": length})
    worker.tokenizer, worker.processor, worker.mm_processor_kwargs = qwen.tokenizer, processor, {}
    worker.reward_loop_worker_handles, worker.distillation_enabled = None, False

    async def post():
        return [await worker._agent_loop_postprocess(out, False, raw_prompt=[]) for out in outs]

    try:
        return worker._postprocess(asyncio.run(post()), input_non_tensor_batch={"uid": np.array(uids, dtype=object)})
    finally:
        qwen.tokenizer.decode = decode


def save_episodes(path: str | Path, outs: list[Any], uids: list[str], max_pixels: int) -> None:
    """`outs` (agent-loop outputs of groups `uids`) as JSON, screenshots as PNG: what a
    machine without a browser replays. `max_pixels` is the image processor's, which the
    sequences' image placeholders were counted with."""
    episodes = []
    for out in outs:
        fields = out.model_dump(exclude={"multi_modal_data", "mm_processor_output", "routed_experts"})
        images = []
        for image in out.multi_modal_data["images"]:
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            images.append(base64.b64encode(buffer.getvalue()).decode())
        episodes.append({**fields, "images": images})
    Path(path).write_text(json.dumps({"format": EPISODES_FORMAT, "max_pixels": max_pixels, "uids": list(uids),
                                      "episodes": episodes}))


def load_episodes(path: str | Path) -> tuple[list[Any], list[str], int]:
    """The agent-loop outputs, group ids and ``max_pixels`` `save_episodes` wrote."""
    from PIL import Image
    from verl.experimental.agent_loop.agent_loop import AgentLoopOutput

    from gui_gym.errors import UsageError

    data = json.loads(Path(path).read_text())
    if data.get("format") != EPISODES_FORMAT:
        raise UsageError(f"{path} is not a recorded episodes file ({EPISODES_FORMAT!r}); write one with --record")
    outs = []
    for episode in data["episodes"]:
        images = [Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB") for png in episode.pop("images")]
        outs.append(AgentLoopOutput(**episode, multi_modal_data={"images": images}))
    return outs, list(data["uids"]), int(data["max_pixels"])
