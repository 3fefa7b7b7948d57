"""PAGE and BEPA registered in the real verl (0.9.1): verl's registries return our functions,
and on verl's own data structures (`DataProto`, `ActorConfig`) they give the numbers of our
trainers' own computation and of verl's built-in GRPO and clipped loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch

verl = pytest.importorskip("verl", reason="the verl extra: scripts/setup.sh installs it")

import gui_gym.trainers.verl_plugins  # noqa: E402,F401 - registers the plug-ins
from gui_gym.errors import UsageError  # noqa: E402
from gui_gym.trainers.bepa import TaskCache, luffy_loss  # noqa: E402
from gui_gym.trainers.grpo import aggregate, clipped_policy_losses  # noqa: E402
from gui_gym.trainers.page import page_advantages  # noqa: E402
from gui_gym.trainers.rollout import Rollout, Step  # noqa: E402
from gui_gym.trainers.verl_plugins.advantages import compute_page_advantage, page_batch_advantages, token_advantages  # noqa: E402,E501
from gui_gym.trainers.verl_plugins.bepa import compute_policy_loss_bepa_luffy, level2_hook  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.trainer.ppo.core_algos import (compute_grpo_outcome_advantage, get_adv_estimator_fn,  # noqa: E402
                                         get_policy_loss_fn)
from verl.workers.config import ActorConfig  # noqa: E402


def outcome_rewards(scores, width=6, lengths=None):
    """verl's layout: the score on each response's last token."""
    rewards = torch.zeros(len(scores), width)
    mask = torch.zeros(len(scores), width)
    for row, score in enumerate(scores):
        n = lengths[row] if lengths else width
        rewards[row, n - 1], mask[row, :n] = score, 1
    return rewards, mask


def test_verl_finds_page_and_bepa_luffy_by_name():
    """The names stay registered so that verl's own steps reach them and stop (the trainer's
    tests show the messages); PAGE's value comes from token_advantages, tested below."""
    assert get_adv_estimator_fn("page") is compute_page_advantage
    assert get_policy_loss_fn("bepa_luffy") is compute_policy_loss_bepa_luffy


def test_page_with_no_subtask_term_is_verls_grpo_on_progress():
    from omegaconf import OmegaConf

    rewards, mask = outcome_rewards([1, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.25], lengths=[6, 5, 4, 6, 6, 6, 6, 6, 3, 6])
    index = np.array(["g"] * 8 + ["h", "h"], dtype=object)
    episodes = [{"step_index": [0] * int(m.sum())} for m in mask]
    for norm in (True, False):
        ours = token_advantages(rewards, mask, index, episodes, OmegaConf.create({"norm_adv_by_std_in_grpo": norm}))
        theirs, _ = compute_grpo_outcome_advantage(rewards, mask, index, norm_adv_by_std_in_grpo=norm)
        torch.testing.assert_close(ours, theirs)
    assert ours[1, 5].item() == 0.0  # off the response


PAGE_CONFIGS = [  # verl's algorithm section -> gui_gym.trainers.page.page_advantages' keywords
    ({}, {"lam": 0.5, "norm_std": True}),  # verl normalizes by the group's std by default, we do not
    ({"page_inter_weight": 0.0, "norm_adv_by_std_in_grpo": False}, {"lam": 0.5, "inter_weight": 0.0, "norm_std": False}),
    ({"page_group_norm_spans": True, "page_lam": 1.0}, {"lam": 1.0, "group_norm_spans": True, "norm_std": True}),
    ({"page_intra_mode": "signed", "norm_adv_by_std_in_grpo": False}, {"lam": 0.5, "intra_mode": "signed",
                                                                       "norm_std": False}),
]


