"""The gui_gym verl trainer (trainers/verl_plugins/trainer.py): registered with verl's v1 trainers,
refusing PAGE and BEPA settings it would not honour (on verl's own composed configs), PAGE on
fields shaped as verl's TransferQueue keeps them, and BEPA's loss through verl's own ppo_loss."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transfer_queue", reason="verl's v1 trainer: scripts/setup.sh installs TransferQueue")

from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

import gui_gym.trainers.verl_plugins  # noqa: E402,F401 - registers the plug-ins
from gui_gym.errors import UsageError  # noqa: E402
from gui_gym.trainers.page import page_advantages  # noqa: E402
from gui_gym.trainers.rollout import Rollout, Step  # noqa: E402
from gui_gym.trainers.verl_plugins.bepa import bepa_ppo_loss, compute_policy_loss_bepa_luffy  # noqa: E402
from gui_gym.trainers.verl_plugins.trainer import GUIGymTrainer, check_config, page_fields  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.trainer.ppo.core_algos import get_policy_loss_fn  # noqa: E402
from verl.trainer.ppo.ray_trainer import compute_advantage  # noqa: E402
from verl.trainer.ppo.v1 import get_trainer_cls  # noqa: E402
from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync  # noqa: E402
from verl.utils.config import omega_conf_to_dataclass  # noqa: E402
from verl.utils.tensordict_utils import list_of_dict_to_tensordict  # noqa: E402
from verl.workers.utils.losses import ppo_loss  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verl"


def composed(name: str, *overrides: str):
    with initialize_config_dir(config_dir=str(EXAMPLES), version_base=None):
        return compose(config_name=name, overrides=list(overrides))


def test_the_gui_gym_trainer_is_registered_with_verls_v1_trainers():
    assert get_trainer_cls("gui_gym") is GUIGymTrainer and issubclass(GUIGymTrainer, PPOTrainerSync)
    for name in ("page_uitars7b_osworld", "bepa_qwen25vl3b_localweb"):
        cfg = composed(name)
        assert get_trainer_cls(cfg.trainer.v1.trainer_mode) is GUIGymTrainer and cfg.trainer.use_v1
        check_config(cfg)  # the examples pass as written


@pytest.mark.parametrize("name, overrides, match", [
    ("page_uitars7b_osworld", ["+algorithm.page_lamda=1.0"], r"unknown key\(s\) \['page_lamda'\]"),
    ("page_uitars7b_osworld", ["trainer.v1.trainer_mode=sync"], "select it with trainer.use_v1=true"),
    ("page_uitars7b_osworld", ["~gui_gym.page"], "needs the gui_gym.page section"),
    ("page_uitars7b_osworld", ["algorithm.use_kl_in_reward=true"], "does not apply verl's in-reward KL"),
    ("page_uitars7b_osworld", ["algorithm.rollout_correction.rollout_is=token"], "rollout correction"),
    ("page_uitars7b_osworld", ["actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent"],
     "default_agent_loop=gui_gym"),
    ("bepa_qwen25vl3b_localweb", ["+algorithm.page_lam=0.5"], r"\['page_lam'\] would be read by nothing"),
    ("bepa_qwen25vl3b_localweb", ["algorithm.bepa_level2=false"], r"'bepa_cache_capacity'.* would be read by nothing"),
    ("bepa_qwen25vl3b_localweb", ["actor_rollout_ref.actor.policy_loss.loss_mode=vanilla"],
     r"\['bepa_luffy_gamma'\] would be read by nothing"),
    ("bepa_qwen25vl3b_localweb", ["algorithm.bepa_level2=false", "~algorithm.bepa_cache_capacity",
                                  "~algorithm.bepa_inject_index", "~algorithm.bepa_success_threshold",
                                  "~algorithm.bepa_luffy_gamma", "~algorithm.bepa_level1_groups"],
     "loss_mode=bepa_luffy needs algorithm.bepa_level2=true"),
    ("bepa_qwen25vl3b_localweb", ["algorithm.bepa_level1_groups=0", "+algorithm.bepa_level1_group_size=2"],
     r"\['bepa_level1_group_size'\] would be read by nothing"),
    ("bepa_qwen25vl3b_localweb", ["algorithm.bepa_level1_groups=-1"], "expected bepa_level1_groups >= 0"),
    ("bepa_qwen25vl3b_localweb", ["+algorithm.bepa_level1_group_size=0"], "bepa_level1_group_size null or >= 1"),
])
def test_the_trainer_refuses_settings_it_would_not_honour_before_loading_anything(name, overrides, match):
    cfg = composed(name, *overrides)
    with pytest.raises(UsageError, match=match):
        check_config(cfg)
    with pytest.raises(UsageError, match=match):  # the first thing the trainer does
        GUIGymTrainer(cfg)


def test_page_and_bepa_luffy_without_the_trainer_fail_naming_it():
    """verl's own advantage step and verl's own ppo_loss reach the names and stop there."""
    cfg = composed("page_uitars7b_osworld")
    data = DataProto.from_dict(tensors={"token_level_rewards": torch.tensor([[0.0, 1.0], [0.0, 0.0]]),
                                        "response_mask": torch.ones(2, 2)},
                               non_tensors={"uid": np.array(["g", "g"], dtype=object)})
    with pytest.raises(UsageError, match="adv_estimator=page needs the gui_gym trainer .*trainer_mode=gui_gym"):
        compute_advantage(data, adv_estimator="page", num_repeat=2, config=cfg.algorithm)
    actor = omega_conf_to_dataclass(composed("bepa_qwen25vl3b_localweb").actor_rollout_ref.actor)
    zeros = torch.zeros(2, 2)
    with pytest.raises(UsageError, match="loss_mode=bepa_luffy needs the gui_gym trainer"):
        get_policy_loss_fn("bepa_luffy")(zeros, zeros, zeros, torch.ones(2, 2), "token-mean", actor)


def test_page_on_transfer_queue_fields_equals_our_trainers_page():
    """Samples packed as verl's v1 agent-loop worker packs them (verl's list_of_dict_to_tensordict:
    nested tensors of each sample's length, the extra fields as a stack of dicts)."""
    spec = [  # (progress, steps' token counts, spans completed, step -> span)
        (0.5, [2, 3], [True, False], [0, 1]),
        (0.0, [1, 2, 2], [False], [0, 0, -1]),
        (1.0, [3], [True], [0]),
    ]
    samples, rollouts = [], []
    for progress, steps, done, owner in spec:
        step_index = []
        for t, n in enumerate(steps):
            step_index += [t] * n + [-1, -1]  # two observation tokens after each step
        mask = [int(s >= 0) for s in step_index]
        scores = [0.0] * len(mask)
        scores[-1] = progress
        info = {"progress": progress, "subtasks": [{"description": f"s{m}", "completed": u} for m, u in enumerate(done)],
                "subtask_of_step": owner}
        samples.append({"uid": "g", "response_mask": torch.tensor(mask), "rm_scores": torch.tensor(scores),
                        "extra_fields": {"step_index": step_index, "subtasks": info["subtasks"],
                                         "subtask_of_step": owner, "task_id": "t", "instance_seed": 0}})
        rollout = Rollout(task_id="t", instruction="")
        rollout.steps = [Step(token_ids=(0,) * n, info=info) for n in steps]
        rollouts.append(rollout)
    fields = list_of_dict_to_tensordict(samples)
    assert fields["response_mask"].is_nested
    algorithm = OmegaConf.create({"adv_estimator": "page", "norm_adv_by_std_in_grpo": False, "page_lam": 0.5})
    out = page_fields(fields, algorithm)
    expected = page_advantages(rollouts, lam=0.5, norm_std=False)
    for row, sample in enumerate(samples):
        got = out["advantages"][row]
        steps = sample["extra_fields"]["step_index"]
        assert got.shape[0] == len(steps)
        assert got.tolist() == pytest.approx([expected[row][s] if s >= 0 else 0.0 for s in steps], abs=1e-6)
    assert out["advantages"][0][0].item() != out["advantages"][0][4].item()  # the subtask term shows


