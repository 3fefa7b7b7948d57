"""The GUI/* ids and making one from command-line arguments: KEY=VALUE pairs read as JSON
where they are JSON, and an unknown id answered with the nearest ones."""

from __future__ import annotations

import gymnasium as gym
import pytest

from gui_gym.errors import UsageError
from gui_gym.registration import ENV_IDS, make, parse_kwargs


def test_every_id_is_registered_with_a_string_entry_point_in_gui_gym_envs():
    for env_id, entry_point in ENV_IDS.items():
        assert gym.registry[env_id].entry_point == entry_point
        assert entry_point.startswith(("gui_gym.envs.", "gui_gym.suites.android:")), entry_point


def test_assignments_parse_json_values_and_keep_text():
    assert parse_kwargs(["n=3", "flag=true", "size=[1280, 720]", "mode=local", "url=http://x/v1?a=b"], "--env-arg") == {
        "n": 3, "flag": True, "size": [1280, 720], "mode": "local", "url": "http://x/v1?a=b"}
    with pytest.raises(UsageError, match="--agent-arg expects key=value, received 'model'"):
        parse_kwargs(["model"], "--agent-arg")


def test_an_unknown_id_or_argument_is_a_usage_error_that_helps():
    with pytest.raises(UsageError, match=r"cannot make 'GUI/LocalWeb-v1'.*did you mean \['GUI/LocalWeb-v0'"):
        make("GUI/LocalWeb-v1", {})
    with pytest.raises(UsageError, match="cannot make 'GUI/Demo-v0': TypeError: .*'colour'"):
        make("GUI/Demo-v0", {"colour": "red"})
    env = make("GUI/Demo-v0", {"max_steps": 3})  # no browser before reset
    try:
        assert env.unwrapped.max_steps == 3
    finally:
        env.close()
