"""``gui_gym``: a verl agent loop that plays one gui-gym episode per sample, generating through
verl's async server manager (``self.server_manager.generate``: in verl 0.9.1 an
``LLMServerClient``, vLLM or SGLang replicas behind it).

One episode is one verl sequence, as verl's own multi-turn loops make it: the prompt is the
step-0 conversation of the agents' prompt format (`gui_gym.agents.prompts`, UI-TARS by default: the
same messages `VLMPolicy` and the OpenAI agent send); then, per step, the model's answer
(its generated token ids, ``response_mask`` 1) and the next screenshot as a user turn
(observation tokens, ``response_mask`` 0). Every screenshot stays in the sequence (a growing
sequence cannot drop one), so a step sees the whole episode: ``max_steps`` x a screenshot's
image tokens must fit ``rollout.prompt_length + response_length``; ``data.mm_processor_kwargs``
(``max_pixels``) bounds the image tokens. Tokens are built with verl's continuous-token
builder (``ct_build_initial_tokens`` / ``ct_merge_assistant_token`` / ``ct_merge_context_msg``)
over verl's processor; on the tiny Qwen2.5-VL they are exactly `QwenVL.inputs`' ids for the
same conversation (tests/trainers/test_trainers_verl_agent_loop.py). The screenshots are the
output's ``multi_modal_data["images"]``, in the order their placeholders appear.

The env is ``gym.make(env_id, **env_kwargs)`` or, with ``remote``, a Ray actor
(`gui_gym.remote.make`); with ``page`` it is wrapped in PAGE's `ProgressReward` and, when the
config's advantage will use the subtask term (``algorithm.adv_estimator=page`` with a non-zero
``page_lam``: `uses_subtasks`), `SubtaskAnnotation` inside it (`gui_gym.trainers.page.wrap_env`);
otherwise the segmentation's judge calls would be paid for and thrown away. Envs are kept per worker process and reused
across episodes, each on its own thread (`gui_gym.trainers.rollout.EnvPool`: Playwright's objects
belong to the thread that made them). The episode is ``extra_info["task_id"]`` at
``extra_info["instance_seed"]`` of the dataset row (`gui_gym.trainers.verl_plugins.tasks` writes such
rows); verl's ``rollout.n`` copies of a row are one group of the same task instance. A row the
``gui_gym`` trainer marks as BEPA's LEVEL-1 (``extra_info["bepa_level1"]``, `level1_plan`) is
played on its ``extra_info["plan"]`` (`gui_gym.agents.prompts.with_plan`, as `VLMPolicy` prompts
our trainer's LEVEL-1) and stored with the plain prompt's tokens: the cache keeps it without the plan.

The sample's reward is the episode's progress (``info["progress"]``) when the env reports one,
else its score: the rule of `gui_gym.trainers.page.page_advantages`. ``extra_fields`` (verl's
``non_tensor_batch`` after its post-processing) carry what PAGE needs: ``step_index`` (each
response token's step, -1 off the policy's tokens), ``subtasks`` and ``subtask_of_step`` of the
last ``info``, and per step ``step_info`` (progress, score, success, action error).

Settings are the config's ``gui_gym`` section (`EpisodeSettings`), e.g. in a verl config file::

    gui_gym:
      env_id: GUI/LocalWeb-v0
      env_kwargs: {apps: [shop], max_steps: 10}
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, Callable
from uuid import uuid4

import gymnasium as gym
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register
from verl.utils.profiler import simple_timer

from gui_gym.agents.prompts import get_prompt_format, with_plan
from gui_gym.errors import InfraError, UsageError
from gui_gym.models.chat import to_png
from gui_gym.models.transformers_model import hf_chat
from gui_gym.trainers.rollout import EnvPool

logger = logging.getLogger(__name__)

AGENT_LOOP = "gui_gym"
LEVEL1_FLAG = "bepa_level1"
"""The ``extra_info`` key that makes a row one of BEPA's LEVEL-1 samples (acted on its ``plan``)."""
STEP_INFO_KEYS = ("progress", "score", "success", "action_error", "infra_error")
"""The keys of each step's ``info`` kept in ``extra_fields["step_info"]`` (plain values)."""
VISION_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>")