def test_bepa_ppo_loss_hands_the_off_policy_rows_to_bepa_luffy_through_verls_ppo_loss():
    """The actor's loss function as verl's engine calls it: a micro-batch of nested samples and
    the model's log-probs over each whole sequence (verl's no-padding layout)."""
    torch.manual_seed(0)
    prompt_lens, response_lens = [3, 2, 4], [4, 2, 3]
    old = [torch.randn(n) - 2 for n in response_lens]
    new = [o + 0.3 * torch.randn_like(o) for o in old]
    advantages = [torch.full((n,), a) for n, a in zip(response_lens, (1.0, -0.5, 0.7))]
    data = list_of_dict_to_tensordict([
        {"prompts": torch.arange(p), "responses": torch.arange(r), "response_mask": torch.ones(r, dtype=torch.long),
         "old_log_probs": o, "advantages": a} for p, r, o, a in zip(prompt_lens, response_lens, old, advantages)])
    data["off_policy"] = torch.tensor([False, True, False])
    for key, value in {"dp_size": 1, "batch_num_tokens": None, "global_batch_size": None}.items():
        data.set_non_tensor(key, value)
    # the model's output covers prompt and response; the log-prob of response token k sits one token earlier
    sequence = [torch.cat([torch.zeros(p - 1), n, torch.zeros(1)]) for p, n in zip(prompt_lens, new)]
    model_output = {"log_probs": torch.nested.as_nested_tensor(sequence, layout=torch.jagged)}
    bepa = composed("bepa_qwen25vl3b_localweb", "actor_rollout_ref.actor.clip_ratio_c=3.0")
    config = omega_conf_to_dataclass(bepa.actor_rollout_ref.actor)
    loss, metrics = bepa_ppo_loss(config, model_output, data, luffy_gamma=0.1)
    pad = lambda rows: torch.nn.utils.rnn.pad_sequence(rows, batch_first=True)  # noqa: E731
    mask = pad([torch.ones(n) for n in response_lens]).bool()
    expected, _ = compute_policy_loss_bepa_luffy(pad(old), pad(new), pad(advantages), mask, config.loss_agg_mode, config,
                                                 off_policy=torch.tensor([False, True, False]), luffy_gamma=0.1)
    assert loss.item() == pytest.approx(expected.item(), abs=1e-6)
    # verl's vanilla on the same micro-batch differs by the injected row's shaping
    vanilla = composed("bepa_qwen25vl3b_localweb", "actor_rollout_ref.actor.clip_ratio_c=3.0",
                       "actor_rollout_ref.actor.policy_loss.loss_mode=vanilla")
    clipped, _ = ppo_loss(omega_conf_to_dataclass(vanilla.actor_rollout_ref.actor), model_output, data)
    assert clipped.item() != pytest.approx(loss.item(), abs=1e-4)
    del data["off_policy"]
    with pytest.raises(UsageError, match="no off_policy field"):
        bepa_ppo_loss(config, model_output, data)


