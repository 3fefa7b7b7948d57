"""The ``gui_gym`` verl agent loop (verl 0.9.1's `AgentLoopBase`) plays LocalWeb episodes in a
real browser, generating through a stand-in for verl's server manager that serves the tiny
random Qwen2.5-VL with transformers (vLLM needs a GPU): the prompt is the UI-TARS prompt
`VLMPolicy` tokenizes, the generated ids carry mask 1 and their log-probs, the screenshots'
observation tokens mask 0, the images match the image placeholders, and the steps' ``info``
(PAGE's progress and subtasks, from the oracle judge) lands in the extra fields PAGE reads.
A model that writes a vision token, and an env that raises mid-episode, are met as the
agent loop's docstring says."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
import torch

pytest.importorskip("verl", reason="the verl extra: scripts/setup.sh installs it")

import gui_gym.trainers.verl_plugins  # noqa: E402,F401 - registers the plug-ins
from gui_gym.agents.prompts import get_prompt_format  # noqa: E402
from gui_gym.benchmarks.perf.verl_episodes import TEST_SETTINGS, TransformersServer, play, verl_postprocess  # noqa: E402
from gui_gym.models.chat import to_png  # noqa: E402
from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl  # noqa: E402
from gui_gym.models.transformers_model import QwenVL  # noqa: E402
from gui_gym.trainers.verl_plugins.advantages import page_batch_advantages  # noqa: E402
from gui_gym.trainers.verl_plugins.agent_loop import AGENT_LOOP, close_envs  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.agent_loop.agent_loop import _agent_loop_registry  # noqa: E402
from verl.utils.tensordict_utils import list_of_dict_to_tensordict  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

TASK = "shop.add-to-cart"
MAX_SIDE = TEST_SETTINGS["max_image_side"]


@pytest.mark.slow  # a browser and a model: 8 s on a quiet machine, 20-60 s on a busy one
def test_the_agent_loop_plays_a_localweb_episode_with_ids_masks_images_and_page_info(tmp_path):
    assert _agent_loop_registry[AGENT_LOOP]["_target_"] == "gui_gym.trainers.verl_plugins.agent_loop.GUIGymAgentLoop"
    build_tiny_qwen25_vl(tmp_path)
    qwen = QwenVL(tmp_path)
    server = TransformersServer(qwen)
    settings = {"env_kwargs": {"apps": ["shop"], "max_steps": 3}, "page": {"judge": "oracle"}}
    torch.manual_seed(0)
    sampling = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
    episode = {"task_id": TASK, "instance_seed": 3}
    try:
        out = play(qwen, server, tmp_path, sampling, episode, **settings)
        second = play(qwen, server, tmp_path, sampling, episode, **settings)  # borrows the same browser
    finally:
        close_envs()
    extra, steps = out.extra_fields, out.extra_fields["step_info"]

    # three steps of random answers (LocalWeb's max_steps), one server call each
    calls = server.calls[:3]
    assert len(steps) == 3 and extra["stop_reason"] == "done"
    assert all(call["sampling_params"]["max_tokens"] == 12 for call in server.calls)
    # the prompt is the UI-TARS step-0 prompt, token for token as VLMPolicy's QwenVL assembles it
    screen0 = out.multi_modal_data["images"][0]
    messages = get_prompt_format("uitars").conversation(extra["instruction"], [], to_png(np.asarray(screen0), MAX_SIDE))
    assert out.prompt_ids == qwen.inputs(messages, max_image_side=MAX_SIDE)["input_ids"][0].tolist()
    # every request's prompt is the sequence so far: one growing sequence
    sequence = out.prompt_ids + out.response_ids
    for call in calls:
        assert sequence[:len(call["prompt_ids"])] == call["prompt_ids"]
    # the generated ids carry mask 1, their step and their log-probs; nothing else is trained
    mask, step_index = np.array(out.response_mask), np.array(extra["step_index"])
    assert len(mask) == len(step_index) == len(out.response_ids) == len(out.response_logprobs)
    for step, call in enumerate(calls):
        mine = np.flatnonzero(step_index == step)
        assert [out.response_ids[i] for i in mine] == call["tokens"] and mask[mine].all()
        assert [out.response_logprobs[i] for i in mine] == pytest.approx(call["logprobs"], abs=1e-6)
    assert ((step_index == -1) == (mask == 0)).all()
    assert all(out.response_logprobs[i] == 0.0 for i in np.flatnonzero(mask == 0))
    # the observation tokens are the later screenshots' user turns (and the boundary newline)
    observations = re.findall(r"(?:\n)?<\|im_start\|>user\n<\|vision_start\|>(?:<\|image_pad\|>)+<\|vision_end\|>"
                              r"<\|im_end\|>\n<\|im_start\|>assistant\n",
                              qwen.tokenizer.decode([t for t, m in zip(out.response_ids, mask) if m == 0]))
    assert len(observations) == 2
    # one image per screenshot in the sequence, each matching its placeholders
    images = out.multi_modal_data["images"]
    assert len(images) == 3 and max(images[1].size) <= MAX_SIDE
    grids = qwen.image_processor(images=images, return_tensors="pt")["image_grid_thw"]
    assert sequence.count(server.image_token) == int(grids.prod(dim=1).sum()) // qwen.merge_size ** 2
    # PAGE's per-step info: the oracle's progress is the reward, its subtask spans cover the steps
    assert out.reward_score == extra["progress"] == steps[-1]["progress"]
    assert len(extra["subtask_of_step"]) == 3 and all(s.get("action_error") for s in steps)
    assert extra["task_id"] == TASK and extra["instance_seed"] == 3 and extra["success"] is False
    # verl's default (v1) trainer packs an output as its TransferQueue does: the extra fields travel along
    fields = [{**sample.as_dict(), "uid": "g"} for sample in (out, second)]
    for field in fields:
        field.pop("multi_modal_data")
    packed = list_of_dict_to_tensordict(fields)
    assert packed["rm_scores"][0][-1].item() == pytest.approx(out.reward_score)
    assert [f["step_index"] for f in packed["extra_fields"]] == [extra["step_index"], second.extra_fields["step_index"]]

    # the group's second episode: the same task instance; PAGE's verl advantage reads both
    assert second.prompt_ids == out.prompt_ids and len(server.calls) == 3 + len(second.extra_fields["step_info"])
    width = max(len(out.response_ids), len(second.response_ids))
    pad = lambda values, fill: values + [fill] * (width - len(values))  # noqa: E731
    rewards = torch.zeros(2, width)
    for row, sample in enumerate((out, second)):
        rewards[row, len(sample.response_ids) - 1] = sample.reward_score
    data = DataProto.from_dict(
        tensors={"token_level_rewards": rewards,
                 "response_mask": torch.tensor([pad(s.response_mask, 0) for s in (out, second)])},
        non_tensors={"uid": np.array(["g", "g"], dtype=object),
                     **{key: np.array([s.extra_fields[key] for s in (out, second)] + [None], dtype=object)[:-1]
                        for key in ("step_index", "subtasks", "subtask_of_step")}})
    page_batch_advantages(data)
    assert data.batch["advantages"].shape == (2, width)
    assert (data.batch["advantages"][data.batch["response_mask"] == 0] == 0).all()


class CountingScreens(gym.Env):
    """A stand-in env for what the real ones do only by accident: raise in the middle of an
    episode (a display lost). Screens of a counter; step `raise_at` raises."""

    def __init__(self, raise_at=None, **kwargs):
        self.raise_at, self.kwargs = raise_at, kwargs
        self.observation_space = gym.spaces.Dict({"screenshot": gym.spaces.Box(0, 255, (40, 64, 3), np.uint8)})
        self.action_space = gym.spaces.Text(200)

    def screen(self):
        return {"screenshot": np.full((40, 64, 3), 20 * self.t, np.uint8)}

    def reset(self, *, seed=None, options=None):
        self.t = 0
        return self.screen(), {"instruction": "Count to three", "task_id": options["task_id"]}

    def step(self, action):
        self.t += 1
        if self.t == self.raise_at:
            raise RuntimeError("the display was lost")
        return self.screen(), 0.0, False, self.t >= 3, {"score": 0.0, "action_error": "not an action",
                                                        "subtasks": [{"description": "count", "completed": False}],
                                                        "subtask_of_step": [0] * self.t}


class ScriptedServer:
    """verl's server manager answering each request with the next scripted token list."""

    def __init__(self, answers):
        self.answers, self.calls = list(answers), 0

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None, **kwargs) -> TokenOutput:
        self.calls += 1
        tokens = self.answers.pop(0)
        return TokenOutput(token_ids=tokens, log_probs=[-1.0] * len(tokens))