@dataclass
class EpisodeSettings:
    """The ``gui_gym`` section of a verl config: which env, and how the model is prompted."""

    env_id: str = "GUI/LocalWeb-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """`gym.make` keywords (the action format and its context are set from `prompt`)."""
    remote: dict[str, Any] | None = None
    """`gui_gym.remote.RemoteOptions` fields: the env runs in a Ray actor; None: in-process."""
    page: dict[str, Any] | None = None
    """PAGE's wrappers with these `gui_gym.trainers.page.PAGEConfig` judge fields (``judge``,
    ``judge_base_url``, ``judge_model``, ``criteria_store``, ``rounds``, ``aggregate``); None: none."""
    prompt: str = "uitars"
    """The agents' prompt format: "uitars" or "qwen25vl"."""
    coordinates: str = "smart_resize"
    platform: str = "computer"
    language: str = "English"
    max_image_side: int = 1280
    """Screenshots are downscaled so neither side exceeds this (as `VLMPolicy` does)."""
    max_new_tokens: int = 256
    """One answer's token cap (the server's ``max_tokens``)."""

    @classmethod
    def from_config(cls, section: Any) -> "EpisodeSettings":
        """From an omegaconf section or a dict; an unknown key names the known ones."""
        if section is None:
            return cls()
        try:
            from omegaconf import OmegaConf

            values = OmegaConf.to_container(section, resolve=True) if OmegaConf.is_config(section) else dict(section)
        except ImportError:  # pragma: no cover - omegaconf comes with verl
            values = dict(section)
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise UsageError(f"gui_gym config: unknown key(s) {unknown}; expected some of {sorted(known)}")
        return cls(**values)

    def make_env(self, subtasks: bool = True) -> gym.Env:
        """The env this section names, made to read the prompt format's answers; with ``page``,
        PAGE's wrappers (`SubtaskAnnotation` only when `subtasks`)."""
        import gui_gym  # noqa: F401 - registers the GUI/* envs

        prompt_format = get_prompt_format(self.prompt)
        kwargs = dict(self.env_kwargs)
        given = kwargs.get("action_format", prompt_format.action_format)
        if given != prompt_format.action_format:
            raise UsageError(f"gui_gym config: env_kwargs.action_format is {given!r}, but prompt {self.prompt!r} answers "
                             f"in {prompt_format.action_format!r}; leave action_format out")
        kwargs["action_format"] = prompt_format.action_format
        context = prompt_format.format_context(self.coordinates)
        if context:
            kwargs["format_context"] = {**context, **(kwargs.get("format_context") or {})}
        if self.remote is not None:
            import gui_gym.remote

            env = gui_gym.remote.make(self.env_id, remote=dict(self.remote), **kwargs)
        else:
            env = gym.make(self.env_id, **kwargs)
        if self.page is not None:
            from gui_gym.trainers.page import PAGEConfig, make_judge, wrap_env

            cfg = PAGEConfig(**self.page)
            if subtasks:
                return wrap_env(env, make_judge(cfg), cfg)
            from gui_gym.wrappers.progress import ProgressReward

            env = ProgressReward(env, make_judge(cfg), criteria_store=cfg.criteria_store,
                                 rounds=cfg.rounds, aggregate=cfg.aggregate)
        return env


def uses_subtasks(config: Any) -> bool:
    """Whether a verl config's advantage reads subtask spans: PAGE with a non-zero lambda."""
    from gui_gym.trainers.verl_plugins.advantages import ESTIMATOR, PAGE_OPTIONS

    algorithm = config.get("algorithm") if config is not None else None
    if algorithm is None or algorithm.get("adv_estimator") != ESTIMATOR:
        return False
    return float(algorithm.get("page_lam", PAGE_OPTIONS["page_lam"])) != 0.0


