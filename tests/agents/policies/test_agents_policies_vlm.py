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
from gui_gym.agents.base import Act, Context
from gui_gym.agents.policies.vlm import VLMPolicy
from gui_gym.errors import AgentError
from gui_gym.models.chat import PNG_SIGNATURE
from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl
from tests.fakes.chat_server import ChatServer, Reply
from gui_gym.trainers.grpo import GRPOConfig, TrainItem, update
from gui_gym.trainers.rollout import EnvPool, rollout_group

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


@pytest.mark.slow
def test_a_checkpoints_generation_config_does_not_reshape_the_sampled_tokens(model_path):
    """A repetition penalty or top-k in the checkpoint's generation_config would change what is
    drawn but not the recorded log-probs (a plain softmax of the raw logits): generation
    overrides each of them, sampled and greedy."""
    policy = VLMPolicy(model_path, max_new_tokens=4, max_image_side=112)
    policy.model.generation_config.repetition_penalty = 50.0
    policy.model.generation_config.top_k = 1
    asked, generate = [], policy.model.generate
    policy.model.generate = lambda *args, **kwargs: asked.append(kwargs) or generate(*args, **kwargs)
    prompt = policy.prompt(SCREEN, Context("Press Send"))
    policy.generate(prompt)
    policy.generate(prompt, greedy=True)
    assert [kw["repetition_penalty"] for kw in asked] == [1.0, 1.0]
    assert asked[0]["top_k"] == 0 and asked[0]["top_p"] == 1.0 and asked[1]["do_sample"] is False


def test_the_vlm_asks_for_a_small_step_size_and_micro_batches():
    from gui_gym.trainers.config import build_spec

    spec = build_spec({"algo": "page", "policy": "vlm"})
    assert spec.trainer.learning_rate == 1e-6 and spec.trainer.micro_batch_steps == 1
    told = build_spec({"algo": "grpo", "policy": "vlm", "trainer": {"learning_rate": 1e-5}}, trainer={"micro_batch_steps": 4})
    assert told.trainer.learning_rate == 1e-5 and told.trainer.micro_batch_steps == 4
    assert build_spec({"algo": "grpo", "policy": "element"}).trainer.learning_rate == 1e-2  # the toy's own


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


def recorded_rollouts(policy, rng, lengths=((3, 2), (2,), (1, 2, 1))):
    """Rollouts of made-up steps (a screenshot each, random answer tokens): what the update
    reads, without an env."""
    from gui_gym.trainers.rollout import Rollout, Step

    rollouts = []
    for r, steps in enumerate(lengths):
        rollout = Rollout(task_id="t", instruction="Press Send", seed=r)
        history = ()
        for n in steps:
            screen = {"screenshot": rng.integers(0, 255, (90, 120, 3), dtype=np.uint8)}
            prompt = policy.prompt(screen, Context("Press Send", history=history))
            tokens = tuple(int(t) for t in rng.integers(7, 100, n))
            rollout.steps.append(Step(prompt=prompt, token_ids=tokens))
            history += (Act("x", policy.qwen.tokenizer.decode(tokens), tokens, (), detail=prompt.messages[-1].images[0]),)
        rollouts.append(rollout)
    return rollouts