def test_a_vision_token_in_an_answer_ends_the_episode_and_a_broken_env_voids_it(tmp_path):
    gym.register("GUITest/CountingScreens-v0", entry_point=CountingScreens)
    build_tiny_qwen25_vl(tmp_path)
    qwen = QwenVL(tmp_path)
    tok = qwen.tokenizer
    text = tok.encode("Action: wait()", add_special_tokens=False) + [tok.convert_tokens_to_ids("<|im_end|>")]
    pad = tok.convert_tokens_to_ids("<|image_pad|>")
    sampling = {"temperature": 1.0, "logprobs": True}
    episode = {"task_id": "count", "instance_seed": 0}
    try:
        # the model writes an image placeholder in its second answer: the response stops before it
        server = ScriptedServer([text, text[:3] + [pad] + text[3:]])
        out = play(qwen, server, tmp_path, sampling, episode, env_id="GUITest/CountingScreens-v0")
        assert out.extra_fields["stop_reason"] == "vision_token" and len(out.extra_fields["step_info"]) == 1
        assert out.response_ids[-3:] == text[:3] and out.response_mask[-3:] == [1, 1, 1]
        # the cut answer's tokens are step 1's, which never ran: PAGE's spans still cover every step, it in none
        assert out.extra_fields["subtask_of_step"] == [0, -1] and max(out.extra_fields["step_index"]) == 1
        images = out.multi_modal_data["images"]
        grids = qwen.image_processor(images=images, return_tensors="pt")["image_grid_thw"]
        sequence = out.prompt_ids + out.response_ids
        assert len(images) == 2 and sequence.count(pad) == int(grids.prod(dim=1).sum()) // qwen.merge_size ** 2
        # the env raises in its second step: the episode is kept with nothing of it trained
        server = ScriptedServer([text, text])
        out = play(qwen, server, tmp_path, sampling, episode, env_id="GUITest/CountingScreens-v0",
                   env_kwargs={"raise_at": 2})
        assert out.extra_fields["stop_reason"] == "infra_error" and "display was lost" in out.extra_fields["infra_error"]
        assert server.calls == 2 and set(out.response_mask) == {0} and len(out.response_ids) > 2 * len(text)
    finally:
        close_envs()
        gym.registry.pop("GUITest/CountingScreens-v0", None)