class _IdleEnvs:
    """Envs of this worker process kept between episodes, by settings: making one starts a
    browser or a desktop, so an agent loop (made per sample by verl) borrows one instead."""

    def __init__(self) -> None:
        self.idle: dict[str, list[EnvPool]] = {}
        atexit.register(self.close)

    async def borrow(self, settings: EpisodeSettings, subtasks: bool) -> tuple[str, EnvPool]:
        key = json.dumps([asdict(settings), subtasks], sort_keys=True, default=str)
        idle = self.idle.setdefault(key, [])
        if idle:
            return key, idle.pop()
        loop = asyncio.get_running_loop()
        return key, await loop.run_in_executor(None, EnvPool, partial(settings.make_env, subtasks), 1)

    def give_back(self, key: str, pool: EnvPool) -> None:
        self.idle.setdefault(key, []).append(pool)

    def close(self) -> None:
        for pools in self.idle.values():
            for pool in pools:
                try:
                    pool.close()
                except RuntimeError as exc:  # at interpreter exit the env threads may be gone already
                    logger.debug("gui_gym agent loop: an idle env was not closed (%s); its processes end with ours", exc)
        self.idle.clear()


_ENVS = _IdleEnvs()


def close_envs() -> None:
    """Close the envs this process keeps between episodes (also done at exit)."""
    _ENVS.close()


