"""The ``gui_gym`` trainer: verl 0.9.1's synchronous v1 trainer (``PPOTrainerSync``) with PAGE's
advantage and BEPA's LEVEL-2 and LUFFY loss where verl's own steps cannot reach them.

Selected in a verl config by ``trainer.use_v1=true trainer.v1.trainer_mode=gui_gym``
(`verl.trainer.ppo.v1.register_trainer`; verl's ``TaskRunnerV1`` looks the mode up with
``get_trainer_cls``). It changes three steps of verl's pipeline and nothing else:

- the advantage (``_compute_advantage``), with ``algorithm.adv_estimator=page``: each sample's
  agent-loop fields (``extra_fields``: ``step_index``, ``subtasks``, ``subtask_of_step``) are
  read from verl's TransferQueue beside ``uid``, the response mask and the reward, and
  `gui_gym.trainers.verl_plugins.advantages.token_advantages` computes PAGE with the config's
  ``page_*`` options; any other estimator is verl's own step.
- LEVEL-2 (``algorithm.bepa_level2=true``), first thing in ``_balance_batch``, i.e. right after
  the reward and before the old log-probs: `gui_gym.trainers.verl_plugins.bepa.level2_injections`
  per task instance (``extra_fields``' ``task_id`` and ``instance_seed``); an injected row is the
  cached row's fields written over the failed one's (its ``uid`` kept) and every row gets an
  ``off_policy`` field. The cache lives in this trainer, across steps.
- the actor's loss, with ``actor_rollout_ref.actor.policy_loss.loss_mode=bepa_luffy``: the
  actor workers' loss function becomes `gui_gym.trainers.verl_plugins.bepa.bepa_ppo_loss`
  (``ActorRolloutRefWorker.set_loss_fn``), which hands ``off_policy`` to the loss.

- LEVEL-1 (``algorithm.bepa_level1_groups``, default 1, with LEVEL-2), in ``on_train_begin``
  (after the weights reach the rollout replicas, before the first step): every dataset row that
  carries a plan (`gui_gym.trainers.verl_plugins.bepa.level1_rows`) is sent through verl's agent
  loop manager marked as LEVEL-1, the ``gui_gym`` agent loop acts on the plan and keeps the
  plain prompt, the trainer waits for those groups in the TransferQueue and puts each
  successful episode in the cache under its task instance
  (`gui_gym.trainers.verl_plugins.bepa.level1_seeding`), then clears them from the queue.

`check_config` runs when the trainer is made, before any model is loaded: it refuses a
``page_*`` or ``bepa_*`` key that nothing would read, and an option another needs.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

import torch

from gui_gym.errors import UsageError
from gui_gym.trainers import metrics
from gui_gym.trainers.bepa import TaskCache
from gui_gym.trainers.verl_plugins.advantages import ESTIMATOR, PAGE_OPTIONS, token_advantages
from gui_gym.trainers.verl_plugins.agent_loop import AGENT_LOOP
from gui_gym.trainers.verl_plugins.bepa import (BEPA_OPTIONS, LOSS, bepa_ppo_loss, level1_rows, level1_seeding,
                                                level2_injections)
from gui_gym.trainers.verl_plugins.names import SELECT_TRAINER, TRAINER

logger = logging.getLogger(__name__)


def check_config(config: Any) -> None:
    """Refuse a verl config whose PAGE or BEPA keys this trainer would not honour: an unknown
    ``page_*`` / ``bepa_*`` key, ``page_*`` without ``adv_estimator=page``, ``bepa_*`` without
    ``bepa_level2``, ``bepa_luffy`` without LEVEL-2 (no row is off-policy), PAGE without the
    ``gui_gym`` agent loop (no step index) or its ``gui_gym.page`` wrappers (no progress, no
    spans) or with verl's in-reward KL or rollout correction (PAGE's step does not apply them),
    ``bepa_luffy`` with verl's distillation, or a trainer mode other than this one."""
    algorithm = config.algorithm
    keys = set(algorithm.keys())
    ours = {key for key in keys if key.startswith(("page_", "bepa_"))}
    unknown = sorted(ours - set(PAGE_OPTIONS) - set(BEPA_OPTIONS))
    if unknown:
        raise UsageError(f"algorithm: unknown key(s) {unknown}; PAGE reads {sorted(PAGE_OPTIONS)}, "
                         f"BEPA reads {sorted(BEPA_OPTIONS)}")
    page = algorithm.adv_estimator == ESTIMATOR
    unread = sorted(key for key in ours if key.startswith("page_")) if not page else []
    level2 = bool(algorithm.get("bepa_level2", False))
    loss_mode = config.actor_rollout_ref.actor.policy_loss.get("loss_mode", "vanilla")
    unread += sorted(key for key in ours if key.startswith("bepa_") and key != "bepa_level2") if not level2 else []
    unread += ["bepa_luffy_gamma"] if "bepa_luffy_gamma" in ours and loss_mode != LOSS else []
    unread += (["bepa_level1_group_size"] if "bepa_level1_group_size" in ours
               and not algorithm.get("bepa_level1_groups", BEPA_OPTIONS["bepa_level1_groups"]) else [])
    if unread:
        raise UsageError(f"algorithm: {unread} would be read by nothing (page_* needs adv_estimator=page, bepa_* "
                         f"needs bepa_level2=true, bepa_luffy_gamma loss_mode={LOSS}, bepa_level1_group_size "
                         "bepa_level1_groups > 0)")
    groups, size = algorithm.get("bepa_level1_groups", 1), algorithm.get("bepa_level1_group_size")
    if not isinstance(groups, int) or groups < 0 or (size is not None and (not isinstance(size, int) or size < 1)):
        raise UsageError(f"algorithm: expected bepa_level1_groups >= 0 and bepa_level1_group_size null or >= 1, "
                         f"received {groups!r}, {size!r}")
    if loss_mode == LOSS and not level2:
        raise UsageError(f"loss_mode={LOSS} needs algorithm.bepa_level2=true: without LEVEL-2 no row is off-policy")
    if (page or level2) and config.actor_rollout_ref.rollout.agent.get("default_agent_loop") != AGENT_LOOP:
        raise UsageError(f"PAGE and BEPA read the {AGENT_LOOP!r} agent loop's fields: set "
                         f"actor_rollout_ref.rollout.agent.default_agent_loop={AGENT_LOOP}")
    correction = algorithm.get("rollout_correction") or {}
    if page and (algorithm.get("use_kl_in_reward", False) or (not correction.get("bypass_mode", False) and (
            correction.get("rollout_is") is not None or correction.get("rollout_rs") is not None))):
        raise UsageError("the gui_gym trainer's PAGE advantage does not apply verl's in-reward KL penalty or "
                         "rollout correction: set algorithm.use_kl_in_reward=false and leave "
                         "algorithm.rollout_correction.rollout_is / rollout_rs unset (or bypass_mode=true)")
    if page and (config.get("gui_gym") or {}).get("page") is None:
        raise UsageError("adv_estimator=page needs the gui_gym.page section: PAGE's wrappers (a judge) give the "
                         "episodes their progress and subtask spans")
    if loss_mode == LOSS:
        from verl.trainer.distillation import is_distillation_enabled

        if is_distillation_enabled(config.get("distillation")):
            raise UsageError(f"loss_mode={LOSS} replaces the actor's loss with verl's ppo_loss; it does not combine "
                             "with verl's distillation loss")
    mode = config.trainer.get("v1", {}).get("trainer_mode")
    if mode != TRAINER:
        raise UsageError(f"the gui_gym trainer was made for trainer.v1.trainer_mode={mode!r}; select it with "
                         f"{SELECT_TRAINER}")


