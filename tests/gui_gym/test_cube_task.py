"""gui-gym's families as CUBE benchmarks: listed by ``cube list``, compliant by ``cube test``,
their metadata the suites', their privileged info the task's marks, their actions read and
scored as natively; the Android one on a phone the test serves (the fake adb server on loopback),
named by the benchmark config or the usual adb variables, asked nothing before a task starts.
Runs where CUBE is installed (Python >= 3.12); tests/gui_gym/test_cube_venv.py runs it in the
CUBE venv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cube_venv import require_cube

require_cube()

import gymnasium as gym  # noqa: E402
from cube.benchmark import ResetIsolation  # noqa: E402
from cube.core import Action as CubeAction  # noqa: E402

import gui_gym  # noqa: E402,F401
from gui_gym.cube.android.benchmark import AndroidBenchmarkConfig  # noqa: E402
from gui_gym.cube.android.debug import make_debug_agent as android_agent  # noqa: E402
from gui_gym.cube.debug import OracleReplay  # noqa: E402
from gui_gym.cube.localweb.benchmark import LocalWebBenchmarkConfig  # noqa: E402
from gui_gym.cube.mmbench.benchmark import MMBenchBenchmarkConfig  # noqa: E402
from gui_gym.errors import TaskConfigError  # noqa: E402
from gui_gym.runtime.loopback import free_port  # noqa: E402
from tests.fakes.adb_server import FakeAdbServer  # noqa: E402
from tests.fakes.virtual_device import VirtualDevice  # noqa: E402

CUBE = Path(sys.executable).with_name("cube")
ANDROID = "gui-gym-android"
EXPORTED = ("gui-gym-demo", "gui-gym-localweb", "gui-gym-miniwob", "gui-gym-mmbench", "gui-gym-osworld", ANDROID)
COMPLIANCE = ("test_debug_tasks_exist", "test_debug_agent_exists", "test_full_episode", "test_reset_reproducibility",
              "test_tools_list", "test_close_idempotent", "test_benchmark_metadata")
"""What ``cube test`` checks (cube-standard 0.1.0rc10)."""
RESET_CHECKED = ("gui-gym-demo", "gui-gym-mmbench", ANDROID)
"""The families whose reset reproducibility (two more tasks started in parallel) CI checks: a
browser family, a recorded one and the phone (where the two take turns on the one device). It
passes on the others too (docs/cube.md), but each of their checks starts two more browsers or
desktops, so CI runs them with --no-reset-check."""


@pytest.fixture
def phone():
    with FakeAdbServer([VirtualDevice()]) as server:
        yield server


def adb_variables(server: FakeAdbServer) -> dict[str, str]:
    """The variables that name `server`'s phone to a process, as to adb itself."""
    return {"ANDROID_ADB_SERVER_HOST": server.host, "ANDROID_ADB_SERVER_PORT": str(server.port),
            "ANDROID_SERIAL": next(iter(server.devices))}


def cube_cli(*args: str, timeout_s: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "250", "CUBE_CI": "1", **(env or {})}
    return subprocess.run([str(CUBE), *args], capture_output=True, text=True, timeout=timeout_s, env=env)


