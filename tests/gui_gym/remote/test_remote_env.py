"""Remote envs on a real two-node Ray cluster (a head and a second node joined to it, in a
private network namespace so nothing listens beyond loopback): the same observations, rewards
and info as a local env, check_env, the call-through, placement by custom resource, an actor
killed mid-episode and a call that overruns its timeout, an actor whose env cannot be built,
PAGE's progress wrappers inside the actor and a snapshot restored through it, training
rollouts over a pool of remote envs that match the thread pool's, and ``gui-train --ray`` with
asynchronous rollouts through to a finished run."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from functools import partial

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
    return _portless({k: v for k, v in info.items() if k not in TIMING_KEYS and k != "restore_time_s"})


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
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.trainers.grpo import outcome_advantages, seed_everything
    from gui_gym.trainers.rollout import EnvPool, rollout_group

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


def test_an_env_that_cannot_be_built_is_a_clear_error_counted_never_a_hang(cluster, tmp_path):
    from gui_gym.agents.policies.element import ElementPolicy
    from gui_gym.errors import InfraError, UsageError
    from gui_gym.trainers.rollout import EnvPool, rollout_group

    started = time.monotonic()
    with pytest.raises(UsageError, match=r"cannot make 'GUI/LocalWeb-v0' in its actor: .*no_such_option"):
        remote.make("GUI/LocalWeb-v0", no_such_option=1, **ENV_KWARGS)
    assert time.monotonic() - started < 120  # told at once, not after the start timeout (300 s)

    flag = tmp_path / "broken"

    def fails_once_flagged(env):  # a nested function: Ray pickles it by value (this module is not on a worker's path)
        if flag.exists():  # a node that lost what the env needs
            raise RuntimeError(f"the env cannot start here: {flag.name}")
        return env

    env = remote.make("GUI/LocalWeb-v0", wrap=fails_once_flagged, **ENV_KWARGS)
    try:
        env.reset(seed=0, options={"task_id": TASK})
        flag.touch()  # from now on a fresh actor cannot build its env
        os.kill(env.host["pid"], signal.SIGKILL)
        *_, truncated, info = env.step(Action.wait(0.1))
        assert truncated and "died" in info["infra_error"] and env.infra_errors == 1
        with pytest.raises(UsageError, match="cannot start here: broken"):
            env.reset(seed=0, options={"task_id": TASK})
        assert env.relaunches == 1 and env.actor is None
    finally:
        env.close()
    flag.unlink()
    with EnvPool(lambda: remote.make("GUI/LocalWeb-v0", wrap=fails_once_flagged, **ENV_KWARGS), size=1) as pool:
        flag.touch()
        ray.kill(pool.envs[0].actor)  # the next reset needs a fresh actor, which cannot build its env
        with pytest.raises(InfraError, match=r"every episode of the group .* crashed; the first: UsageError: cannot"):
            rollout_group(pool, ElementPolicy(), TASK, 0, group_size=2)  # each episode void, the group counted


def test_progress_in_the_actor_matches_a_local_one_and_a_snapshot_restores_through_it(cluster):
    from gui_gym.judges import OracleJudge
    from gui_gym.snapshots import restore_episode
    from gui_gym.wrappers.progress import ProgressReward

    wrap = partial(ProgressReward, judge=OracleJudge(), rounds=1, mode="delta")  # progress after every step
    env = remote.make("GUI/LocalWeb-v0", wrap=wrap, **ENV_KWARGS)
    local = wrap(gym.make("GUI/LocalWeb-v0", **ENV_KWARGS))
    try:
        runs = []
        for each in (env, local):
            oracle, snapshot_of = each.get_wrapper_attr("oracle_action"), each.get_wrapper_attr("snapshot")
            each.reset(seed=3, options={"task_id": TASK, "instance_seed": 3})
            steps = [each.step(oracle())]
            snapshot = snapshot_of()
            while not (steps[-1][2] or steps[-1][3]):
                steps.append(each.step(oracle()))
            _, restored = restore_episode(each, snapshot)  # back to just after the first step
            again = each.step(oracle())
            runs.append(([(s[1], _comparable(s[4])) for s in steps], _comparable(restored), _comparable(again[4])))
        (far_steps, far_restored, far_again), (near_steps, near_restored, near_again) = runs
        progress = [info["progress"] for _, info in far_steps]
        assert progress == [info["progress"] for _, info in near_steps] and len(progress) > 2
        assert progress[-1] == 1.0 and 0.0 < progress[1] < 1.0  # the oracle's milestones, one by one
        assert far_steps == near_steps  # rewards (progress deltas) and every info key, step by step
        assert far_restored == near_restored and far_restored["step"] == 1
        assert far_again == near_again and far_again["step"] == 2 and far_again["progress"] == progress[1]
    finally:
        env.close()
        local.close()


def test_gui_train_page_on_the_cluster_with_asynchronous_rollouts(cluster, tmp_path, capsys):
    from gui_gym.trainers.cli import main

    # PAGE with the oracle judge: its wrappers must run in the actors, by the real envs
    argv = ["--algo", "page", "--ray", cluster.address, "--async-rollouts", "--env", "GUI/LocalWeb-v0",
            "--env-arg", 'apps=["admin"]', "--env-arg", "max_steps=3", "--env-resources", '{"num_cpus": 1}',
            "--set", f'tasks=["{TASK}", "admin.security-toggle"]', "--set", "iterations=2",
            "--set", "groups_per_iteration=2", "--set", "group_size=2", "--set", "pool_size=3",
            "--set", "tensorboard=false", "--run-dir", str(tmp_path)]
    assert main(argv) == 0, capsys.readouterr().err
    assert "gui-train: page done: 2 record(s), 8 episodes" in capsys.readouterr().out
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["charts/episodes"] for r in records] == [4, 8]
    for record in records:  # progress from the oracle judge in the actors, both groups whole
        assert 0.0 <= record["charts/progress"] <= 1.0 and "losses/policy_loss" in record
        assert record.get("charts/infra_errors", 0) == 0 and record.get("charts/crashed_groups", 0) == 0
    assert json.loads((tmp_path / "config.json").read_text())["async_rollouts"] is True
    assert (tmp_path / "checkpoints" / "final").is_dir()