def episode_rows(value: Any, size: int) -> list[dict[str, Any]]:
    """The per-sample ``extra_fields`` dicts of a TransferQueue field (a tensordict
    ``NonTensorStack``, or a list when already plain)."""
    rows = value.tolist() if hasattr(value, "tolist") else list(value)
    if len(rows) != size:
        raise ValueError(f"expected {size} samples' extra_fields, received {len(rows)}")
    return [dict(row or {}) for row in rows]


def padded(value: Any) -> torch.Tensor:
    """A per-sample field as one padded [batch, tokens] tensor (TransferQueue keeps samples of
    different lengths as a nested tensor)."""
    if getattr(value, "is_nested", False):
        return torch.nested.to_padded_tensor(value, 0.0)
    return value


def page_fields(fields: Any, algorithm: Any) -> Any:
    """PAGE on the fields the trainer reads from the TransferQueue (``uid``, ``response_mask``,
    ``rm_scores``, ``extra_fields``): ``advantages`` and ``returns`` laid out as the response
    mask is (nested, one row per sample's length, or one padded tensor)."""
    from tensordict import TensorDict
    from verl.workers.utils.padding import response_to_nested

    response_mask = fields["response_mask"]
    mask, rewards = padded(response_mask), padded(fields["rm_scores"])
    uids = list(fields["uid"].tolist() if hasattr(fields["uid"], "tolist") else fields["uid"])
    advantages = token_advantages(rewards, mask, uids, episode_rows(fields["extra_fields"], len(uids)), algorithm)
    if getattr(response_mask, "is_nested", False):
        advantages = response_to_nested(advantages, response_mask)
    # samples of one length come stacked (verl's list_of_dict_to_tensordict): the rows are whole already
    return TensorDict({"advantages": advantages, "returns": advantages.clone()}, batch_size=len(uids))