def test_micro_batches_of_steps_give_the_gradient_of_one_batch(model_path):
    """One step per forward/backward pass, accumulated, equals the whole minibatch in one pass
    (policy loss with an off-policy rollout, entropy bonus and KL) in every aggregation mode,
    and so does gradient checkpointing; past screenshots are in the prompts."""
    from gui_gym.trainers.bepa import luffy_loss
    from gui_gym.trainers.grpo import AGGREGATIONS, _rollout_logprobs, accumulate_gradients

    torch.manual_seed(0)
    policy = VLMPolicy(model_path, max_image_side=112, history_images=1)
    rng = np.random.default_rng(0)
    rollouts = recorded_rollouts(policy, rng)
    assert len(rollouts[0].steps[1].prompt.messages[-1].images) == 1
    assert sum(len(m.images) for m in rollouts[0].steps[1].prompt.messages) == 2  # the earlier screen, the current
    items = [TrainItem(rollouts[0], [1.0, 1.0]), TrainItem(rollouts[1], [-0.5], off_policy=True),
             TrainItem(rollouts[2], [0.3, -1.0, 2.0])]
    with torch.no_grad():  # ratios off 1, so some tokens clip
        old = [logp + torch.tensor(rng.uniform(-0.05, 0.05, len(logp)), dtype=logp.dtype)
               for logp in _rollout_logprobs(policy, items)]
        ref = [logp - 0.1 for logp in _rollout_logprobs(policy, items)]
    checkpointed = VLMPolicy(model_path, max_image_side=112, history_images=1, gradient_checkpointing=True)
    checkpointed.model.load_state_dict(policy.model.state_dict())
    assert checkpointed.model.model.language_model.gradient_checkpointing

    def gradients(policy, aggregation, micro_batch_steps):
        cfg = GRPOConfig(aggregation=aggregation, micro_batch_steps=micro_batch_steps, entropy_coef=0.01,
                         kl_coef=0.1, clip_low=0.02, clip_high=0.02)
        policy.model.zero_grad()
        stats = accumulate_gradients(policy, items, old, ref, cfg, off_policy_loss=luffy_loss(0.1))
        return [p.grad.clone() for p in policy.parameters()], stats

    for aggregation, (checked, steps) in zip(AGGREGATIONS, [(policy, 1), (checkpointed, 2), (policy, 3)]):
        whole, whole_stats = gradients(policy, aggregation, None)
        split, split_stats = gradients(checked, aggregation, steps)
        assert 0 < whole_stats["losses/clipfrac"] < 1 and whole_stats["losses/entropy"] > 0
        for key, value in whole_stats.items():
            assert split_stats[key] == pytest.approx(value, rel=1e-5, abs=1e-7), (aggregation, key)
        assert any(g.abs().sum() > 0 for g in whole)
        for a, b in zip(whole, split):
            torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-6)


def test_entropies_come_from_the_forward_pass_of_the_log_probs(model_path):
    policy = VLMPolicy(model_path, max_image_side=112, temperature=0.7)
    prompt = policy.prompt(SCREEN, Context("Press Send"))
    tokens = (40, 41, 42)
    (logp,), (entropy,) = policy.logprobs_and_entropies([prompt], [tokens])
    assert torch.equal(logp, policy.logprobs([prompt], [tokens])[0])
    assert torch.equal(entropy, policy.entropies([prompt], [tokens])[0])
    vocabulary = policy.model.config.text_config.vocab_size
    assert entropy.shape == (3,) and bool((entropy > 0).all()) and bool((entropy <= np.log(vocabulary) + 1e-4).all())
    assert entropy.requires_grad


def test_a_waves_generations_reach_the_server_together(model_path):
    """Three requests that each wait for the other two at the server: answered only when
    they are in flight at once."""
    import threading

    arrived = threading.Barrier(3, timeout=20)
    body = {"choices": [{"message": {"content": "A"}, "logprobs": {"content": [{"token": "token_id:40",
                                                                                "logprob": -0.5}]}}]}

    def answer(request):
        try:
            arrived.wait()
        except threading.BrokenBarrierError:
            return Reply(status=400, body={"error": {"message": "the requests came one after another"}})
        return Reply(body=body)

    with ChatServer(answer) as server:
        policy = VLMPolicy(model_path, server_url=server.base_url, server_model="policy", max_image_side=112)
        prompts = [policy.prompt({"screenshot": np.full((90, 120, 3), shade, np.uint8)}, Context("Press Send"))
                   for shade in (10, 100, 200)]
        acts = policy.generate_many(prompts)
        assert [act.token_ids for act in acts] == [(40,)] * 3 and len(server.requests) == 3
        sent = [request.images()[-1] for request in server.requests]
        assert sorted(sent) == sorted(policy._server._message(p.messages[-1])["content"][0]["image_url"]["url"]
                                      for p in prompts)


