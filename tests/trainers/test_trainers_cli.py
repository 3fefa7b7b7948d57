"""`gui-train`: config files (JSON, TOML) merged with the command line, errors that name the
nearest key, policies named as gui-bench names agents, and a real run on GUI/Demo-v0."""

from __future__ import annotations

import json

import pytest

from gui_gym.trainers import cli
from gui_gym.trainers.cli import main
from gui_gym.trainers.config import build_spec, read_config_file
from gui_gym.trainers.page import PAGEConfig

TOML = """
algo = "page"
env = "GUI/Demo-v0"
[env_args]
max_steps = 2
[policy_args]
hidden = 0
[trainer]
tasks = ["demo.press-button"]
iterations = 1
group_size = 2
lam = 0.25
"""


def test_a_toml_file_and_the_command_line_make_one_spec(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text(TOML)
    spec = build_spec(read_config_file(path), trainer={"group_size": 4}, env_args={"max_steps": 3})
    assert spec.algo == "page" and spec.env == "GUI/Demo-v0" and spec.policy == "element"
    assert isinstance(spec.trainer, PAGEConfig) and spec.trainer.lam == 0.25 and spec.trainer.group_size == 4
    assert spec.trainer.tasks == ("demo.press-button",) and spec.env_args == {"max_steps": 3}
    assert spec.policy_args == {"hidden": 0}
    json_path = tmp_path / "run.json"
    json_path.write_text(json.dumps({"algo": "bepa", "trainer": {"cache_capacity": 2}}))
    assert build_spec(read_config_file(json_path)).trainer.cache_capacity == 2


def test_bad_settings_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"unknown key\(s\) in page trainer settings: 'lamda' \(did you mean 'lam'\?\)"):
        build_spec({"algo": "page", "trainer": {"lamda": 1}})
    with pytest.raises(ValueError, match=r"'cache_capacity'"):
        build_spec({"algo": "grpo", "trainer": {"cache_capacity": 2}})  # a BEPA option, not GRPO's
    with pytest.raises(ValueError, match=r"expected --algo \(or 'algo' in the config\) to be one of"):
        build_spec({})
    (tmp_path / "run.yaml").write_text("algo: page")
    with pytest.raises(ValueError, match="expected a .json or .toml config file, received 'run.yaml'"):
        read_config_file(tmp_path / "run.yaml")
    (tmp_path / "bad.json").write_text('{"algos": "page"}')
    with pytest.raises(ValueError, match=r"'algos' \(did you mean 'algo'\?\)"):
        read_config_file(tmp_path / "bad.json")


def test_print_config_and_errors_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "run.toml"
    path.write_text(TOML)
    assert main(["--config", str(path), "--set", "seed=7", "--print-config"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["trainer"]["seed"] == 7 and printed["env_args"] == {"max_steps": 2}  # the agent adds its own
    assert not printed["trainer"]["async_rollouts"]
    assert main(["--config", str(path), "--async-rollouts", "--print-config"]) == 0
    assert json.loads(capsys.readouterr().out)["trainer"]["async_rollouts"] is True
    assert main(["--algo", "grpo", "--env", "GUI/Demo-v0", "--policy", "random"]) == 2
    assert "agent 'random' cannot be trained: a RandomAgent has no prompt, generate, logprobs" in capsys.readouterr().err
    assert main(["--config", str(path), "--set", "grup_size=3"]) == 2
    assert "did you mean 'group_size'?" in capsys.readouterr().err
    assert main(["--config", str(tmp_path / "missing.toml")]) == 2
    assert "no config file at" in capsys.readouterr().err


@pytest.mark.slow
def test_a_run_writes_its_metrics(tmp_path, capsys):
    path = tmp_path / "run.toml"
    path.write_text(TOML.replace("lam = 0.25", ""))  # a PAGE option: GRPO would refuse it
    assert main(["--config", str(path), "--algo", "grpo", "--set", "tensorboard=false", "--run-dir", str(tmp_path / "r")]) == 0
    (record,) = [json.loads(line) for line in (tmp_path / "r" / "metrics.jsonl").read_text().splitlines()]
    assert record["charts/episodes"] == 2 and "losses/policy_loss" in record
    out = capsys.readouterr().out
    assert "gui-train: grpo done: 1 record(s), 2 episodes, last success rate 1.00;" in out and "progress" not in out
    assert main(["--config", str(path), "--set", "tensorboard=false", "--policy",
                 "gui_gym.agents.policies.element:ElementPolicy"]) == 0  # PAGE reports its progress too; any spec of it
    assert "gui-train: page done: 1 record(s), 2 episodes, last success rate 1.00, progress 1.00" in capsys.readouterr().out


def test_a_run_starts_from_the_seeds_policy(monkeypatch):
    """The element policy's starting weights are random: they are drawn after the seed is
    set, so two runs of one config start alike (they once differed from process to process)."""
    import torch

    started = []
    monkeypatch.setattr(cli, "method", lambda algo: lambda cfg, policy, make_env: started.append(policy.state_dict()))
    spec = build_spec({}, algo="grpo", trainer={"seed": 3})
    torch.manual_seed(1)
    cli.train(spec)
    torch.manual_seed(2)
    cli.train(spec)
    first, second = started
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