def instance_of(episode: dict[str, Any]) -> tuple[str, int | None]:
    """A sample's task instance, BEPA's cache key (`gui_gym.trainers.bepa.instance_key`)."""
    if episode.get("task_id") is None:
        raise UsageError("BEPA's LEVEL-2 needs each sample's task_id (the gui_gym agent loop's extra field)")
    seed = episode.get("instance_seed")
    return str(episode["task_id"]), None if seed is None else int(seed)


try:  # verl's v1 trainer needs TransferQueue and torchdata (scripts/setup.sh installs them)
    from verl.trainer.ppo.v1 import register_trainer
    from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync
except ImportError as exc:  # pragma: no cover - depends on the environment
    logger.warning("the gui_gym verl trainer is not registered: verl's v1 trainer does not import here (%s); "
                   "pip install --no-deps 'TransferQueue==0.1.10' 'torchdata==0.11.0' (scripts/setup.sh)", exc)
else:
    @register_trainer(TRAINER)
    class GUIGymTrainer(PPOTrainerSync):
        """verl's synchronous trainer with PAGE's advantage and BEPA's LEVEL-2 and loss (module docstring)."""

        def __init__(self, config: Any):
            check_config(config)
            super().__init__(config)
            algorithm = config.algorithm
            self.level2 = bool(algorithm.get("bepa_level2", False))
            self.bepa = {key: algorithm.get(key, default) for key, default in BEPA_OPTIONS.items()}
            self.cache: TaskCache = TaskCache(int(self.bepa["bepa_cache_capacity"]))

        def on_init_end(self) -> None:
            super().on_init_end()
            actor = self.config.actor_rollout_ref.actor
            if actor.policy_loss.get("loss_mode", "vanilla") == LOSS:
                from verl.utils.config import omega_conf_to_dataclass

                self.actor_rollout_wg.set_loss_fn(partial(bepa_ppo_loss, config=omega_conf_to_dataclass(actor),
                                                          luffy_gamma=float(self.bepa["bepa_luffy_gamma"])))

        def on_train_begin(self) -> None:
            super().on_train_begin()
            if self.level2 and int(self.bepa["bepa_level1_groups"]) > 0:
                stats = self._level1()
                logger.info("BEPA LEVEL-1: %s", stats)
                self.logger.log(data=stats, step=self.global_steps)

        def _level1(self) -> dict[str, float]:
            """LEVEL-1 through verl's agent loop manager (module docstring): the cache's seeding."""
            import uuid

            import numpy as np
            import transfer_queue as tq
            from verl.utils import tensordict_utils as tu
            from verl.utils.dataset.rl_dataset import collate_fn

            from gui_gym.runtime.waiting import wait_until

            rows = level1_rows([self.train_dataset[i] for i in range(len(self.train_dataset))],
                               int(self.bepa["bepa_level1_groups"]))
            batch_dict = collate_fn(rows)
            uids = [str(uuid.uuid4()) for _ in rows]
            batch_dict["uid"] = np.array(uids, dtype=object)
            batch = tu.get_tensordict(batch_dict)
            tu.assign_non_tensor_data(batch, "global_steps", self.global_steps)
            size = self.bepa["bepa_level1_group_size"] or self.config.actor_rollout_ref.rollout.n
            tu.assign_non_tensor_data(batch, "__rollout_n__", int(size))  # verl's worker reads it per prompt
            tq.kv_batch_put(keys=uids, partition_id="train",
                            tags=[{"is_prompt": True, "status": "pending", "global_steps": self.global_steps}
                                  for _ in uids])
            self.agent_loop_manager.generate_sequences(batch)
            wanted = set(uids)

            def settled() -> dict[str, dict] | None:
                items = (tq.kv_list("train") or {}).get("train", {})
                done = all(items.get(uid, {}).get("status") in ("finished", "failure") for uid in uids)
                return items if done else None

            items = wait_until(settled, timeout_s=float("inf"), interval_s=0.5, max_interval_s=5.0)
            keys = sorted(key for key in items if key not in wanted and key.split("_")[0] in wanted)  # {uid}_{n}_{i}
            stats = {metrics.LEVEL1_CRASHED_GROUPS: float(sum(items[uid]["status"] == "failure" for uid in uids))}
            if keys:
                data = tq.kv_batch_get(keys=keys, partition_id="train")
                episodes = episode_rows(data["extra_fields"], len(keys))
                stats.update(level1_seeding(self.cache, [instance_of(e) for e in episodes], episodes,
                                            lambda r: (data[r:r + 1].clone(), dict(items[keys[r]]))))
            tq.kv_clear(keys=uids + keys, partition_id="train")
            stats[metrics.CACHE_TASKS] = float(len(self.cache))
            return stats

        def _compute_advantage(self, batch: Any, metrics: dict) -> Any:
            if self.config.algorithm.adv_estimator != ESTIMATOR:
                return super()._compute_advantage(batch, metrics)
            import transfer_queue as tq

            fields = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id,
                                     select_fields=["uid", "response_mask", "rm_scores", "extra_fields"])
            output = page_fields(fields, self.config.algorithm)
            return tq.kv_batch_put(keys=batch.keys, partition_id=batch.partition_id, fields=output)

        def _balance_batch(self, batch: Any, metrics: dict, logging_prefix: str = "global_seqlen",
                           keep_minibatch: bool = False) -> Any:
            if self.level2:
                batch = self._level2(batch, metrics)
            return super()._balance_batch(batch, metrics, logging_prefix=logging_prefix, keep_minibatch=keep_minibatch)

        def _level2(self, batch: Any, metrics: dict) -> Any:
            import transfer_queue as tq
            from tensordict import TensorDict

            data = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id)
            size = len(batch.keys)
            episodes = episode_rows(data["extra_fields"], size)
            scores = padded(data["rm_scores"]).sum(dim=-1).tolist()
            uids = list(data["uid"].tolist())
            injections, counters = level2_injections(
                uids, [instance_of(e) for e in episodes], scores, self.cache,
                lambda r: (data[r:r + 1].clone(), dict(batch.tags[r])), inject_index=int(self.bepa["bepa_inject_index"]),
                success_threshold=float(self.bepa["bepa_success_threshold"]))
            for row, (fields, tag) in injections.items():
                fields = fields.clone()
                fields["uid"] = data[row:row + 1]["uid"]  # the cached sample joins the failed group
                tq.kv_batch_put(keys=[batch.keys[row]], partition_id=batch.partition_id, fields=fields, tags=[tag])
                batch.tags[row] = tag
            off_policy = torch.tensor([row in injections for row in range(size)])
            tq.kv_batch_put(keys=batch.keys, partition_id=batch.partition_id,
                            fields=TensorDict({"off_policy": off_policy}, batch_size=size))
            metrics.update(counters)
            return batch  # its tags now those of the samples the keys hold
