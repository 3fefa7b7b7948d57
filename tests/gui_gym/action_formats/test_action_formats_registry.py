"""The action-format registry: built-in formats, suite formats registered with the env ids,
and a clear error for an unknown or doubly claimed name."""

from __future__ import annotations

import pytest

import gui_gym
from gui_gym import action_formats
from gui_gym.errors import UsageError


def test_suite_formats_come_with_the_ids_and_names_are_guarded():
    assert gui_gym.parse_action("B", "choice") == gui_gym.Action.answer("B")
    assert action_formats.get_format("point").__name__ == "gui_gym.suites.mmbench.point_format"
    action_formats.register_format("choice", "gui_gym.suites.mmbench.choice_format")  # the same pair again: fine
    with pytest.raises(ValueError, match="action format 'choice' is already 'gui_gym.suites.mmbench.choice_format'; "
                                         "received 'my.module'"):
        action_formats.register_format("choice", "my.module")
    with pytest.raises(UsageError, match=r"unknown action format 'nope'; expected one of \[.*'choice'"):
        gui_gym.parse_action("click", "nope")
