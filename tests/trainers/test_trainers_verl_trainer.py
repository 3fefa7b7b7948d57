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
                                  "~algorithm.bepa_luffy_gamma"],
     "loss_mode=bepa_luffy needs algorithm.bepa_level2=true"),
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

    def kv_batch_put(self, keys, partition_id, fields=None, tags=None):
        from transfer_queue import KVBatchMeta

        for i, key in enumerate(keys):
            sample = self.samples.setdefault(key, {})
            for name in fields.keys():
                value = fields[name]
                sample[name] = value.tolist()[i] if not isinstance(value, torch.Tensor) else value[i]
        return KVBatchMeta(keys=list(keys), tags=list(tags or [{} for _ in keys]), partition_id=partition_id)

    def kv_batch_get(self, keys, partition_id, select_fields=None):
        rows = [self.samples[key] for key in keys]
        names = select_fields or list(rows[0])
        return list_of_dict_to_tensordict([{name: row[name] for name in names} for row in rows])


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
