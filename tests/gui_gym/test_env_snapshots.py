"""`GUIEnv.snapshot` / `GUIEnv.restore`: an episode saved mid-way continues, in the same env,
a second env, or another process, with the original's observations and rewards; snapshots
of another env or task are refused; the envs that cannot be exact say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers the GUI/* ids)
from gui_gym.backends.android import AndroidBackend, AndroidConfig
from gui_gym.backends.desktop.backend import DesktopBackend
from gui_gym.env import GUIEnv
from gui_gym.errors import SnapshotError, SnapshotUnsupportedError
from gui_gym.judges import OracleJudge
from gui_gym.snapshots import ORIGIN, restore_episode, screenshot_digest
from gui_gym.suites.demo import DemoSuite
from gui_gym.suites.mind2web.suite import Mind2WebSuite
from gui_gym.wrappers import ProgressReward, SubtaskAnnotation, TrajectoryRecorder

REPO = Path(__file__).resolve().parents[2]
PAINT_NOISE_PIXELS = 40
"""A real browser may anti-alias a few pixels differently when the same actions run twice
(a blurred shadow over a dropdown repainted in another order), restore or not."""


def same_screen(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-identical, or within the browser's own paint noise (few pixels, faint)."""
    if a.shape != b.shape:
        return False
    diff = np.abs(a.astype(int) - b.astype(int)).max(axis=-1)
    return int((diff > 0).sum()) <= PAINT_NOISE_PIXELS and int(diff.max()) <= 24


def play(env, actions):
    """Step `actions`; per step (screenshot, url, reward, terminated, truncated, score)."""
    out = []
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs["screenshot"], obs.get("url", ""), reward, terminated, truncated, info["score"]))
    return out


def oracle_run(env, task_id, seed, snapshot_at):
    """The oracle's episode, with a snapshot (through JSON) taken after each step in `snapshot_at`."""
    env.reset(seed=0, options={"task_id": task_id, "instance_seed": seed})
    actions, steps, snaps, done = [], [], {}, False
    while not done:
        action = env.oracle_action()
        actions.append(action)
        (step,) = play(env, [action])
        steps.append(step)
        done = step[3] or step[4]
        if len(actions) in snapshot_at and not done:
            snaps[len(actions)] = json.loads(json.dumps(env.snapshot()))
    return actions, steps, snaps


@pytest.fixture(scope="module")
def two_localweb_envs():
    first, second = gym.make("GUI/LocalWeb-v0"), gym.make("GUI/LocalWeb-v0")
    yield first.unwrapped, second.unwrapped
    first.close()
    second.close()


TEMPLATES = ["mail.meeting-time", "shop.product-info", "calendar.event-end", "wiki.watch-page", "admin.user-role",
             "shop.add-to-cart"]


@pytest.mark.slow
@pytest.mark.parametrize("task_id", TEMPLATES)
def test_localweb_restored_in_a_second_env_continues_the_episode(two_localweb_envs, task_id):
    first, second = two_localweb_envs
    for seed in (1, 7):
        actions, steps, snaps = oracle_run(first, task_id, seed, snapshot_at={1, 2, 3})
        assert snaps and steps[-1][2] == 1.0  # the oracle solves it; snapshots at several steps
        for at, snap in snaps.items():
            text = json.dumps(snap)
            assert first.suite.server.token not in text and first.suite.url not in text  # no secret, no port
            assert snap["backend"]["page"]["url"].startswith(ORIGIN)
            obs, info = second.restore(snap)
            assert info["step"] == at and info["task_id"] == task_id
            assert same_screen(obs["screenshot"], steps[at - 1][0])
            for (shot, url, *rest), (shot2, url2, *rest2) in zip(steps[at:], play(second, actions[at:])):
                assert rest2 == rest  # reward, terminated, truncated, score
                assert url2.replace(second.suite.url, ORIGIN) == url.replace(first.suite.url, ORIGIN)
                assert same_screen(shot2, shot)


RESTORE_IN_A_CHILD = """
import json, sys
import gymnasium as gym
import gui_gym
from gui_gym.actions import Action
from gui_gym.snapshots import screenshot_digest
from gui_gym.snapshots import restore_episode
snap, actions = json.load(sys.stdin)
env = gym.make("GUI/Demo-v0")
try:
    obs, info = restore_episode(env, snap)  # through gym.make's wrappers: stepped as if reset
    out = [[screenshot_digest(obs["screenshot"]), 0.0, False]]
    for action in actions:
        obs, reward, terminated, *_ = env.step(Action.from_dict(action))
        out.append([screenshot_digest(obs["screenshot"]), reward, terminated])
finally:
    env.close()
print(json.dumps(out))
"""


