"""The VLM policy on a tiny randomly initialised Qwen2.5-VL (`gui_gym.models.tiny_qwen`): UI-TARS
prompts with the plan and history, sampled log-probs that a teacher-forced pass reproduces,
one GRPO update on recorded env rollouts moving positive-advantage actions up and negative
ones down, LoRA with the base model as reference, and generation on a vLLM-style server."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

import gui_gym  # noqa: F401 - registers the ids
from agents.base import Act, Context
from agents.policies.vlm import VLMPolicy
from gui_gym.errors import AgentError
from gui_gym.models.chat import PNG_SIGNATURE
from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl
from tests.fakes.chat_server import ChatServer, Reply
from trainers.grpo import GRPOConfig, TrainItem, update
from trainers.rollout import EnvPool, rollout_group

SCREEN = {"screenshot": np.full((90, 120, 3), 128, np.uint8)}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-qwen25-vl")
    build_tiny_qwen25_vl(folder)
    return folder


def test_the_prompt_carries_the_task_the_plan_the_history_and_the_screen(model_path):
    policy = VLMPolicy(model_path, max_new_tokens=4, max_image_side=112)
    earlier = Act("click(start_box='(1,2)')", "Thought: go\nAction: click(start_box='(1,2)')", (5,), (-1.0,))
    prompt = policy.prompt(SCREEN, Context("Press Send", plan=("Open the form", "Press Send"), history=(earlier,)))
    first, answer, screen = prompt.messages
    assert first.role == "user" and "## Task\nPress Send\n\nPlan:\n1. Open the form\n2. Press Send" in first.text
    assert answer.role == "assistant" and answer.text == earlier.text
    assert screen.role == "user" and screen.images[0].startswith(PNG_SIGNATURE)
    assert prompt.screen_size == (120, 90) and policy.action_format == "uitars"
    plain = policy.prompt(SCREEN, Context("Press Send"))
    assert "Plan:" not in plain.messages[0].text and len(plain.messages) == 2


@pytest.mark.slow
def test_sampled_log_probs_match_a_teacher_forced_pass(model_path):
    torch.manual_seed(0)
    policy = VLMPolicy(model_path, max_new_tokens=6, max_image_side=112, temperature=1.3)
    prompt = policy.prompt(SCREEN, Context("Press Send"))
    act = policy.generate(prompt)
    assert 1 <= len(act.token_ids) <= 6 and len(act.logprobs) == len(act.token_ids)
    assert act.action == act.text  # UI-TARS text goes to the env as it came
    (recomputed,) = policy.logprobs([prompt], [act.token_ids])
    assert recomputed.tolist() == pytest.approx(list(act.logprobs), abs=1e-4)
    greedy = [policy.generate(prompt, greedy=True).token_ids for _ in range(2)]
    assert greedy[0] == greedy[1]


class CountingProcessor:
    """The policy's image processor, counting the images it preprocesses."""

    def __init__(self, inner):
        self.inner, self.images = inner, 0

    def __call__(self, *, images, **kwargs):
        self.images += len(images)
        return self.inner(images=images, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("input_cache, preprocessed", [(8, 2), (0, 8)])
def test_a_screenshot_is_preprocessed_once_per_prompt_while_the_cache_holds_it(model_path, input_cache,
                                                                                 preprocessed):
    """Generation, the old log-probs, the epochs and the reference all read a step's prompt."""
    torch.manual_seed(0)
    policy = VLMPolicy(model_path, max_new_tokens=4, max_image_side=112, input_cache=input_cache)
    counter = policy.qwen.image_processor = CountingProcessor(policy.qwen.image_processor)
    prompts = [policy.prompt({"screenshot": np.full((90, 120, 3), shade, np.uint8)}, Context("Press Send"))
               for shade in (60, 200)]
    acts = [policy.generate(prompt) for prompt in prompts]
    tokens = [act.token_ids for act in acts]
    first = policy.logprobs(prompts, tokens)
    again = policy.logprobs(prompts, tokens)
    policy.reference().logprobs(prompts, tokens)
    assert counter.images == preprocessed
    for act, old, new in zip(acts, first, again):
        assert old.tolist() == pytest.approx(list(act.logprobs), abs=1e-4) and torch.equal(old, new)


@pytest.mark.slow
def test_one_update_on_recorded_rollouts_moves_positive_actions_up_and_negative_down(model_path):
    torch.manual_seed(1)
    policy = VLMPolicy(model_path, max_new_tokens=8, max_image_side=112)
    make_env = lambda: gym.make("GUI/Demo-v0", action_format="uitars", max_steps=1)  # noqa: E731
    with EnvPool(make_env) as pool:
        group = rollout_group(pool, policy, "demo.press-button", seed=0, group_size=2)
    assert all(len(r) == 1 and r.steps[0].info["action_error"] is not None for r in group)  # random text, parsed
    items = [TrainItem(group[0], [1.0]), TrainItem(group[1], [-1.0])]

    def mean_logprobs() -> list[float]:
        with torch.no_grad():
            return [policy.logprobs([r.steps[0].prompt], [r.steps[0].token_ids])[0].mean().item() for r in group]

    before = mean_logprobs()
    optimizer = torch.optim.Adam(list(policy.parameters()), lr=1e-3)
    stats = update(policy, optimizer, items, GRPOConfig(minibatch_rollouts=2))
    after = mean_logprobs()
    assert after[0] > before[0] and after[1] < before[1]
    assert stats["losses/approx_kl"] == pytest.approx(0.0, abs=1e-6)  # one step: old = new log-probs


@pytest.mark.slow
def test_lora_trains_the_adapter_only_and_the_base_is_the_reference(model_path, tmp_path):
    torch.manual_seed(2)
    policy = VLMPolicy(model_path, lora={"r": 4, "lora_alpha": 8}, max_new_tokens=5, max_image_side=112)
    names = [n for n, p in policy.model.named_parameters() if p.requires_grad]
    assert names and all("lora_" in n for n in names)
    prompt = policy.prompt(SCREEN, Context("Press Send"))
    act = policy.generate(prompt)
    reference = policy.reference()
    base = reference.logprobs([prompt], [act.token_ids])[0]
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.05)
    moved = policy.logprobs([prompt], [act.token_ids])[0].detach()
    assert not torch.allclose(moved, base) and torch.allclose(reference.logprobs([prompt], [act.token_ids])[0], base)
    policy.save(str(tmp_path))
    fresh = VLMPolicy(model_path, lora={"r": 4, "lora_alpha": 8}, max_new_tokens=5, max_image_side=112)
    fresh.load(str(tmp_path))
    assert torch.allclose(fresh.logprobs([prompt], [act.token_ids])[0].detach(), moved, atol=1e-5)