@pytest.mark.parametrize("algorithm, ours", PAGE_CONFIGS)
def test_page_on_a_verl_batch_equals_our_trainers_page(algorithm, ours):
    """Two groups of multi-step rollouts with subtasks; observation tokens sit between steps
    (mask 0, step -1). Every trained token gets its step's advantage from gui_gym.trainers.page, with
    PAGE's options read from verl's algorithm config; the steps come as the agent loop's
    per-sample lists."""
    from omegaconf import OmegaConf

    spec = [  # (progress, steps' token counts, spans completed, step -> span)
        (0.5, [2, 3], [True, False], [0, 1]),
        (0.0, [1, 2, 2], [False], [0, 0, -1]),
        (1.0, [3], [True], [0]),
        (0.25, [2, 1], None, None),  # annotation failed: no intra term
    ]
    uids = ["a", "a", "a", "b"]
    width = 12
    rewards, mask = torch.zeros(len(spec), width), torch.zeros(len(spec), width)
    step_index = torch.full((len(spec), width), -1)
    rollouts, subtasks, owners = [], [], []
    for row, (progress, steps, done, owner) in enumerate(spec):
        at = 0
        for t, n in enumerate(steps):
            mask[row, at:at + n], step_index[row, at:at + n] = 1, t
            at += n + 2  # two observation tokens after each step
        rewards[row, at - 3] = progress
        info = {"progress": progress}
        if done is not None:
            info.update(subtasks=[{"description": f"s{m}", "completed": u} for m, u in enumerate(done)],
                        subtask_of_step=owner)
        subtasks.append(info.get("subtasks"))
        owners.append(info.get("subtask_of_step"))
        rollout = Rollout(task_id="t", instruction="")
        rollout.steps = [Step(token_ids=(0,) * n, info=info) for n in steps]
        rollouts.append(rollout)
    tensors = {"token_level_rewards": rewards, "response_mask": mask}
    non_tensors = {"uid": np.array(uids, dtype=object), "subtasks": np.array(subtasks + [None], dtype=object)[:-1],
                   "subtask_of_step": np.array(owners + [None], dtype=object)[:-1]}
    non_tensors["step_index"] = np.array([row[:int((row >= 0).nonzero().max()) + 1].tolist() for row in step_index]
                                             + [None], dtype=object)[:-1]
    data = DataProto.from_dict(tensors=tensors, non_tensors=non_tensors)
    page_batch_advantages(data, config=OmegaConf.create({"adv_estimator": "page", **algorithm}))
    for group in ([0, 1, 2], [3]):
        expected = page_advantages([rollouts[r] for r in group], **ours)
        for r, per_step in zip(group, expected):
            for tok in range(width):
                step = int(step_index[r, tok])
                want = per_step[step] if step >= 0 else 0.0
                assert data.batch["advantages"][r, tok].item() == pytest.approx(want, abs=1e-5), (r, tok)
    assert data.batch["advantages"][0, 0].item() != data.batch["advantages"][0, 4].item()  # the subtask term shows


def actor_config(**overrides):
    return ActorConfig(strategy="fsdp", rollout_n=4, ppo_mini_batch_size=4, ppo_micro_batch_size_per_gpu=1,
                       use_dynamic_bsz=False,
                       **overrides)


@pytest.mark.parametrize("mode", ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"])
def test_the_bepa_loss_is_verls_clip_on_own_tokens_and_luffy_on_injected_ones(mode):
    torch.manual_seed(0)
    old, new = torch.randn(4, 5) - 2, torch.randn(4, 5) - 2
    advantages = torch.randn(4, 1).expand(4, 5).clone()
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=torch.float32)
    config = actor_config(clip_ratio=0.2, clip_ratio_low=0.2, clip_ratio_high=0.28, clip_ratio_c=3.0)
    own = torch.zeros(4, dtype=torch.bool)
    ours, metrics = compute_policy_loss_bepa_luffy(old, new, advantages, mask, mode, config, off_policy=own)
    vanilla, _ = get_policy_loss_fn("vanilla")(old, new, advantages, mask, mode, config)
    torch.testing.assert_close(ours, vanilla)
    off = torch.tensor([False, True, False, False])
    mixed, metrics = compute_policy_loss_bepa_luffy(old, new, advantages, mask, mode, config, off_policy=off)
    core = clipped_policy_losses(new, old, advantages, 0.2, 0.28, dual_clip=3.0)
    core = torch.where(off.unsqueeze(-1).expand_as(core), luffy_loss(0.1)(new, advantages), core)
    torch.testing.assert_close(mixed, aggregate(core, mask.bool(), mode))
    assert metrics["bepa/off_policy_tokens"] == 5.0
    with pytest.raises(UsageError, match="needs the gui_gym trainer"):
        get_policy_loss_fn("bepa_luffy")(old, new, advantages, mask, mode, config)