@pytest.mark.slow
def test_demo_snapshot_restores_in_the_same_env_and_in_another_process():
    env = gym.make("GUI/Demo-v0").unwrapped
    wrapped = ProgressReward(SubtaskAnnotation(gym.make("GUI/Demo-v0")), OracleJudge(), mode="delta", rounds=1)
    try:
        actions, steps, snaps = oracle_run(env, "demo.fill-form", 4, snapshot_at={2})
        snap, later = snaps[2], actions[2:]
        wrapped.reset(seed=0, options={"task_id": "demo.fill-form", "instance_seed": 4})
        progress = [wrapped.step(a)[1] for a in actions]
        _obs, info = restore_episode(wrapped, snap)  # the wrappers' records begin at the restored state
        assert info["step"] == 2 and info["progress"] == 0.0
        rest = [wrapped.step(a) for a in later]
        assert [r[1] for r in rest] == progress[2:] and rest[-1][2]  # the same progress rewards, ended
        assert max(s["end"] for s in rest[-1][4]["subtasks"]) <= len(later)  # subtasks of the continuation only
        assert env.suite.server.token not in json.dumps(snap) and snap["world"] == {
            "pressed": 0, "submitted": None, "code": ""}
        expected = [[screenshot_digest(steps[1][0]), 0.0, False]] + [
            [screenshot_digest(s[0]), s[2], s[3]] for s in steps[2:]]
        assert expected[-1][1:] == [1.0, True]

        obs, info = env.restore(snap)  # the same env, after its episode ended
        assert info["screenshot_exact"] and screenshot_digest(obs["screenshot"]) == expected[0][0]
        assert [[screenshot_digest(s[0]), s[2], s[3]] for s in play(env, later)] == expected[1:]

        child = subprocess.run([sys.executable, "-c", RESTORE_IN_A_CHILD], input=json.dumps(
            [snap, [a.to_dict() for a in later]]), capture_output=True, text=True, cwd=REPO, timeout=300)
        assert child.returncode == 0, child.stderr[-2000:]
        assert json.loads(child.stdout.splitlines()[-1]) == expected

        tampered = {**snap, "instruction": "Type the name Eve, choose the colour Red, then press Send."}
        with pytest.raises(SnapshotError, match=r"reads 'Type the name .*' here, the snapshot's read 'Type the name Eve"):
            env.restore(tampered)
    finally:
        env.close()
        wrapped.close()


def test_snapshots_of_another_env_or_task_or_malformed_are_refused():
    env = gym.make("GUI/Demo-v0", task_ids=["demo.press-button"]).unwrapped
    snap = {"format": 1, "env_id": "GUI/Demo-v0", "suite": "demo", "task_id": "demo.press-button", "seed": 3,
            "instruction": "Press the Subscribe button once.", "steps": 1, "done": False, "kind": "replay",
            "step_actions": [1], "actions": [{"kind": "click", "x": 10, "y": 10}], "oracle_calls": [],
            "backend": {}, "world": None, "milestones": [False], "screenshot_digest": ""}
    try:
        with pytest.raises(SnapshotError, match=r"the snapshot is of env 'GUI/LocalWeb-v0', this env is 'GUI/Demo-v0'"):
            env.restore({**snap, "env_id": "GUI/LocalWeb-v0", "suite": "localweb"})
        with pytest.raises(SnapshotError, match=r"task 'demo.fill-form', which is not among this env's tasks"):
            env.restore({**snap, "task_id": "demo.fill-form"})
        with pytest.raises(SnapshotError, match=r"snapshot format 2 is not this version's \(1\)"):
            env.restore({**snap, "format": 2})
        with pytest.raises(SnapshotError, match=r"the snapshot lacks \['world'\]"):
            env.restore({k: v for k, v in snap.items() if k != "world"})
        with pytest.raises(SnapshotError, match=r"step sizes summing to its 1 actions"):
            env.restore({**snap, "step_actions": [2]})
        with pytest.raises(SnapshotError, match=r"expected a snapshot dict from GUIEnv.snapshot\(\), received str"):
            env.restore("snapshot")
        with pytest.raises(SnapshotError, match=r"taken by 'native', this backend restores by 'replay'"):
            env.restore({**snap, "kind": "native"})
        with pytest.raises(gym.error.ResetNeeded):
            env.snapshot()
        assert not env._started  # refused at the door: nothing was launched
    finally:
        env.close()