def test_a_server_generates_with_token_ids_and_log_probs(model_path):
    body = {"choices": [{"message": {"content": "Ab"}, "logprobs": {"content": [
        {"token": "token_id:40", "logprob": -0.5}, {"token": "token_id:73", "logprob": -1.25}]}}]}
    with ChatServer([Reply(body=body), Reply(body={"choices": [{"message": {"content": "x"}}]})]) as server:
        policy = VLMPolicy(model_path, server_url=server.base_url, server_model="policy", max_image_side=112)
        act = policy.generate(policy.prompt(SCREEN, Context("Press Send")))
        assert act.token_ids == (40, 73) and act.logprobs == (-0.5, -1.25)
        assert act.text == policy.qwen.tokenizer.decode([40, 73])
        request = server.requests[0].body
        assert request["logprobs"] is True and request["return_tokens_as_token_ids"] is True
        assert request["model"] == "policy" and request["temperature"] == 1.0
        with pytest.raises(AgentError, match="expected per-token logprobs with 'token_id:N' tokens"):
            policy.generate(policy.prompt(SCREEN, Context("Press Send")))
    with pytest.raises(AgentError, match="sync_server needs a server_url and a LoRA policy"):
        policy.sync_server("unused", "policy")


class AdapterServer:
    """vLLM's runtime LoRA endpoints on loopback (unloading an adapter never loaded is a
    404, as in vLLM): records what it is asked."""

    def __init__(self):
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        calls = self.calls = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                loaded = any(path == "/v1/load_lora_adapter" for path, _ in calls)
                calls.append((self.path, body))
                if self.path == "/v1/load_lora_adapter" or (self.path == "/v1/unload_lora_adapter" and loaded):
                    self.send_response(200)
                else:  # nothing loaded yet, or an unknown route
                    self.send_response(404)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.slow
def test_a_served_lora_policy_pushes_its_adapter_at_start_and_after_updates(model_path, tmp_path):
    server = AdapterServer()
    try:
        policy = VLMPolicy(model_path, lora={"r": 2}, server_url=server.base_url, server_model="policy-lora",
                           server_sync_dir=str(tmp_path / "adapter"), max_image_side=112)
        assert [path for path, _ in server.calls] == ["/v1/unload_lora_adapter", "/v1/load_lora_adapter"]
        assert server.calls[1][1] == {"lora_name": "policy-lora", "lora_path": str(tmp_path / "adapter")}
        assert (tmp_path / "adapter" / "adapter_model.safetensors").is_file()
        policy.after_update()
        assert len(server.calls) == 4 and server.calls[-1][0] == "/v1/load_lora_adapter"
    finally:
        server.close()
    with pytest.raises(AgentError, match="sync_server needs a server_url and a LoRA policy"):
        VLMPolicy(model_path, server_sync_dir=str(tmp_path / "x"))