def test_the_level2_hook_injects_into_all_fail_groups_only_and_refreshes_on_success():
    def batch(scores, uids, tasks, marker, seeds=None):
        scores = torch.tensor(scores, dtype=torch.float32)
        return DataProto.from_dict(
            tensors={"token_level_scores": torch.nn.functional.pad(scores.unsqueeze(-1), (2, 0)),
                     "responses": torch.full((len(scores), 3), marker) + torch.arange(len(scores)).unsqueeze(-1)},
            non_tensors={"uid": np.array(uids, dtype=object), "task_id": np.array(tasks, dtype=object),
                         "instance_seed": np.array(seeds or [0] * len(scores), dtype=object)})

    cache = TaskCache()
    first, counters = level2_hook(batch([0, 1, 0, 0], ["u1", "u1", "u2", "u2"], ["A", "A", "B", "B"], 10), cache)
    assert counters == {"bepa/all_fail_groups": 1.0, "bepa/injections": 0.0, "bepa/cache_instances": 1.0}
    assert first.batch["off_policy"].tolist() == [False] * 4 and ("A", 0) in cache and ("B", 0) not in cache
    assert torch.equal(first.batch["responses"][:, 0], torch.tensor([10, 11, 12, 13]))
    second, counters = level2_hook(batch([0, 0, 0, 1], ["v1", "v1", "v2", "v2"], ["A", "A", "B", "B"], 20), cache,
                                   inject_index=1)
    assert counters == {"bepa/all_fail_groups": 1.0, "bepa/injections": 1.0, "bepa/cache_instances": 2.0}
    assert second.batch["off_policy"].tolist() == [False, True, False, False]
    assert second.batch["responses"][1].tolist() == [11, 11, 11]  # A's cached success from the first batch
    assert list(second.non_tensor_batch["uid"]) == ["v1", "v1", "v2", "v2"]  # it joined its new group
    assert second.batch["token_level_scores"][1].sum().item() == 1.0 and ("B", 0) in cache
    assert cache.get(("B", 0)).trajectory.batch["responses"][0].tolist() == [23, 23, 23]
    # another instance of A fails all: A's instance-0 success is no expert for it
    third, counters = level2_hook(batch([0, 0], ["w", "w"], ["A", "A"], 30, seeds=[1, 1]), cache)
    assert counters["bepa/injections"] == 0.0 and third.batch["off_policy"].tolist() == [False, False]


def test_level1_plays_the_rows_with_a_plan_on_it_and_seeds_successes_per_instance():
    from gui_gym.trainers.verl_plugins.agent_loop import LEVEL1_FLAG, level1_plan
    from gui_gym.trainers.verl_plugins.bepa import level1_rows, level1_seeding
    from gui_gym.trainers.verl_plugins.tasks import task_rows

    rows = task_rows("GUI/LocalWeb-v0", ["t"], [0, 1], plans=lambda task, seed: ["open it", "buy"] if seed else None)
    assert "plan" not in rows[0]["extra_info"] and rows[1]["extra_info"]["plan"] == ["open it", "buy"]
    level1 = level1_rows(rows, groups=2)
    assert [row["extra_info"]["instance_seed"] for row in level1] == [1, 1]
    assert "bepa_level1" not in rows[1]["extra_info"]  # the dataset's rows are left as they were
    assert level1_plan(level1[0]["extra_info"]) == ["open it", "buy"]
    assert level1_plan(rows[1]["extra_info"]) is None  # a training row with a plan is played on the plain prompt
    with pytest.raises(UsageError, match="needs extra_info.plan as a non-empty list"):
        level1_plan({"task_id": "t", LEVEL1_FLAG: True, "plan": ["", "buy"]})
    with pytest.raises(UsageError, match="found no training row with extra_info.plan"):
        level1_rows(rows[:1], groups=1)
    cache = TaskCache(1)
    episodes = [{"success": True}, {"success": False}, {"success": True, "infra_error": "display lost"},
                {"success": True}]
    stats = level1_seeding(cache, [("t", 1), ("t", 1), ("t", 2), ("t", 3)], episodes, lambda r: f"row{r}")
    assert stats == {"bepa/level1_episodes": 4.0, "bepa/level1_successes": 2.0, "bepa/cache_tasks": 2.0}
    assert cache.get(("t", 1)).trajectory == "row0" and cache.get(("t", 1)).source == "level1"
    assert ("t", 2) not in cache and cache.get(("t", 3)).trajectory == "row3"
