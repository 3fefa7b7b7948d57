"""The ``GUI/*`` ids, and making one from a command line's arguments. Entry points are
``"module:function"`` strings (`gui_gym.envs`), so specs stay serializable and nothing heavy
is imported until `gym.make`. `make` and `parse_kwargs` serve both command lines
(``gui-bench``, ``gui-train``) and any script that takes ``--env-arg KEY=VALUE``."""

from __future__ import annotations

import difflib
import json
from typing import Any, Iterable

import gymnasium as gym

from gui_gym.action_formats import register_format
from gui_gym.errors import GUIGymError, UsageError

ENV_IDS: dict[str, str] = {
    "GUI/Demo-v0": "gui_gym.envs.demo:make_env",
    "GUI/LocalWeb-v0": "gui_gym.envs.localweb:make_env",
    "GUI/OSWorld-v0": "gui_gym.envs.osworld:make_env",
    "GUI/OnlineMind2Web-v0": "gui_gym.envs.mind2web:make_env",
    "GUI/MiniWoB-v0": "gui_gym.envs.miniwob:make_env",
    "GUI/MMBench-GUI-L1-v0": "gui_gym.envs.mmbench:make_l1_env",
    "GUI/MMBench-GUI-L2-v0": "gui_gym.envs.mmbench:make_l2_env",
    "GUI/Android-v0": "gui_gym.envs.android:make_env",
    "GUI/AndroidControl-v0": "gui_gym.envs.android:make_androidcontrol_env",
    "GUI/CUBE-v0": "gui_gym.envs.cube:make_env",
}
"""id -> entry point."""

DEFAULT_ENV_ID = "GUI/LocalWeb-v0"
"""The embedded suite: what ``gui-bench`` and ``gui-train`` run when no env is named."""

SUITE_ACTION_FORMATS: dict[str, str] = {
    "choice": "gui_gym.suites.mmbench.choice_format",
    "point": "gui_gym.suites.mmbench.point_format",
}
"""Answer formats of a suite's own (MMBench-GUI L1's options, L2's points), registered with
the ids so `gui_gym.action_formats` needs to name no suite."""


def register_all() -> None:
    """Register every id and suite action format once (idempotent: a second import does not
    warn)."""
    for name, module in SUITE_ACTION_FORMATS.items():
        register_format(name, module)
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, nondeterministic=True)


def parse_kwarg(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` env (or agent, policy, trainer) argument from a command line: the
    value is read as JSON when it is JSON (numbers, booleans, lists, objects), else kept as
    text. Raises ValueError without a key or an ``=``."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected KEY=VALUE, received {text!r}")
    try:
        return key.strip(), json.loads(raw)
    except json.JSONDecodeError:
        return key.strip(), raw


def parse_kwargs(pairs: Iterable[str] | None, what: str) -> dict[str, Any]:
    """``["k=v", ...]`` as a dict, each pair read by `parse_kwarg`; `what` names the option in
    the error (``--env-arg``), a `UsageError`."""
    values: dict[str, Any] = {}
    for pair in pairs or []:
        try:
            key, value = parse_kwarg(pair)
        except ValueError:
            raise UsageError(f"{what} expects key=value, received {pair!r}") from None
        values[key] = value
    return values


def make(env_id: str, env_kwargs: dict[str, Any]) -> gym.Env:
    """``gym.make(env_id, **env_kwargs)`` with errors that help: an unknown id names the nearest
    registered ones; any failure to build is a `GUIGymError` (a `UsageError` unless the env
    raised a typed error of its own). No browser starts before ``reset``."""
    try:
        return gym.make(env_id, **env_kwargs)
    except gym.error.Error as exc:
        ids = [i for i in gym.registry if i.startswith("GUI/")]
        close = difflib.get_close_matches(env_id, ids, n=2)
        raise UsageError(f"cannot make {env_id!r}: {exc}" + (f"; did you mean {close}?" if close else "")) from exc
    except GUIGymError:
        raise
    except Exception as exc:
        raise UsageError(f"cannot make {env_id!r}: {type(exc).__name__}: {exc}") from exc