def test_a_server_policy_whose_weights_are_never_updated_refuses_to_train(model_path):
    from gui_gym.trainers.grpo import check_policy

    with ChatServer([]) as server:
        stale = VLMPolicy(model_path, server_url=server.base_url, server_model="policy", max_image_side=112)
        with pytest.raises(AgentError, match="would never be updated.*server_sync_dir=FOLDER.*allow_stale_server"):
            check_policy(stale, GRPOConfig())
        assert server.requests == []


def test_the_servers_image_tokens_are_checked_against_the_local_processors(model_path):
    """The server's usage.prompt_tokens for probe screenshots must be the local count; a
    server with other min/max pixels counts other image tokens."""
    from gui_gym.agents.policies.vlm import PROBE_SIZES

    policy = VLMPolicy(model_path, max_image_side=112)
    local = [int(policy._model_inputs(policy.prompt({"screenshot": np.full((h, w, 3), 127, np.uint8)},
                                                     Context("probe")))["input_ids"].shape[1])
             for w, h in PROBE_SIZES]
    assert local[0] > local[1]  # the bounds matter: a bigger probe, more image tokens

    def usage(count):
        return Reply(body={"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": count}})

    with ChatServer([usage(local[0]), usage(local[1]), usage(local[0]), usage(local[1] + 4)]) as server:
        policy = VLMPolicy(model_path, server_url=server.base_url, server_model="policy", max_image_side=112,
                           allow_stale_server=True)
        policy.check_trainable()
        assert [r.body["max_tokens"] for r in server.requests] == [1, 1]
        with pytest.raises(AgentError, match=r"counts \d+ prompt tokens for a 64x40 probe.*min_pixels\\?\"?: 3136"):
            policy.check_trainable()


def test_behaviour_cloning_of_the_oracle_in_ui_tars_raises_its_likelihood(model_path):
    """Stage 0 for the VLM policy (`gui_gym.trainers.sft`, the element policy's code): the oracle's
    action written as the policy's UI-TARS answer, which the env reads back as that action."""
    from gui_gym.trainers.sft import SFTConfig, fit, oracle_demonstrations

    torch.manual_seed(2)
    policy = VLMPolicy(model_path, max_new_tokens=4, max_image_side=112)
    with gym.make("GUI/Demo-v0", action_format="uitars", max_steps=3) as env:
        demos = oracle_demonstrations(env, policy, [("demo.press-button", 0)])
        obs, info = env.reset(seed=0, options={"task_id": "demo.press-button"})
        acts, infos, rewards, oracle = [], [], [], []
        for _ in range(2):  # the oracle clicks the button, then says it is done
            oracle.append(env.unwrapped.oracle_action())
            acts.append(policy.expert_act(policy.prompt(obs, Context(info["instruction"])), oracle[-1]))
            obs, reward, terminated, _, step_info = env.step(acts[-1].action)
            infos.append(step_info)
            rewards.append(reward)
    assert acts[0].text.startswith("Action: click(start_box=") and acts[1].text == "Action: finished()"
    assert [i["action_error"] for i in infos] == [None, None] and [i["parsed_action"]["kind"] for i in infos] == ["click", "done"]
    assert terminated and rewards[-1] == 1.0
    assert all(act.token_ids[-1] == policy.qwen.tokenizer.eos_token_id for act in acts)
    assert [d.token_ids for d in demos] == [act.token_ids for act in acts]
    qwen_policy = VLMPolicy(model_path, max_new_tokens=4, max_image_side=112, prompt="qwen25vl")
    assert qwen_policy.expert_act(policy.prompt(obs, Context("x")), oracle[0]) is None  # no writer for its tool calls
    losses = fit(policy, demos, SFTConfig(epochs=6, batch_steps=2, learning_rate=3e-3))
    # Adam at 3e-3 on a random init: an epoch may rise on its shuffled order (one in ten inits)
    assert losses[-1] == min(losses) and losses[-1] < 0.85 * losses[0], losses