@register(AGENT_LOOP)
class GUIGymAgentLoop(AgentLoopBase):
    """A gui-gym episode as one verl sample (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.settings = EpisodeSettings.from_config(self.config.get("gui_gym"))
        self.subtasks = uses_subtasks(self.config)
        self.format = get_prompt_format(self.settings.prompt)
        self.response_length = int(self.rollout_config.response_length)
        vocab = self.tokenizer.get_vocab()
        self.vision_ids = {vocab[token] for token in VISION_TOKENS if token in vocab}

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        if self.processor is None or not self.continuous_token_builder.supports_multimodal():
            raise UsageError("the gui_gym agent loop needs verl to have loaded the model's multimodal processor "
                             "(Qwen2.5-VL's AutoProcessor needs torchvision); verl loaded none for this model")
        extra = dict(kwargs.get("extra_info") or {})
        if "task_id" not in extra:
            raise UsageError("the gui_gym agent loop needs each dataset row's extra_info.task_id (and instance_seed); "
                             "python -m gui_gym.trainers.verl_plugins.tasks writes such rows")
        plan = level1_plan(extra)
        key, pool = await _ENVS.borrow(self.settings, self.subtasks)
        try:
            return await self._episode(pool, str(extra["task_id"]), extra.get("instance_seed"), sampling_params, plan)
        finally:
            _ENVS.give_back(key, pool)

    async def _episode(self, pool: EnvPool, task_id: str, seed: Any, sampling_params: dict[str, Any],
                       plan: list[str] | None = None) -> AgentLoopOutput:
        seed = None if seed is None else int(seed)
        metrics: dict[str, Any] = {}
        try:
            with simple_timer("tool_calls", metrics):
                obs, info = await self._env(pool, lambda env: env.reset(seed=seed, options={"task_id": task_id,
                                                                                          "instance_seed": seed}))
        except Exception as exc:  # no prompt without a first screenshot: verl drops the sample's group (v1)
            raise InfraError(f"gui_gym agent loop: {self.settings.env_id} failed to reset {task_id!r} (seed {seed}): "
                             f"{type(exc).__name__}: {exc}") from exc
        instruction = str(info.get("instruction", ""))
        turns: list[tuple[bytes, str]] = []
        screenshot = to_png(obs["screenshot"], self.settings.max_image_side)
        screen_size = _screen_size(obs)
        acted_on = with_plan(instruction, plan)  # BEPA's LEVEL-1 acts on the plan, as VLMPolicy.prompt does
        messages = self.format.conversation(acted_on, turns, screenshot, platform=self.settings.platform,
                                            language=self.settings.language)
        chat, images = hf_chat(messages, self.settings.max_image_side)
        mm_processor_kwargs = self._get_mm_processor_kwargs(None)
        tokens = await self.ct_build_initial_tokens(chat, images=images)
        prompt_length = len(tokens)
        stored_prompt = tokens
        if plan is not None:  # the sample keeps the plain prompt (stored without the plan, as bepa.level1's)
            plain = self.format.conversation(instruction, turns, screenshot, platform=self.settings.platform,
                                             language=self.settings.language)
            stored_prompt = await self.ct_build_initial_tokens(hf_chat(plain, self.settings.max_image_side)[0],
                                                               images=images)
        mask: list[int] = []
        logprobs: list[float] | None = None
        step_index: list[int] = []
        steps: list[dict[str, Any]] = []
        final: dict[str, Any] = dict(info)
        stop, request_id = "done", uuid4().hex
        while True:
            params = dict(sampling_params)
            params.setdefault("max_tokens", self.settings.max_new_tokens)
            with simple_timer("generate_sequences", metrics):
                out = await self.server_manager.generate(request_id=request_id, prompt_ids=list(tokens),
                                                         sampling_params=params, image_data=list(images),
                                                         mm_processor_kwargs=mm_processor_kwargs)
            generated, answer_logprobs = list(out.token_ids), list(out.log_probs) if out.log_probs else None
            cut = next((i for i, token in enumerate(generated) if token in self.vision_ids), None)
            if cut is not None:  # a vision placeholder the env sent no image for would misalign every image after it
                logger.warning("gui_gym agent loop: the model wrote a vision token in step %d of %s; the episode ends "
                               "before it", len(steps), task_id)
                generated = generated[:cut]
                answer_logprobs = answer_logprobs[:cut] if answer_logprobs is not None else None
            if logprobs is None and answer_logprobs is not None:
                logprobs = [0.0] * len(mask)
            merged, mask, logprobs = await self.ct_merge_assistant_token(tokens, generated, mask, logprobs,
                                                                         assistant_logprobs=answer_logprobs)
            tokens = merged.token_ids
            step_index = _extend_steps(step_index, mask, len(steps))
            if cut is not None:
                stop = "vision_token"
                break
            text = self.tokenizer.decode(generated, skip_special_tokens=True)
            action = self.format.to_action(text, screen_size, self.settings.coordinates)
            try:
                with simple_timer("tool_calls", metrics):
                    obs, reward, terminated, truncated, info = await self._env(pool, lambda env: env.step(action))
            except Exception as exc:  # the env broke mid-episode: the episode is no evidence about the policy
                logger.warning("gui_gym agent loop: %s raised in step %d of %s (%s: %s); the episode is void",
                               self.settings.env_id, len(steps), task_id, type(exc).__name__, exc)
                final = {**final, "infra_error": f"{type(exc).__name__}: {exc}"}
                stop = "infra_error"
                break
            final = dict(info)
            steps.append({"reward": float(reward), **{k: _plain(info.get(k)) for k in STEP_INFO_KEYS if k in info}})
            if terminated or truncated:
                stop = "infra_error" if info.get("infra_error") else "done"
                break
            if len(mask) >= self.response_length:
                stop = "response_length"
                break
            turns.append((screenshot, text))
            screenshot, screen_size = to_png(obs["screenshot"], self.settings.max_image_side), _screen_size(obs)
            # the next step's conversation is this one, the answer, and the new screenshot
            following = self.format.conversation(acted_on, turns, screenshot, platform=self.settings.platform,
                                                 language=self.settings.language)
            previous = chat + hf_chat(following[len(messages):len(messages) + 1], self.settings.max_image_side)[0]
            new_chat, new_images = hf_chat(following[len(messages) + 1:], self.settings.max_image_side)
            merged, new_mask, new_logprobs = await self.ct_merge_context_msg(previous, previous + new_chat, tokens,
                                                                             mask, logprobs)
            if len(new_mask) >= self.response_length:  # the next screenshot would not fit: stop before it
                stop = "response_length"
                break
            tokens, mask, logprobs = merged.token_ids, new_mask, new_logprobs
            step_index = _extend_steps(step_index, mask, len(steps))
            chat, messages, images = previous + new_chat, following, images + new_images
        return self._output(list(stored_prompt) + list(tokens[prompt_length:]), len(stored_prompt), mask, logprobs,
                            step_index, images, mm_processor_kwargs, metrics, task_id, seed, instruction, steps, final,
                            stop, plan)

    def _output(self, tokens: list[int], prompt_length: int, mask: list[int], logprobs: list[float] | None,
                step_index: list[int], images: list[Any], mm_processor_kwargs: dict[str, Any], metrics: dict[str, Any],
                task_id: str, seed: int | None, instruction: str, steps: list[dict[str, Any]],
                final: dict[str, Any], stop: str, plan: list[str] | None = None) -> AgentLoopOutput:
        """The sample: the first prompt, then everything after it as the response (cut at
        ``response_length``, as verl's loops cut it); an episode the infrastructure broke is
        kept with its mask zeroed, so none of it is trained. A LEVEL-1 episode's prompt is the
        plain one and its ``source`` "level1" (``plan`` the plan it acted on)."""
        length = self.response_length
        progress = final.get("progress")
        score = float(final.get("score") or 0.0)
        reward = float(progress) if progress is not None else score
        response_mask = mask[:length] if stop != "infra_error" else [0] * len(mask[:length])
        metrics.setdefault("num_preempted", -1)
        owner = _plain(final.get("subtask_of_step"))
        if stop == "vision_token" and isinstance(owner, list):
            owner = owner + [-1]  # the cut answer is the policy's, but its step never ran: in no span
        extra = {"task_id": task_id, "instance_seed": seed, "instruction": instruction, "step_index": step_index[:length],
                 "subtasks": _plain(final.get("subtasks")), "subtask_of_step": owner,
                 "progress": None if progress is None else float(progress), "score": score,
                 "success": bool(final.get("success", False)), "infra_error": _plain(final.get("infra_error")),
                 "step_info": steps, "stop_reason": stop, "source": "on_policy" if plan is None else "level1",
                 "plan": plan, "turn_scores": [], "tool_rewards": []}
        return AgentLoopOutput(
            prompt_ids=tokens[:prompt_length], response_ids=tokens[prompt_length:][:length],
            response_mask=response_mask, response_logprobs=logprobs[:length] if logprobs is not None else None,
            multi_modal_data={"images": images}, mm_processor_kwargs=mm_processor_kwargs, reward_score=reward,
            num_turns=2 * len(steps) + 1, metrics=metrics, extra_fields=extra)

    async def _env(self, pool: EnvPool, call: Callable[[gym.Env], Any]) -> Any:
        """`call(env)` on the env's own thread, without blocking verl's event loop."""
        return (await asyncio.get_running_loop().run_in_executor(None, pool.run, [(0, call)]))[0]


def level1_plan(extra_info: dict[str, Any]) -> list[str] | None:
    """The plan a row's episode acts on: ``extra_info["plan"]`` when the row is one of BEPA's
    LEVEL-1 samples (``extra_info["bepa_level1"]``, set by the ``gui_gym`` trainer), else None:
    a training row may carry its plan (`tasks` writes it) and is still played on the plain prompt."""
    if not extra_info.get(LEVEL1_FLAG):
        return None
    given = extra_info.get("plan")
    plan = [] if given is None else list(given)  # a list, or an array when the rows came from parquet
    if not plan or not all(isinstance(step, str) and step.strip() for step in plan):
        raise UsageError(f"a BEPA LEVEL-1 row needs extra_info.plan as a non-empty list of steps, received {given!r} "
                         f"for {extra_info.get('task_id')!r}; python -m gui_gym.trainers.verl_plugins.tasks --plans "
                         "writes them")
    return [str(step) for step in plan]


def _extend_steps(step_index: list[int], mask: list[int], step: int) -> list[int]:
    """`step_index` grown to `mask`'s length: the new tokens the policy generated belong to
    `step`, the others (observations, boundary tokens) to no step (-1)."""
    step_index = step_index[:len(mask)]
    return step_index + [step if m else -1 for m in mask[len(step_index):]]


def _screen_size(obs: dict[str, Any]) -> tuple[int, int]:
    height, width = obs["screenshot"].shape[:2]
    return int(width), int(height)


def _plain(value: Any) -> Any:
    """`value` as JSON-like data (numpy scalars and arrays become Python values)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
