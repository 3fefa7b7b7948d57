"""The example verl configs (examples/verl) compose with verl 0.9.1's own hydra configs, name
only keys verl has (besides PAGE's ``algorithm.page_*`` and our ``gui_gym`` section), convert to
verl's config dataclasses, and their estimator, loss and agent loop resolve, through verl's
registries, to the registered plug-ins; the task rows they train on load in verl's dataset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("verl", reason="the verl extra: scripts/setup.sh installs it")

from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

import gui_gym.trainers.verl_plugins  # noqa: E402,F401 - registers the plug-ins
from gui_gym.trainers.verl_plugins.advantages import PAGE_OPTIONS, compute_page_advantage  # noqa: E402
from gui_gym.trainers.verl_plugins.agent_loop import EpisodeSettings, GUIGymAgentLoop  # noqa: E402
from gui_gym.trainers.verl_plugins.bepa import BEPA_OPTIONS  # noqa: E402
from gui_gym.trainers.verl_plugins.tasks import main as write_tasks  # noqa: E402
from verl.experimental.agent_loop.agent_loop import _agent_loop_registry  # noqa: E402
from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage, get_adv_estimator_fn, get_policy_loss_fn  # noqa: E402
from verl.utils.config import omega_conf_to_dataclass  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verl"
OURS = {"hydra", "defaults", "gui_gym"}


def composed(name: str):
    with initialize_config_dir(config_dir=str(EXAMPLES), version_base=None):
        return compose(config_name=name)


def verl_base():
    import verl

    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        return compose(config_name="ppo_trainer")


def leaf_keys(node, prefix=""):
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and not path.endswith(("engine_kwargs.vllm", "mm_processor_kwargs")):
            yield from leaf_keys(value, path + ".")
        else:
            yield path


@pytest.mark.parametrize("name, estimator, loss, env_id", [
    ("page_uitars7b_osworld", compute_page_advantage, "vanilla", "GUI/OSWorld-v0"),
    ("bepa_qwen25vl3b_localweb", compute_grpo_outcome_advantage, "bepa_luffy", "GUI/LocalWeb-v0"),
])
def test_an_example_config_composes_with_verls_and_names_the_registered_plug_ins(name, estimator, loss, env_id):
    cfg = composed(name)
    base = OmegaConf.to_container(verl_base())
    written = OmegaConf.to_container(OmegaConf.load(EXAMPLES / f"{name}.yaml"))
    for key in leaf_keys({k: v for k, v in written.items() if k not in OURS}):
        if key.startswith(("algorithm.page_", "algorithm.bepa_")):
            assert key.split(".", 1)[1] in {**PAGE_OPTIONS, **BEPA_OPTIONS}, key
            continue
        node = base
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"{name}: verl 0.9.1 has no {key}"
            node = node[part]
    # verl's registries return our plug-ins (or verl's own) for the names the config gives
    assert get_adv_estimator_fn(cfg.algorithm.adv_estimator) is estimator
    assert get_policy_loss_fn(cfg.actor_rollout_ref.actor.policy_loss.loss_mode) is get_policy_loss_fn(loss)
    loop = cfg.actor_rollout_ref.rollout.agent.default_agent_loop
    assert _agent_loop_registry[loop]["_target_"] == f"{GUIGymAgentLoop.__module__}.{GUIGymAgentLoop.__qualname__}"
    # the sections verl turns into dataclasses take the values (PAGE's and BEPA's keys aside: the
    # gui_gym trainer reads them from the algorithm section as it is)
    algorithm = OmegaConf.create({k: v for k, v in OmegaConf.to_container(cfg.algorithm).items()
                                  if not k.startswith(("page_", "bepa_"))})
    assert omega_conf_to_dataclass(algorithm).adv_estimator == cfg.algorithm.adv_estimator
    rollout = omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout)
    assert rollout.agent.default_agent_loop == "gui_gym" and rollout.n == 8
    assert rollout.response_length == cfg.data.max_response_length
    actor = omega_conf_to_dataclass(cfg.actor_rollout_ref.actor)
    assert actor.policy_loss.loss_mode == loss
    settings = EpisodeSettings.from_config(cfg.gui_gym)
    assert settings.env_id == env_id and (settings.page is not None) == (estimator is compute_page_advantage)


def test_the_task_rows_load_in_verls_dataset_as_the_agent_loop_reads_them(tmp_path):
    from transformers import AutoTokenizer
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl

    out = tmp_path / "demo.parquet"
    assert write_tasks(["--env", "GUI/Demo-v0", "--instance-seeds", "2", "--out", str(out)]) == 0
    build_tiny_qwen25_vl(tmp_path / "model")
    cfg = composed("bepa_qwen25vl3b_localweb")
    dataset = RLHFDataset(data_files=[str(out)], tokenizer=AutoTokenizer.from_pretrained(tmp_path / "model"),
                          config=cfg.data)
    rows = [dataset[i] for i in range(len(dataset))]
    assert len(rows) == 6  # Demo's 3 tasks x 2 seeds
    assert [(r["extra_info"]["task_id"], r["extra_info"]["instance_seed"]) for r in rows[:2]] == [
        ("demo.press-button", 0), ("demo.press-button", 1)]
    assert {r["agent_name"] for r in rows} == {"gui_gym"} and rows[0]["raw_prompt"][0]["role"] == "user"


def test_level1_rows_with_plans_travel_through_verls_dataset_and_batch_as_the_agent_loop_reads_them(tmp_path):
    """``tasks --plans`` rows read by verl's RLHFDataset, made into LEVEL-1's batch with the calls
    the trainer makes (verl's collate_fn, get_tensordict, assign_non_tensor_data), then split
    per prompt as verl's AgentLoopWorkerTQ splits a batch: each prompt's extra_info holds its
    plan and the LEVEL-1 mark, and ``__rollout_n__`` the group size."""
    import pandas as pd
    from tensordict.tensorclass import NonTensorData, NonTensorStack
    from transformers import AutoTokenizer
    from verl.utils import tensordict_utils as tu
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    from gui_gym.models.tiny_qwen import build_tiny_qwen25_vl
    from gui_gym.trainers.verl_plugins.agent_loop import level1_plan
    from gui_gym.trainers.verl_plugins.bepa import level1_rows

    out = tmp_path / "shop.parquet"
    assert write_tasks(["--env", "GUI/LocalWeb-v0", "--env-arg", 'apps=["shop"]', "--tasks", "shop.add-to-cart",
                        "--instance-seeds", "2", "--plans", "--out", str(out)]) == 0
    build_tiny_qwen25_vl(tmp_path / "model")
    dataset = RLHFDataset(data_files=[str(out)], tokenizer=AutoTokenizer.from_pretrained(tmp_path / "model"),
                          config=composed("bepa_qwen25vl3b_localweb").data)
    written = list(pd.read_parquet(out).extra_info)
    rows = level1_rows([dataset[i] for i in range(len(dataset))], groups=1)
    batch = tu.get_tensordict({**collate_fn(rows), "uid": np.array(["u0", "u1"], dtype=object)})
    tu.assign_non_tensor_data(batch, "__rollout_n__", 3)
    for i in range(len(batch)):
        prompt = {k: v[i].data if isinstance(v, NonTensorStack) else v.data if isinstance(v, NonTensorData) else v[i]
                  for k, v in batch.items()}
        assert prompt["__rollout_n__"] == 3 and prompt["extra_info"]["instance_seed"] == i
        assert level1_plan(prompt["extra_info"]) == list(written[i]["plan"]) and len(written[i]["plan"]) >= 2
    assert level1_plan(dict(dataset[0]["extra_info"])) is None  # the training row itself: the plain prompt


def test_the_agent_loop_annotates_subtasks_only_when_the_advantage_reads_them():
    from gui_gym.trainers.verl_plugins.agent_loop import uses_subtasks
    from gui_gym.wrappers.progress import ProgressReward
    from gui_gym.wrappers.subtasks import SubtaskAnnotation

    assert uses_subtasks(composed("page_uitars7b_osworld"))
    assert not uses_subtasks(OmegaConf.create({"algorithm": {"adv_estimator": "page", "page_lam": 0.0}}))
    assert not uses_subtasks(composed("bepa_qwen25vl3b_localweb"))
    settings = EpisodeSettings(env_id="GUI/Demo-v0", page={"judge": "oracle"})
    for subtasks in (True, False):
        env = settings.make_env(subtasks=subtasks)
        try:
            layers, layer = [], env
            while hasattr(layer, "env"):
                layers.append(type(layer))
                layer = layer.env
            assert ProgressReward in layers and (SubtaskAnnotation in layers) == subtasks
        finally:
            env.close()