def test_cube_list_shows_every_exported_benchmark_and_asks_no_phone(phone):
    listed = cube_cli("list", timeout_s=120, env=adb_variables(phone))
    assert listed.returncode == 0, listed.stderr
    for name in EXPORTED:
        assert name in listed.stdout
    assert "failed to load" not in listed.stdout
    assert phone.requests == []


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPORTED)
def test_cube_test_passes_every_compliance_check(name, request):
    """Each debug task is the task's own oracle replayed through CUBE, so a pass is also the
    native score (1) reached through CUBE's tool calls; Android's plays a plan read from the
    task on the phone the adb variables name."""
    env = adb_variables(request.getfixturevalue("phone")) if name == ANDROID else None
    done = cube_cli("test", name, "--ci", *(() if name in RESET_CHECKED else ("--no-reset-check",)), timeout_s=280,
                    env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for check in COMPLIANCE if name in RESET_CHECKED else set(COMPLIANCE) - {"test_reset_reproducibility"}:
        assert f"PASS  {check}" in done.stdout, done.stdout[-3000:]


def test_task_metadata_is_what_the_suite_says():
    metadata = LocalWebBenchmarkConfig.task_metadata
    env = gym.make("GUI/LocalWeb-v0")
    try:
        suite = env.unwrapped.suite
        assert list(metadata) == suite.task_ids
        task = metadata["shop.add-to-cart"]
        assert (task.env_id, task.split) == ("GUI/LocalWeb-v0", "test")
        assert task.recommended_max_steps == suite.make_task("shop.add-to-cart", 0).max_steps
        assert task.facts["difficulty"] == suite.describe("shop.add-to-cart")["difficulty"]
    finally:
        env.close()
    assert LocalWebBenchmarkConfig.benchmark_metadata.reset_isolation is ResetIsolation.NEW_INSTANCE
    assert LocalWebBenchmarkConfig.benchmark_metadata.num_tasks == len(metadata)
    levels = {task.env_id for task in MMBenchBenchmarkConfig.task_metadata.values()}
    assert levels == {"GUI/MMBench-GUI-L1-v0", "GUI/MMBench-GUI-L2-v0"}


def _task(config_class, task_id: str, seed: int = 0):
    config = config_class().subset_from_list([task_id])
    benchmark = config.make()
    return benchmark.spawn(next(config.get_task_configs()).model_copy(update={"seed": seed}))


def test_privileged_info_marks_the_milestones_the_oracle_reaches_and_the_agent_never_sees_it():
    task = _task(LocalWebBenchmarkConfig, "shop.add-to-cart", seed=3)
    try:
        obs, _info = task.reset()
        start = task.get_privileged_info().data
        assert start["instance_seed"] == 3 and start["milestones"] and start["progress"] == 0.0
        assert not any(mark["reached"] for mark in start["milestones"])
        assert {content.name for content in obs.contents} == {"instruction", "screenshot", "url"}
        agent = OracleReplay.record(LocalWebBenchmarkConfig.task_config_class,
                                    LocalWebBenchmarkConfig.task_metadata["shop.add-to-cart"], seed=3)
        output = None
        while output is None or not output.done:
            output = task.step(agent(obs, task.action_set))
            obs = output.obs
        end = task.get_privileged_info().data
        assert output.reward == 1.0 and output.info["success"] is True
        assert end["progress"] == 1.0 and all(mark["reached"] for mark in end["milestones"])
    finally:
        task.close()
        task.close()


def test_a_malformed_call_is_the_steps_action_error_as_natively():
    """A one-step MMBench-GUI L2 task: an unreadable point ends it with score 0, the error told."""
    task = _task(MMBenchBenchmarkConfig, "mmbench-l2.0")
    try:
        task.reset()
        output = task.step(CubeAction(name="click", arguments={"x": "left", "y": 3}))
        text = output.obs.to_markdown()
        assert "Action error" in text and output.done and output.reward == 0.0
        assert output.info["action_error"]
    finally:
        task.close()
    native = gym.make("GUI/MMBench-GUI-L2-v0", data_root="sample", action_format="function_call")
    try:
        native.reset(options={"task_id": "mmbench-l2.0", "instance_seed": 0})
        _obs, reward, terminated, _truncated, info = native.step({"name": "click", "arguments": {"x": "left", "y": 3}})
        assert (reward, terminated, info["action_error"]) == (0.0, True, output.info["action_error"])
    finally:
        native.close()


def test_the_tool_offers_only_the_familys_kinds_and_the_stop_action():
    task = _task(MMBenchBenchmarkConfig, "mmbench-l1.0.easy")
    try:
        assert sorted(schema.name for schema in task.action_set) == ["answer", "click", "done", "fail", "final_step"]
    finally:
        task.close()


def test_the_phone_is_the_benchmark_configs_and_its_tasks_take_turns_on_it(phone, monkeypatch):
    """The config's device wins over the adb variables (here naming a port nothing listens on);
    the env is made when the task is reset; a second task on the same phone waits for the
    first to close (in the same thread, it is an error rather than a wait for itself)."""
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))
    config = AndroidBenchmarkConfig(adb_port=phone.port, serial="emulator-5554").subset_from_list(["SystemWifiTurnOn"])
    benchmark = config.make()
    first, second = (benchmark.spawn(next(config.get_task_configs())) for _ in range(2))
    assert phone.requests == []
    try:
        obs, _info = first.reset()
        assert {content.name for content in obs.contents} == {"instruction", "screenshot", "a11y_tree", "app"}
        assert obs.contents[0].data == "Turn wifi on."
        assert phone.devices["emulator-5554"].settings["global"]["wifi_on"] == "0"
        with pytest.raises(RuntimeError, match="already holds the device"):
            second.reset()
        first.close()
        second.reset()
    finally:
        first.close()
        second.close()
    assert AndroidBenchmarkConfig.benchmark_metadata.reset_isolation is ResetIsolation.APP_LEVEL


def test_the_android_debug_agent_plays_a_plan_read_from_the_task():
    """The app the instance seed picks; nothing but the stop where the task starts at its goal;
    no plan for a task whose solution it does not know."""
    clock = android_agent("OpenAppTaskEval", seed=1)
    assert [step(None) for step in clock.steps] == [("open_app", {"text": "clock"}), ("final_step", {})]
    assert [step(None) for step in android_agent("SystemBluetoothTurnOffVerify").steps] == [("final_step", {})]
    with pytest.raises(NotImplementedError, match="ContactsAddContact"):
        android_agent("ContactsAddContact")
    with pytest.raises(TaskConfigError):
        android_agent("NoSuchTask")