def test_verls_own_post_processing_turns_the_episodes_into_a_batch_page_reads(tmp_path):
    """verl's `AgentLoopWorker` post-processing (padding, the processor's pixel values from the
    decoded sequence and the images, mRoPE position ids, the batch) on two episodes. verl 0.9.1
    decodes the sequence with ``skip_special_tokens=True`` and expects the vision placeholders to
    survive it; under transformers 5.24 (verl asks for < 5.11) a tokenizer that marks them
    special, as Qwen2.5-VL's does, drops them, so the tokenizer here keeps them: on a GPU node
    with verl's own transformers this is to be checked with the real checkpoint."""
    gym.register("GUITest/CountingScreens-v0", entry_point=CountingScreens)
    build_tiny_qwen25_vl(tmp_path)
    qwen = QwenVL(tmp_path)
    server = TransformersServer(qwen)
    torch.manual_seed(1)
    try:
        outs = [play(qwen, server, tmp_path, {"temperature": 1.0, "logprobs": True}, {"task_id": "c", "instance_seed": 0},
                     env_id="GUITest/CountingScreens-v0") for _ in range(2)]
    finally:
        close_envs()
        gym.registry.pop("GUITest/CountingScreens-v0", None)
    data = verl_postprocess(tmp_path, qwen, outs, ["g", "g"])
    images = sum(len(out.multi_modal_data["images"]) for out in outs)
    grids = [mmi["image_grid_thw"] for mmi in data.non_tensor_batch["multi_modal_inputs"]]
    assert sum(len(g) for g in grids) == images and data.batch["position_ids"].shape[:2] == (2, 4)  # mRoPE's 3 + text
    for row, out in enumerate(outs):
        mask = data.batch["response_mask"][row]
        assert mask[:len(out.response_mask)].tolist() == out.response_mask and not mask[len(out.response_mask):].any()
        assert data.non_tensor_batch["step_index"][row] == out.extra_fields["step_index"]
    data.batch["token_level_rewards"] = data.batch["rm_scores"]
    page_batch_advantages(data, config={"page_lam": 0.5})
    assert (data.batch["advantages"][data.batch["response_mask"] == 0] == 0).all()


