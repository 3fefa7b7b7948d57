"""Remote envs on a real two-node Ray cluster (a head and a second node joined to it, in a
private network namespace so nothing listens beyond loopback): the same observations, rewards
and info as a local env, check_env, the call-through, placement by custom resource, an actor
killed mid-episode and a call that overruns its timeout, and training rollouts over a pool of
remote envs that match the thread pool's."""

from __future__ import annotations

import os
import re
import signal
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym
from gui_gym import Action
from gui_gym.env import TIMING_KEYS
from tests.fakes.ray_cluster import cluster  # noqa: F401 - the module's cluster fixture

ray = pytest.importorskip("ray")
remote = pytest.importorskip("gui_gym.remote")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # a cluster and browsers on a loaded host
ENV_KWARGS = {"apps": ["admin"], "observe_a11y": True}
TASK = "admin.invite-user"


def _node2_id() -> str:
    return next(n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("node2"))


def _portless(value):
    """`value` with each env's own server port taken out of its URLs (the one thing that differs)."""
    if isinstance(value, str):
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", value)
    if isinstance(value, dict):
        return {k: _portless(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_portless(v) for v in value)
    return value


def _comparable(info: dict) -> dict:
    return _portless({k: v for k, v in info.items() if k not in TIMING_KEYS})


def _oracle_episode(env: gym.Env, oracle) -> list:
    obs, info = env.reset(seed=3, options={"task_id": TASK, "instance_seed": 3})
    out = [(obs, _comparable(info))]
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(oracle())
        out.append((obs, reward, terminated, truncated, _comparable(info)))
        done = terminated or truncated
    return out


def test_a_remote_env_on_the_second_node_matches_a_local_one(cluster):
    env = remote.make("GUI/LocalWeb-v0", remote={"resources": {"node2": 1}, "num_cpus": 1}, **ENV_KWARGS)
    local = gym.make("GUI/LocalWeb-v0", **ENV_KWARGS)
    try:
        assert env.host["node_id"] == _node2_id()  # the custom resource placed it
        assert env.observation_space == local.observation_space and env.action_space == local.action_space
        assert env.get_wrapper_attr("task_ids") == local.get_wrapper_attr("task_ids")
        assert env.call("expert_plan", TASK, 3) == local.get_wrapper_attr("expert_plan")(TASK, 3)
        remote_run = _oracle_episode(env, env.get_wrapper_attr("oracle_action"))
        local_run = _oracle_episode(local, local.get_wrapper_attr("oracle_action"))
        assert len(remote_run) == len(local_run) > 2 and remote_run[-1][1] == 1.0
        for mine, theirs in zip(remote_run, local_run):
            assert isinstance(mine[0]["screenshot"], np.ndarray)
            # the same page, pixel for pixel but for what a browser never repeats (a text caret's blink)
            differing = np.mean(np.any(mine[0]["screenshot"] != theirs[0]["screenshot"], axis=-1))
            assert mine[0]["screenshot"].shape == theirs[0]["screenshot"].shape and differing < 0.005, differing
            assert _portless({k: v for k, v in mine[0].items() if k != "screenshot"}) == \
                   _portless({k: v for k, v in theirs[0].items() if k != "screenshot"})
            assert mine[1:] == theirs[1:]
        check_env(env, skip_render_check=True)
        with pytest.raises(ValueError, match="unknown reset option"):  # the env's own errors pass through
            env.reset(options={"bogus": 1})
    finally:
        env.close()
        local.close()
    env.close()  # twice is fine


def test_a_killed_actor_and_an_overrun_call_truncate_and_relaunch(cluster):
    env = remote.make("GUI/LocalWeb-v0", remote={"call_timeout_s": 20}, **ENV_KWARGS)
    try:
        env.reset(seed=0, options={"task_id": TASK})
        first_pid = env.host["pid"]
        os.kill(first_pid, signal.SIGKILL)  # kill -9 of the actor's worker mid-episode
        started = time.monotonic()
        obs, reward, terminated, truncated, info = env.step(Action.wait(0.1))
        assert time.monotonic() - started < 20  # a death is seen at once, not after the timeout
        assert truncated and not terminated and reward == 0.0
        assert "died" in info["infra_error"] and info["task_id"] == TASK
        assert env.observation_space.contains(obs)
        with pytest.raises(gym.error.ResetNeeded):
            env.step(Action.wait(0.1))
        with pytest.raises(remote.ActorLost):
            env.call("oracle_action")
        env.reset(seed=0, options={"task_id": TASK})
        assert env.relaunches == 1 and env.host["pid"] != first_pid

        env.options.call_timeout_s = 2.0
        obs, reward, terminated, truncated, info = env.step(Action.wait(10))
        assert truncated and "did not answer step within 2 s" in info["infra_error"]
        assert env.infra_errors == 2
        env.options.call_timeout_s = 20.0
        _, info = env.reset(seed=0, options={"task_id": TASK})
        assert env.relaunches == 2 and info["task_id"] == TASK
        ray.kill(env.actor)  # ray.kill of the actor between episodes: the reset retries on a fresh one
        env.reset(seed=0, options={"task_id": TASK})
        assert env.relaunches == 3
    finally:
        env.close()


def test_rollouts_over_remote_envs_match_the_thread_pool(cluster):
    from agents.policies.element import ElementPolicy
    from trainers.grpo import outcome_advantages, seed_everything
    from trainers.rollout import EnvPool, rollout_group

    def group(make_env):
        seed_everything(0)  # the same weights and the same samples for both pools
        policy = ElementPolicy()
        with EnvPool(make_env, size=2) as pool:
            assert pool.task_ids() == gym.make("GUI/LocalWeb-v0", **ENV_KWARGS).get_wrapper_attr("task_ids")
            return rollout_group(pool, policy, TASK, 5, group_size=2)

    local = group(lambda: gym.make("GUI/LocalWeb-v0", max_steps=3, **ENV_KWARGS))
    far = group(lambda: remote.make("GUI/LocalWeb-v0", remote={"num_cpus": 1}, max_steps=3, **ENV_KWARGS))
    assert [[s.parsed_action for s in r.steps] for r in far] == [[s.parsed_action for s in r.steps] for r in local]
    assert [r.score for r in far] == [r.score for r in local]
    assert outcome_advantages(far, True) == outcome_advantages(local, True)
