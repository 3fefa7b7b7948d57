"""A training run described in a file (JSON or TOML) and on the command line: which method,
which env, which policy, and the method's settings.

The file holds the keys ``algo``, ``env``, ``policy`` and the tables ``env_args`` (keyword
arguments of ``gym.make``), ``policy_args`` (of the policy's constructor) and ``trainer``
(fields of `GRPOConfig`, `PAGEConfig` or `BEPAConfig`, by their names). Command-line values
override the file's. Unknown keys are refused with the nearest known names::

    algo = "page"
    env = "GUI/LocalWeb-v0"
    policy = "element"
    [env_args]
    apps = ["admin"]
    max_steps = 10
    [trainer]
    tasks = ["admin.invite-user"]
    episode_budget = 200
    lam = 0.5
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gui_gym.registration import DEFAULT_ENV_ID
from gui_gym.trainers.bepa import BEPAConfig
from gui_gym.trainers.grpo import GRPOConfig
from gui_gym.trainers.page import PAGEConfig

CONFIGS: dict[str, type[GRPOConfig]] = {"grpo": GRPOConfig, "page": PAGEConfig, "bepa": BEPAConfig}
KEYS = ("algo", "env", "policy", "env_args", "policy_args", "trainer")


@dataclass
class RunSpec:
    """Everything a training run needs."""

    algo: str
    env: str
    policy: str
    env_args: dict[str, Any] = field(default_factory=dict)
    policy_args: dict[str, Any] = field(default_factory=dict)
    trainer: GRPOConfig = field(default_factory=GRPOConfig)


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The file's values (``.json`` or ``.toml``), checked for unknown keys."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no config file at {path}")
    if path.suffix == ".json":
        values = json.loads(path.read_text())
    elif path.suffix == ".toml":
        values = tomllib.loads(path.read_text())
    else:
        raise ValueError(f"expected a .json or .toml config file, received {path.name!r}")
    if not isinstance(values, dict):
        raise ValueError(f"expected a table of settings in {path}, received {type(values).__name__}")
    _check_keys(values, KEYS, f"config file {path}")
    return values


def build_spec(values: Mapping[str, Any], *, algo: str | None = None, env: str | None = None,
               policy: str | None = None, env_args: Mapping[str, Any] | None = None,
               policy_args: Mapping[str, Any] | None = None, trainer: Mapping[str, Any] | None = None) -> RunSpec:
    """A `RunSpec` from file `values`, each overridden by the keyword of the same name."""
    algo = algo or values.get("algo")
    if algo not in CONFIGS:
        raise ValueError(f"expected --algo (or 'algo' in the config) to be one of {sorted(CONFIGS)}, received {algo!r}")
    policy = policy or values.get("policy", "element")
    if not isinstance(policy, str) or not policy.strip():
        raise ValueError(f"expected --policy (or 'policy' in the config) to name a trainable agent, received {policy!r}")
    for name in ("env_args", "policy_args", "trainer"):
        if not isinstance(values.get(name, {}), Mapping):
            raise ValueError(f"expected '{name}' to be a table of settings, received {values[name]!r}")
    settings = {**policy_trainer_defaults(policy, algo), **values.get("trainer", {}), **(trainer or {})}
    return RunSpec(algo, env or values.get("env", DEFAULT_ENV_ID), policy,
                   {**values.get("env_args", {}), **(env_args or {})},
                   {**values.get("policy_args", {}), **(policy_args or {})}, trainer_config(algo, settings))


def policy_trainer_defaults(policy: str, algo: str) -> dict[str, Any]:
    """The trainer settings the policy asks for unless the file or the command line says
    otherwise (its class's ``TRAINER_DEFAULTS``: a VLM's small step size and micro-batches,
    the element policy's own step size); those the method's config has no field for are left out."""
    from gui_gym.agents.loader import resolve_agent

    defaults = getattr(resolve_agent(policy), "TRAINER_DEFAULTS", None) or {}
    names = {f.name for f in dataclasses.fields(CONFIGS[algo])}
    return {key: value for key, value in defaults.items() if key in names}


def trainer_config(algo: str, settings: Mapping[str, Any]) -> GRPOConfig:
    """The method's config dataclass from `settings` (field names as keys)."""
    kind = CONFIGS[algo]
    names = [f.name for f in dataclasses.fields(kind)]
    _check_keys(settings, names, f"{algo} trainer settings")
    return kind(**settings)


def _check_keys(values: Mapping[str, Any], known: Any, where: str) -> None:
    unknown = [key for key in values if key not in known]
    if unknown:
        hints = {key: difflib.get_close_matches(key, list(known), n=1) for key in unknown}
        said = ", ".join(f"{key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "") for key, hint in hints.items())
        raise ValueError(f"unknown key(s) in {where}: {said}; expected some of {sorted(known)}")