class MemoryQueue:
    """verl's TransferQueue as the trainer calls it (``kv_batch_get`` / ``kv_batch_put``), kept
    in memory: the real one runs in Ray actors, which do not start on this loaded machine
    (docs/training.md). Samples are stored per key and field, as TransferQueue stores them."""

    def __init__(self):
        self.samples: dict[str, dict] = {}
        self.tags: dict[str, dict] = {}

    def kv_batch_put(self, keys, partition_id, fields=None, tags=None):
        from transfer_queue import KVBatchMeta

        for i, key in enumerate(keys):
            sample = self.samples.setdefault(key, {})
            for name in (fields.keys() if fields is not None else ()):
                value = fields[name]
                sample[name] = value.tolist()[i] if not isinstance(value, torch.Tensor) else value[i]
            if tags is not None:
                self.tags.setdefault(key, {}).update(tags[i])
        return KVBatchMeta(keys=list(keys), tags=list(tags or [{} for _ in keys]), partition_id=partition_id)

    def kv_batch_get(self, keys, partition_id, select_fields=None):
        """The fields asked for that the samples hold (verl's advantage step asks for optional ones)."""
        rows = [self.samples[key] for key in keys]
        names = [name for name in select_fields or list(rows[0]) if all(name in row for row in rows)]
        return list_of_dict_to_tensordict([{name: row[name] for name in names} for row in rows])

    def kv_list(self, partition_id=None):
        return {"train": {key: dict(tag) for key, tag in self.tags.items()}}

    def kv_clear(self, keys, partition_id):
        for key in keys:
            self.samples.pop(key, None)
            self.tags.pop(key, None)