@pytest.mark.slow  # a browser and a model, four episodes: 20 s on a quiet machine, minutes on a busy one
def test_the_gui_gym_trainers_steps_on_localweb_episodes_equal_our_trainers_page_and_bepa(tmp_path):
    """Four LocalWeb episodes of the tiny Qwen2.5-VL (two instances, two episodes each) through
    our agent loop with PAGE's oracle wrappers, then verl's own post-processing (the DataProto of
    verl's v0 trainer) and verl's TransferQueue packing (the v1 trainer's fields): the gui_gym
    trainer's PAGE step on either equals gui_gym.trainers.page on the same episodes (signed
    spans: a random policy completes none, and every step in a span gets -lambda); its loss
    step hands LEVEL-2's off-policy row to bepa_luffy through verl's own ppo_loss."""
    from omegaconf import OmegaConf

    from gui_gym.trainers.page import page_advantages
    from gui_gym.trainers.rollout import Rollout, Step
    from gui_gym.trainers.verl_plugins.bepa import bepa_ppo_loss, compute_policy_loss_bepa_luffy
    from gui_gym.trainers.verl_plugins.trainer import page_fields
    from verl.utils.config import omega_conf_to_dataclass
    from verl.workers.config import ActorConfig

    build_tiny_qwen25_vl(tmp_path)
    qwen = QwenVL(tmp_path)
    server = TransformersServer(qwen)
    settings = {"env_kwargs": {"apps": ["shop"], "max_steps": 3}, "page": {"judge": "oracle"}}
    sampling = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
    instances, uids = [0, 0, 1, 1], ["a", "a", "b", "b"]
    torch.manual_seed(2)
    try:
        outs = [play(qwen, server, tmp_path, sampling, {"task_id": TASK, "instance_seed": seed}, **settings)
                for seed in instances]
    finally:
        close_envs()
    algorithm = OmegaConf.create({"adv_estimator": "page", "page_intra_mode": "signed", "page_lam": 0.5,
                                  "norm_adv_by_std_in_grpo": False})
    # gui_gym.trainers.page on the same episodes, per step
    expected = {}
    for group in ([0, 1], [2, 3]):
        rollouts = []
        for r in group:
            extra = outs[r].extra_fields
            rollout = Rollout(task_id=TASK, instruction=extra["instruction"], seed=instances[r])
            final = {key: extra[key] for key in ("progress", "score", "subtasks", "subtask_of_step")}
            rollout.steps = [Step(token_ids=(0,), info=final) for _ in extra["step_info"]]
            rollouts.append(rollout)
        expected.update(zip(group, page_advantages(rollouts, lam=0.5, intra_mode="signed", norm_std=False)))
    want = [[expected[r][s] if s >= 0 else 0.0 for s in out.extra_fields["step_index"]] for r, out in enumerate(outs)]
    assert any(value != 0.0 for row in want for value in row)  # the subtask term is there to be checked

    # the DataProto verl's post-processing makes
    data = verl_postprocess(tmp_path, qwen, outs, uids)
    data.batch["token_level_rewards"] = data.batch["rm_scores"]
    page_batch_advantages(data, config=algorithm)
    for r, row in enumerate(want):
        assert data.batch["advantages"][r, :len(row)].tolist() == pytest.approx(row, abs=1e-6)
        assert not data.batch["advantages"][r, len(row):].any()

    # the fields the v1 trainer reads from its TransferQueue (packed as verl's AgentLoopWorkerTQ packs them)
    fields = []
    for out, uid in zip(outs, uids):
        field = {**out.as_dict(), "uid": uid}
        field.pop("multi_modal_data")
        fields.append(field)
    packed = list_of_dict_to_tensordict(fields)
    advantages = page_fields(packed, algorithm)["advantages"]
    for r, row in enumerate(want):
        assert advantages[r].tolist() == pytest.approx(row, abs=1e-6)

    # the loss step on these samples: row 1 injected (off-policy), log-probs as the rollout wrote them
    old = [torch.tensor(out.response_logprobs) for out in outs]
    torch.manual_seed(3)
    new = [o + 0.2 * torch.randn_like(o) for o in old]
    from tensordict import TensorDict

    nested = lambda rows: torch.nested.as_nested_tensor(list(rows), layout=torch.jagged)  # noqa: E731 - verl's layout
    batch = TensorDict({"prompts": nested(torch.tensor(out.prompt_ids) for out in outs),
                        "responses": nested(torch.tensor(out.response_ids) for out in outs),
                        "response_mask": nested(torch.tensor(out.response_mask) for out in outs),
                        "old_log_probs": nested(old), "advantages": nested(advantages[r] for r in range(len(outs)))},
                       batch_size=len(outs))
    batch["off_policy"] = torch.tensor([False, True, False, False])
    for key, value in {"dp_size": 1, "batch_num_tokens": None, "global_batch_size": None}.items():
        batch.set_non_tensor(key, value)
    sequence = [torch.cat([torch.zeros(len(out.prompt_ids) - 1), n, torch.zeros(1)]) for out, n in zip(outs, new)]
    config = omega_conf_to_dataclass(OmegaConf.create({"_target_": "verl.workers.config.FSDPActorConfig",
                                                       "strategy": "fsdp", "rollout_n": 2, "ppo_mini_batch_size": 2,
                                                       "ppo_micro_batch_size_per_gpu": 1,
                                                       "policy_loss": {"loss_mode": "bepa_luffy"}}))
    assert isinstance(config, ActorConfig)
    loss, _ = bepa_ppo_loss(config, {"log_probs": torch.nested.as_nested_tensor(sequence, layout=torch.jagged)},
                            batch, luffy_gamma=0.1)
    pad = lambda rows: torch.nn.utils.rnn.pad_sequence(rows, batch_first=True)  # noqa: E731
    mask = pad([torch.tensor(out.response_mask) for out in outs]).bool()
    adv = pad([advantages[r] for r in range(len(outs))])
    ours, metrics = compute_policy_loss_bepa_luffy(pad(old), pad(new), adv, mask, config.loss_agg_mode, config,
                                                   off_policy=batch["off_policy"], luffy_gamma=0.1)
    assert loss.item() == pytest.approx(ours.item(), abs=1e-6)
    assert metrics["bepa/off_policy_tokens"] == float(sum(outs[1].response_mask))
