"""`FreeText`: any Unicode text up to a length, a space of its own (not Gymnasium's charset-bound
`Text`), which an `AsyncVectorEnv` carries through shared memory exactly and at every step.
Issue 48: as a `Text` of printable ASCII, a LocalWeb instruction's curly quote was a `KeyError`
in the worker, and every text came back as the 1,000,000 '0's of an empty buffer, read once when
the vector env was made."""

from __future__ import annotations

import copy
from contextlib import closing

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from gui_gym.spaces import FreeText, SharedTexts

TEXTS = ("Add the “Trail Mug” to the cart → check out", "", "中文 naïve \x00 end", "\ud800 a lone surrogate")


class TextEcho(gym.Env):
    """Observes the text of its step count, so each step's observation differs."""

    def __init__(self, texts=TEXTS, max_length=64):
        self.observation_space = spaces.Dict({"n": spaces.Discrete(100), "text": FreeText(max_length)})
        self.action_space = spaces.Discrete(2)
        self.texts, self.t = texts, 0

    def _obs(self):
        return {"n": self.t % 100, "text": self.texts[self.t % len(self.texts)]}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = seed or 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), 0.0, False, False, {}


def test_free_text_holds_any_unicode_up_to_its_length():
    space = FreeText(max_length=8, seed=3)
    assert space.contains("“naïve”") and space.contains("") and not space.contains("x" * 9)
    assert not space.contains(b"bytes") and not space.contains(None)
    assert not isinstance(space, spaces.Text)  # Gymnasium's Text code would read it by its charset
    samples = [space.sample() for _ in range(50)]
    assert all(space.contains(s) for s in samples) and len(set(samples)) > 40
    assert space == FreeText(8) and space != FreeText(9)
    with pytest.raises(ValueError, match="max_length must be an int >= 1, received 0"):
        FreeText(0)


def test_an_async_vector_env_carries_each_steps_text_exactly_through_shared_memory():
    fns = [lambda: TextEcho(), lambda: TextEcho()]
    with closing(AsyncVectorEnv(fns)) as envs, closing(SyncVectorEnv(fns)) as sync:
        assert envs.shared_memory
        obs, _ = envs.reset(seed=0)
        assert obs["text"] == TEXTS[:2] and isinstance(obs["text"], tuple)
        assert obs["text"] == sync.reset(seed=0)[0]["text"]
        for step in range(1, 5):  # read at each step, not once when the vector env was made
            obs = envs.step(np.zeros(2, np.int64))[0]
            assert obs["text"] == tuple(TEXTS[(n + step) % len(TEXTS)] for n in range(2))
            assert obs["text"] == sync.step(np.zeros(2, np.int64))[0]["text"]


def test_without_a_copy_the_vector_env_hands_out_a_live_view():
    with closing(AsyncVectorEnv([lambda: TextEcho()] * 2, copy=False)) as envs:
        obs, _ = envs.reset(seed=1)
        view = obs["text"]
        assert isinstance(view, SharedTexts) and list(view) == list(TEXTS[1:3]) and view[-1] == TEXTS[2]
        envs.step(np.zeros(2, np.int64))
        assert view == TEXTS[2:4] and view[0:1] == (TEXTS[2],) and copy.deepcopy(view) == TEXTS[2:4]
        with pytest.raises(IndexError):
            view[2]


def test_a_text_longer_than_its_space_is_refused_by_the_worker():
    with closing(AsyncVectorEnv([lambda: TextEcho(texts=("x" * 65,))])) as envs:
        with pytest.raises(ValueError, match=r"a FreeText\(max_length=64\) observation must be a str of at most 64 "
                                             r"characters, received 65 characters"):
            envs.reset(seed=0)


def test_an_env_with_free_text_passes_check_env():
    check_env(TextEcho(), skip_render_check=True)
