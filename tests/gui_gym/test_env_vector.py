"""Every GUI/* id through Gymnasium's vector APIs: `gym.make_vec` in sync and async mode gives each
sub-env the first observation a plain env gives on the same seed (issue 48: async made with its
defaults died on a curly quote or returned texts of 1,000,000 '0's). Ids whose screenshots vary in
size (recordings, MiniWoB) cannot use shared memory: async refuses it with the reason and runs
with ``shared_memory=False``. Android runs on the fake adb server's virtual phone; CUBE's id is
run through Gymnasium in its own Python (tests/gui_gym/test_cube_venv.py)."""

from __future__ import annotations

import importlib.util
import re

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers the ids)
from gui_gym.registration import ENV_IDS
from tests.fakes.adb_server import FakeAdbServer
from tests.fakes.virtual_device import VirtualDevice

SEED = 3
FIXED_SCREEN = {"GUI/Demo-v0": {}, "GUI/LocalWeb-v0": {}, "GUI/OnlineMind2Web-v0": {"mode": "local"}}
ANY_SCREEN = {"GUI/MiniWoB-v0": {}, "GUI/MMBench-GUI-L1-v0": {"data_root": "sample"},
              "GUI/MMBench-GUI-L2-v0": {"data_root": "sample"}, "GUI/AndroidControl-v0": {}}
"""Ids run here, with the arguments that make them run here; their screenshots are a Box, or
any size (`ScreenshotSpace`)."""
SCREEN_TOLERANCE = {"GUI/MiniWoB-v0": 0.005}
"""The share of a first screenshot's pixels that may differ from a plain env's: a MiniWoB page
rendered by another Chromium process under the suite's load differed in 31 of its 33,600 pixels
(twice in one CI run, never alone); an env returning another env's screen, or garbage, differs in
far more."""
DESKTOP = "GUI/OSWorld-v0"
"""A desktop per sub-env: one async run, on the local sample."""
ANDROID = "GUI/Android-v0"
"""A phone per sub-env: the fake adb server's virtual phone, one sub-env (two would share the phone)."""
ELSEWHERE = {"GUI/CUBE-v0": "wraps a CUBE benchmark, which needs Python >= 3.12: tests/gui_gym/test_cube_venv.py "
                            "runs it through Gymnasium in .venv-cube"}


def test_every_id_is_covered_here():
    assert set(FIXED_SCREEN) | set(ANY_SCREEN) | {DESKTOP, ANDROID} | set(ELSEWHERE) == set(ENV_IDS)


def _skip_without_extra(env_id):
    if env_id == "GUI/MiniWoB-v0" and importlib.util.find_spec("miniwob") is None:
        pytest.skip("GUI/MiniWoB-v0 needs the miniwob extra (pip install 'gui-gym[miniwob]')")


def _plain_first_observations(env_id, kwargs, seeds):
    env = gym.make(env_id, **kwargs)
    try:
        return [env.reset(seed=seed)[0] for seed in seeds]
    finally:
        env.close()  # before the vector env forks its workers: they must not inherit a running browser driver


def _without_port(text):
    """Each env serves its pages on a loopback port of its own."""
    return re.sub(r"^(https?://127\.0\.0\.1):\d+", r"\1:PORT", text)


def _assert_same(batch, plain, index, screen_tolerance=0.0):
    assert set(batch) == set(plain)
    for key, value in plain.items():
        got = batch[key][index]
        if isinstance(value, np.ndarray):
            assert got.shape == value.shape and got.dtype == value.dtype, key
            assert np.mean(np.any(got != value, axis=-1)) <= screen_tolerance, key
        else:
            assert type(got) is str and _without_port(got) == _without_port(value), key


def _vector_first_observations(env_id, kwargs, mode, **vector_kwargs):
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs=vector_kwargs, **kwargs)
    try:
        obs, _ = envs.reset(seed=SEED)  # sub-env i on seed SEED + i
        assert envs.observation_space.contains(obs)
        return obs
    finally:
        envs.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(FIXED_SCREEN))
def test_make_vec_sync_and_async_with_defaults_match_a_plain_env(env_id):
    kwargs = FIXED_SCREEN[env_id]
    plain = _plain_first_observations(env_id, kwargs, [SEED, SEED + 1])
    for mode in ("sync", "async"):
        obs = _vector_first_observations(env_id, kwargs, mode)
        for index in range(2):
            _assert_same(obs, plain[index], index)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(ANY_SCREEN))
def test_make_vec_of_any_size_screens_refuses_shared_memory_and_matches_without_it(env_id):
    _skip_without_extra(env_id)
    kwargs = ANY_SCREEN[env_id]
    with pytest.raises(ValueError, match="shared_memory") as refused:
        gym.make_vec(env_id, num_envs=2, vectorization_mode="async", **kwargs)
    assert "screenshots of any size fit no fixed shared-memory buffer" in str(refused.value.__cause__)
    plain = _plain_first_observations(env_id, kwargs, [SEED, SEED + 1])
    for mode, vector_kwargs in (("sync", {}), ("async", {"shared_memory": False})):
        obs = _vector_first_observations(env_id, kwargs, mode, **vector_kwargs)
        for index in range(2):
            _assert_same(obs, plain[index], index, screen_tolerance=SCREEN_TOLERANCE.get(env_id, 0.0))


@pytest.mark.slow
def test_an_async_vector_env_of_osworlds_local_sample_matches_a_plain_env():
    kwargs = {"provider": "local", "tasks": "sample", "screen_size": (640, 480), "accessibility": False, "shell": "openbox",
              "task_ids": ["sample-os-infeasible-bluetooth"]}
    plain = _plain_first_observations(DESKTOP, kwargs, [SEED])[0]
    envs = gym.make_vec(DESKTOP, num_envs=1, vectorization_mode="async", **kwargs)
    try:
        obs, _ = envs.reset(seed=SEED)
        _assert_same(obs, plain, 0, screen_tolerance=0.02)  # the panel's clock may have turned
        obs, reward, terminated, _, _ = envs.step(("FAIL",))
        assert terminated[0] and reward[0] == 1.0 and obs["instruction"] == (plain["instruction"],)
    finally:
        envs.close()


def test_an_async_vector_env_of_a_phone_matches_a_plain_env():
    with FakeAdbServer([VirtualDevice()]) as server:
        kwargs = {"adb_port": server.port, "settle_timeout_s": 1.0, "task_ids": ["SystemWifiTurnOn"]}
        plain = _plain_first_observations(ANDROID, kwargs, [SEED])[0]
        for mode in ("sync", "async"):
            envs = gym.make_vec(ANDROID, num_envs=1, vectorization_mode=mode, **kwargs)
            try:
                obs, _ = envs.reset(seed=SEED)
                assert envs.observation_space.contains(obs)
                _assert_same(obs, plain, 0)
            finally:
                envs.close()