def test_the_trainers_transfer_queue_steps_run_level2_per_instance_and_page(monkeypatch):
    """The trainer's own methods on samples in a TransferQueue: LEVEL-2 overwrites an all-fail
    group's row with the cached success of the same task instance (never another instance's),
    marks it off_policy and keeps its group's uid; PAGE's step writes the advantages back."""
    import transfer_queue

    queue = MemoryQueue()
    monkeypatch.setattr(transfer_queue, "kv_batch_get", queue.kv_batch_get)
    monkeypatch.setattr(transfer_queue, "kv_batch_put", queue.kv_batch_put)
    cfg = composed("bepa_qwen25vl3b_localweb")
    trainer = object.__new__(GUIGymTrainer)  # its steps only: verl's __init__ starts Ray workers
    trainer.config, trainer.level2 = cfg, True
    trainer.bepa = {key: cfg.algorithm[key] for key in cfg.algorithm if key.startswith("bepa_")}
    from gui_gym.trainers.bepa import TaskCache

    trainer.cache = TaskCache(1)

    def put(step, rows):  # rows: (uid, seed, score, response length)
        keys = [f"{step}-{i}" for i in range(len(rows))]
        samples = [{"uid": uid, "responses": torch.arange(n) + 100 * step, "response_mask": torch.ones(n, dtype=torch.long),
                    "rm_scores": torch.nn.functional.pad(torch.tensor([score]), (n - 1, 0)),
                    "extra_fields": {"task_id": "shop.add-to-cart", "instance_seed": seed,
                                     "step_index": [0] * n, "subtasks": None, "subtask_of_step": None}}
                   for uid, seed, score, n in rows]
        return queue.kv_batch_put(keys, "train", list_of_dict_to_tensordict(samples),
                                  tags=[{"seq_len": n, "global_steps": step} for *_, n in rows])

    metrics = {}
    first = trainer._level2(put(1, [("a", 0, 1.0, 3), ("a", 0, 0.0, 2), ("b", 1, 0.0, 4), ("b", 1, 0.0, 2)]), metrics)
    assert metrics["bepa/injections"] == 0.0 and metrics["bepa/all_fail_groups"] == 1.0
    assert [queue.samples[k]["off_policy"].item() for k in first.keys] == [False] * 4
    second = trainer._level2(put(2, [("c", 0, 0.0, 2), ("c", 0, 0.0, 2), ("d", 1, 0.0, 5), ("d", 1, 0.0, 2)]), metrics)
    assert metrics["bepa/injections"] == 1.0 and metrics["bepa/all_fail_groups"] == 2.0
    injected = queue.samples["2-0"]
    assert injected["responses"].tolist() == [100, 101, 102] and injected["uid"] == "c"  # step 1's success, in c
    assert injected["off_policy"].item() and second.tags[0]["seq_len"] == 3
    assert queue.samples["2-2"]["responses"].tolist() == [200, 201, 202, 203, 204]  # instance 1 had no success
    assert [queue.samples[k]["off_policy"].item() for k in second.keys] == [True, False, False, False]

    # PAGE's step on the same queue (no spans: A_inter of the progress, the reward's sum)
    trainer.config = composed("page_uitars7b_osworld")
    trainer._compute_advantage(second, {})
    advantages = [queue.samples[k]["advantages"] for k in second.keys]
    assert advantages[0].tolist() == pytest.approx([0.5] * 3) and advantages[1].tolist() == pytest.approx([-0.5] * 2)
    assert not advantages[2].any() and not advantages[3].any()


class AgentLoopManager:
    """verl's ``AgentLoopManagerTQ`` as the trainer calls it (``generate_sequences``), in-process:
    each prompt's ``__rollout_n__`` episodes played by our agent loop, then put into the queue as
    verl's ``AgentLoopWorkerTQ`` puts them (key ``{uid}_{session}_0``, the output's fields and
    the prompt's, the prompt's status "finished")."""

    def __init__(self, queue, play_episode):
        self.queue, self.play_episode = queue, play_episode

    def generate_sequences(self, batch):
        for row in range(len(batch)):
            uid, extra = batch["uid"][row], dict(batch["extra_info"][row])
            for session in range(int(batch["__rollout_n__"])):
                out = self.play_episode(extra)
                prompt, response = len(out.prompt_ids), len(out.response_ids)
                self.queue.kv_batch_put([f"{uid}_{session}_0"], "train", list_of_dict_to_tensordict([packed(out, uid)]),
                                        tags=[{"status": "success", "prompt_len": prompt, "response_len": response,
                                               "seq_len": prompt + response, "global_steps": 1}])
            self.queue.kv_batch_put([uid], "train", tags=[{"status": "finished"}])


def packed(out, uid):
    """An agent-loop output as verl's v1 worker stores it in the TransferQueue."""
    field = {**out.as_dict(), "uid": uid}
    field.pop("multi_modal_data")
    return field