def test_envs_that_cannot_be_exact_say_so(tmp_path):
    desktop = GUIEnv(DesktopBackend(), DemoSuite())
    with pytest.raises(SnapshotUnsupportedError, match=r"the OSWorld desktop cannot be snapshotted exactly"):
        desktop.snapshot()
    with pytest.raises(SnapshotUnsupportedError, match=r"the OSWorld desktop cannot be snapshotted exactly"):
        desktop.restore({})
    phone = GUIEnv(AndroidBackend(AndroidConfig(screen_size=(1080, 2400))), DemoSuite())
    with pytest.raises(SnapshotUnsupportedError, match=r"make the env with provider='emulator'"):
        phone.snapshot()
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"task_id": "t", "website": "https://example.org/", "confirmed_task": "Find a bike.",
                                  "reference_length": 5, "level": "easy"}]))
    live = GUIEnv(DesktopBackend(), Mind2WebSuite("live", tasks=str(tasks)))
    with pytest.raises(SnapshotUnsupportedError, match=r"live Online-Mind2Web runs on the real websites"):
        live.snapshot()
    assert issubclass(SnapshotUnsupportedError, NotImplementedError) and issubclass(SnapshotError, ValueError)


def test_gymnasium_wrappers_take_up_a_restore_through_their_adapters():
    source = gym.make("GUI/AndroidControl-v0", mode="low").unwrapped
    limited = gym.make("GUI/AndroidControl-v0", mode="low", max_episode_steps=3)
    chain = [type(limited), type(limited.env), type(limited.env.env)]
    assert chain == [gym.wrappers.TimeLimit, gym.wrappers.OrderEnforcing, gym.wrappers.PassiveEnvChecker]
    try:
        actions, steps, snaps = oracle_run(source, "clock-timer-5min", 0, snapshot_at={1})  # 5 oracle steps
        assert not limited.get_wrapper_attr("has_reset")
        obs, info = restore_episode(limited, snaps[1])  # never reset: the order check takes the restore for one
        assert limited.get_wrapper_attr("has_reset") and info["step"] == 1
        # the env checker's first step compares its data with the restored (obs, info): no reuse, no error
        assert limited.step(actions[1])[2:4] == (False, False)
        assert limited.step(actions[2])[2:4] == (False, True)  # the limit of 3 counted the restored step
    finally:
        source.close()
        limited.close()


def test_a_restore_through_a_gymnasium_without_an_adapters_field_is_refused_before_it_starts():
    env = gym.make("GUI/AndroidControl-v0", mode="low")
    try:
        assert type(env) is gym.wrappers.OrderEnforcing
        del env._has_reset  # as a Gymnasium release that keeps the flag elsewhere would be
        with pytest.raises(SnapshotUnsupportedError, match=r"OrderEnforcing no longer keeps '_has_reset', which its reset sets"):
            restore_episode(env, {"format": 1})
        assert env.unwrapped.task is None  # nothing was restored
    finally:
        env.close()


def test_a_wrapper_that_keeps_episode_state_and_cannot_take_up_a_restore_is_refused(tmp_path):
    env = TrajectoryRecorder(gym.make("GUI/AndroidControl-v0", mode="low"), tmp_path)
    try:
        with pytest.raises(SnapshotUnsupportedError, match=r"wrapper TrajectoryRecorder keeps the episode's state"):
            restore_episode(env, {"format": 1})
        assert env.unwrapped.task is None
    finally:
        env.close()


def test_static_suites_restore_exactly_in_a_second_env():
    for make in (lambda: gym.make("GUI/AndroidControl-v0", mode="low"), lambda: gym.make("GUI/MMBench-GUI-L2-v0", data_root="sample")):
        first, second = make().unwrapped, make().unwrapped
        try:
            task_id = first.task_ids[0]
            actions, steps, snaps = oracle_run(first, task_id, 0, snapshot_at={1, 2})
            first.reset(seed=0, options={"task_id": task_id, "instance_seed": 0})
            snaps[0] = json.loads(json.dumps(first.snapshot()))  # before any step
            for at, snap in snaps.items():
                obs, info = second.restore(snap)
                assert info["screenshot_exact"] and info["step"] == at
                if at:
                    assert np.array_equal(obs["screenshot"], steps[at - 1][0])
                for (shot, _url, *rest), (shot2, _url2, *rest2) in zip(steps[at:], play(second, actions[at:])):
                    assert rest2 == rest and np.array_equal(shot2, shot)
        finally:
            first.close()
            second.close()