@pytest.mark.slow  # a browser and a model, six episodes: 30 s on a quiet machine, minutes on a busy one
def test_level1_seeds_the_cache_through_the_agent_loop_and_level2_injects_it_as_our_bepa_does(tmp_path, monkeypatch):
    """BEPA end to end through the gui_gym trainer's own steps on real LocalWeb episodes (tiny
    Qwen2.5-VL, a real browser; verl's TransferQueue and agent-loop workers kept in memory, as
    above): LEVEL-1 sends the dataset's row that carries a plan through the agent loop, which
    acts on the plan (here the expert's answers, scripted: a random model succeeds at nothing)
    and keeps the plain prompt; the success seeds the cache of its task instance. Then a batch
    of the random model's episodes, every group failing: LEVEL-2 injects the cached episode
    into the same instance's group only, marked off_policy, and verl's own GRPO step on the
    mixed batch gives the advantages gui_gym.trainers.bepa's LEVEL-2 and GRPO give."""
    import gymnasium as gym
    import transfer_queue
    from transfer_queue import KVBatchMeta

    from gui_gym.agents.policies.vlm import VLMPolicy
    from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl
    from gui_gym.models.transformers_model import QwenVL
    from gui_gym.trainers.bepa import TaskCache, level2, task_plan
    from gui_gym.trainers.grpo import outcome_advantages
    from gui_gym.trainers.rollout import EnvPool
    from gui_gym.trainers.sft import expert_rollout
    from gui_gym.trainers.verl_plugins.agent_loop import close_envs
    from gui_gym.trainers.verl_plugins.tasks import task_rows
    from gui_gym.benchmarks.perf.verl_episodes import TransformersServer, play
    from tests.trainers.test_trainers_verl_agent_loop import MAX_SIDE, TASK, ScriptedServer

    build_tiny_qwen25_vl(tmp_path)
    qwen = QwenVL(tmp_path)
    env_kwargs = {"apps": ["shop"], "max_steps": 6}
    policy = VLMPolicy(str(tmp_path), max_image_side=MAX_SIDE)
    # the expert's answers on instance 0, spelled as the policy answers (gui_gym.trainers.sft), on the env's own thread
    with EnvPool(lambda: gym.make("GUI/LocalWeb-v0", action_format="uitars",
                                  format_context={"coordinates": "smart_resize"}, **env_kwargs)) as pool:
        expert, plan = pool.run([(0, lambda env: (expert_rollout(env, policy, TASK, 0), task_plan(env, TASK, 0)))])[0]
    rows = task_rows("GUI/LocalWeb-v0", [TASK], [0, 1], plans=lambda t, s: plan if s == 0 else None)
    assert expert.success and "plan" in rows[0]["extra_info"] and "plan" not in rows[1]["extra_info"]
    settings = {"env_kwargs": env_kwargs}
    sampling = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
    queue = MemoryQueue()
    for name in ("kv_batch_get", "kv_batch_put", "kv_list", "kv_clear"):
        monkeypatch.setattr(transfer_queue, name, getattr(queue, name))
    cfg = composed("bepa_qwen25vl3b_localweb", "+algorithm.bepa_level1_group_size=1", "actor_rollout_ref.rollout.n=2",
                   "actor_rollout_ref.actor.policy_loss.loss_mode=vanilla", "~algorithm.bepa_luffy_gamma")
    trainer = object.__new__(GUIGymTrainer)  # its steps only: verl's __init__ starts Ray workers
    trainer.config, trainer.level2, trainer.global_steps = cfg, True, 1
    trainer.bepa = {key: cfg.algorithm[key] for key in cfg.algorithm if key.startswith("bepa_")}
    trainer.cache = TaskCache(1)
    trainer.train_dataset = [{**row, "index": row["extra_info"]["index"], "raw_prompt": row["prompt"]} for row in rows]
    logged = []
    trainer.logger = type("Logger", (), {"log": lambda self, data, step: logged.append(data)})()
    expert_server = ScriptedServer([list(step.token_ids) for step in expert.steps])
    seen_prompts = []
    generate = expert_server.generate

    async def watched(request_id, *, prompt_ids, **kwargs):
        seen_prompts.append(list(prompt_ids))
        return await generate(request_id, prompt_ids=prompt_ids, **kwargs)

    expert_server.generate = watched
    trainer.agent_loop_manager = AgentLoopManager(
        queue, lambda extra: play(qwen, expert_server, tmp_path, sampling, extra, **settings))
    random_server = TransformersServer(qwen)
    torch.manual_seed(4)
    try:
        trainer.on_train_begin()  # LEVEL-1
        # a training step's episodes: the random model on both instances, two per group
        outs = [play(qwen, random_server, tmp_path, sampling, {"task_id": TASK, "instance_seed": seed}, **settings)
                for seed in (0, 0, 1, 1)]
    finally:
        close_envs()

    # LEVEL-1: acted on the plan, kept without it, cached under (task, instance 0); the queue left empty
    decode = qwen.tokenizer.decode
    assert "Plan:\n1. " in decode(seen_prompts[0]) and expert_server.answers == []
    assert logged == [{"bepa/level1_crashed_groups": 0.0, "bepa/level1_episodes": 1.0, "bepa/level1_successes": 1.0,
                       "bepa/cache_tasks": 1.0}]
    assert queue.samples == {} and queue.tags == {}
    cached, cached_tag = trainer.cache.get((TASK, 0)).trajectory
    assert trainer.cache.get((TASK, 0)).source == "level1" and (TASK, 1) not in trainer.cache
    cached_prompt = cached["prompts"][0].tolist()
    assert "Plan:" not in decode(cached_prompt) and cached_prompt == outs[0].prompt_ids  # the plain prompt
    assert cached["extra_fields"][0]["source"] == "level1" and cached["extra_fields"][0]["success"]
    assert cached_tag["seq_len"] == len(cached_prompt) + cached["responses"][0].shape[0]

    # LEVEL-2 on the random model's batch: every group fails, the instance-0 group gets the cached episode
    assert not any(out.extra_fields["success"] for out in outs)
    uids, keys = ["a", "a", "b", "b"], [f"{uid}_{i % 2}_0" for i, uid in enumerate(["a", "a", "b", "b"])]
    batch = queue.kv_batch_put(keys, "train", list_of_dict_to_tensordict([packed(o, u) for o, u in zip(outs, uids)]),
                               tags=[{"seq_len": len(o.prompt_ids) + len(o.response_ids)} for o in outs])
    batch = KVBatchMeta(keys=batch.keys, tags=batch.tags, partition_id="train")
    metrics = {}
    batch = trainer._level2(batch, metrics)
    assert metrics["bepa/injections"] == 1.0 and metrics["bepa/all_fail_groups"] == 2.0
    injected = queue.samples["a_0_0"]
    assert injected["prompts"].tolist() == cached_prompt and injected["uid"] == "a"
    assert injected["responses"].tolist() == cached["responses"][0].tolist()
    assert [queue.samples[k]["off_policy"].item() for k in keys] == [True, False, False, False]
    assert queue.samples["b_0_0"]["responses"].tolist() == outs[2].response_ids  # instance 1 has no expert

    # verl's own GRPO advantage on the mixed batch = gui_gym.trainers.bepa's LEVEL-2 + GRPO on the same episodes
    # (step 4, the old log-probs under the current weights, needs verl's actor workers: the rollout's stand in)
    queue.kv_batch_put(keys, "train", list_of_dict_to_tensordict(
        [{"old_log_probs": queue.samples[k]["rollout_log_probs"]} for k in keys]))
    trainer._compute_advantage(batch, {})

    def rollout(out):
        extra = out.extra_fields
        r = Rollout(task_id=TASK, instruction=extra["instruction"], seed=extra["instance_seed"], source=extra["source"])
        r.steps = [Step(info={"score": extra["score"], "success": extra["success"]}) for _ in extra["step_info"]]
        return r

    ours = TaskCache(1)  # our trainer's cache, seeded with the same LEVEL-1 episode
    cached_rollout = Rollout(task_id=TASK, instruction="", seed=0, source="level1")
    cached_rollout.steps = [Step(info={"score": cached["extra_fields"][0]["score"], "success": True})
                            for _ in cached["extra_fields"][0]["step_info"]]
    ours.put((TASK, 0), cached_rollout, "level1")
    mix = level2(ours)
    norm = bool(cfg.algorithm.norm_adv_by_std_in_grpo)
    for members in ([0, 1], [2, 3]):
        group, injected_flags, _ = mix([rollout(outs[r]) for r in members])
        expected = outcome_advantages(group, norm_std=norm)
        for r, flags, values in zip(members, injected_flags, expected):
            sample = queue.samples[keys[r]]
            got, mask = sample["advantages"], sample["response_mask"].bool()
            assert flags == sample["off_policy"].item()
            assert got[mask].tolist() == pytest.approx([values[0]] * int(mask.sum()), abs=1e-5)
            assert not got[~mask].any()
    assert queue.samples["a_0_0"]["advantages"].max() > 0 > queue.samples["a_1_0"]["advantages"].min()
