"""The fault table for agent outputs (`gui_gym.benchmarks.hostile_inputs`, seeded): for every action
format, every hostile input is turned down at the door as an `ActionParseError` that says
what was expected, fast, with no untyped error; the ones that would reach a backend, a
sample of the rest and of the seeded mutations then go through a real env, where each is an
``info["action_error"]`` (never an infra error, a hang or a crash), creates no file, and
leaves the env working. A rejected input never reaches the backend, so the next step shows the
env still works; after every input that does reach it, a valid action must succeed. The
Demo env observes the accessibility tree, read from the page at every step, not pixels (a
screenshot is ~3x the cost of a step there); one screenshot at the end shows the page still
renders after the whole corpus. The formats take turns on one Demo browser (a launch and a
close each otherwise), so each corpus also runs on a browser the previous ones went through."""

from __future__ import annotations

import os
import random
import time

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401 - registers the GUI/* ids
from gui_gym.benchmarks.hostile_inputs import (FORMATS, LOOPBACK_FILE_URL, RELATIVE_MARKER, SCREEN_SIZE, URLS, Case,
                                       corpus, door, mutations)
from gui_gym import Action
from gui_gym.action_formats import get_format
from gui_gym.env import GUIEnv
from gui_gym.errors import ActionParseError
from gui_gym.suites.http_server import LoopbackServer
from gui_gym.wrappers.recorder import TrajectoryRecorder

SEED = 0
MUTATIONS = 60
PARSE_BOUND_S = 5.0
"""A rejection takes milliseconds; this only catches a hang."""
STEP_BOUND_S = 90.0
"""Generous too: a seeded mutation may legitimately type thousands of characters (~2 ms each)."""
ENV_SAMPLE = 6
"""One in this many of the inputs that stop at the parser also goes through the env."""
MOVE = {"json": '{"kind": "move", "x": 5, "y": 5}', "uitars": "Action: hover(start_box='(5,5)')",
        "pyautogui": "pyautogui.moveTo(5, 5)", "computer_13": '{"action_type": "MOVE_TO", "x": 5, "y": 5}',
        "androidworld": '{"action_type": "click", "x": 5, "y": 5}', "action": Action.move(5, 5)}
"""A valid action per format that changes nothing on the demo pages."""
ENV_FORMATS = ("json", "uitars", "pyautogui", "computer_13", "androidworld", "action")


def _cases(fmt: str, marker: str) -> list[Case]:
    extra = mutations(fmt, MUTATIONS, SEED) if fmt != "action" else []
    return [c for c in corpus(marker) if c.format == fmt] + extra


def _untyped(message: str) -> bool:
    return "while parsing the action" in message


@pytest.mark.parametrize("fmt", [*FORMATS, "action"])
def test_every_hostile_input_is_a_typed_rejection_at_the_door(fmt, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "escaped"
    failures = []
    for case in _cases(fmt, str(marker)):
        started = time.monotonic()
        try:
            door(case)()
        except ActionParseError as exc:
            if not str(exc) or len(str(exc)) > 2000:
                failures.append(f"{case.name}: an unreadable message of {len(str(exc))} characters")
        except Exception as exc:  # what the fault table calls a crash
            failures.append(f"{case.name}: {type(exc).__name__}: {exc}"[:300])
        else:
            if case.expect == "door":
                failures.append(f"{case.name}: accepted")
        if time.monotonic() - started > PARSE_BOUND_S:
            failures.append(f"{case.name}: took {time.monotonic() - started:.1f} s")
    assert failures == []
    assert not marker.exists() and os.listdir(tmp_path) == []


def _reaches_backend(case: Case) -> bool:
    """Whether the format's parser alone (without the door's limits) accepts the input."""
    if case.format == "action":
        try:
            case.value()
        except ActionParseError:
            return False
        return True
    try:
        get_format(case.format).parse_many(case.value, screen_size=SCREEN_SIZE)
    except ActionParseError:
        return False
    return True


def _env_cases(fmt: str, marker: str) -> list[tuple[Case, bool]]:
    rng = random.Random(SEED)
    chosen = []
    for case in _cases(fmt, marker):
        if case.name.startswith(("goto", "open_url")):
            continue  # navigation runs on LocalWeb, below
        reaches = _reaches_backend(case)
        if reaches or case.expect == "env" or rng.randrange(ENV_SAMPLE) == 0:
            chosen.append((case, reaches))
    return chosen


def _parser(fmt: str) -> str:
    return "json" if fmt == "action" else fmt


def _make(env_id: str, fmt: str, out_dir) -> TrajectoryRecorder:
    env = gym.make(env_id, action_format=_parser(fmt), max_steps=100_000, step_timeout_s=60.0)
    return TrajectoryRecorder(env, out_dir, screenshots=False)


class _OnSharedBrowser(gym.Wrapper):
    """A format's env on the module's Demo browser: closing it leaves the browser to the module."""

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The Demo env the formats share (text-only: the a11y tree, see above), started in a
    folder of its own, which must stay empty; yields (env, that folder)."""
    cwd = tmp_path_factory.mktemp("browser-cwd")
    env = gym.make("GUI/Demo-v0", max_steps=100_000, step_timeout_s=60.0, observe_screenshot=False, observe_a11y=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        env.reset(seed=0, options={"task_id": "demo.fill-form"})  # the browser starts here
    yield env.unwrapped, cwd
    env.close()


def _step(env, value, failures: list[str], name: str) -> dict:
    started = time.monotonic()
    _obs, _reward, terminated, truncated, info = env.step(value)
    elapsed = time.monotonic() - started
    if elapsed > STEP_BOUND_S:
        failures.append(f"{name}: the step took {elapsed:.1f} s")
    if info["infra_error"] is not None:
        failures.append(f"{name}: infra error {info['infra_error']}")
    if info["action_error"] is not None and _untyped(info["action_error"]):
        failures.append(f"{name}: untyped {info['action_error']}"[:300])
    if terminated or truncated:
        env.reset(seed=0, options={"task_id": "demo.fill-form"})
    return info


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ENV_FORMATS)
def test_hostile_inputs_through_a_real_env_are_action_errors_and_leave_it_working(demo, fmt, tmp_path, monkeypatch):
    shared, browser_cwd = demo
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    marker = tmp_path / "escaped"
    env = TrajectoryRecorder(_OnSharedBrowser(GUIEnv(
        shared.backend, shared.suite, action_format=_parser(fmt), max_steps=100_000, observe_screenshot=False,
        observe_a11y=True)), tmp_path / "runs", screenshots=False)
    failures: list[str] = []
    try:
        env.reset(seed=0, options={"task_id": "demo.fill-form"})
        cases = _env_cases(fmt, str(marker))
        assert sum(reaches for _, reaches in cases) >= 10, "the corpus has inputs that reach the backend"
        for case, reaches in cases:
            try:
                value = case.value() if fmt == "action" else case.value
            except ActionParseError:
                continue  # turned down when built, before any env
            info = _step(env, value, failures, case.name)
            if case.expect != "any" and info["action_error"] is None:
                failures.append(f"{case.name}: no action error (parsed {str(info['parsed_action'])[:200]})")
            if reaches or case.expect != "door":
                after = _step(env, MOVE[fmt], failures, f"the valid action after {case.name}")
                if after["action_error"] is not None:
                    failures.append(f"the valid action after {case.name}: {after['action_error']}")
        final = _step(env, MOVE[fmt], failures, "the last valid action")
        assert final["action_error"] is None and final["parsed_action"] is not None
        backend = env.unwrapped.backend
        assert backend.observe(False, True).screenshot.shape == (*backend.screenshot_size[::-1], 3)
    finally:
        env.close()
    assert failures == []
    assert not marker.exists() and os.listdir(work) == [] and not (work / RELATIVE_MARKER).exists()
    assert os.listdir(browser_cwd) == []


def _goto(fmt: str, url: str):
    return f"Action: open_url(url='{url}')" if fmt == "uitars" else Action.goto(url)


@pytest.fixture(scope="module")
def localweb(tmp_path_factory):
    env = _make("GUI/LocalWeb-v0", "uitars", tmp_path_factory.mktemp("runs"))
    env.reset(seed=0)
    yield env
    env.close()


def _navigation_refused(env, target) -> str | None:
    """The action error of a goto/open_url, after checking the env still works."""
    failures: list[str] = []
    info = _step(env, target, failures, str(target))
    after = _step(env, MOVE["uitars"], failures, "the valid action after it")
    assert failures == [] and after["action_error"] is None
    return info["action_error"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["uitars", "action"])
def test_navigation_off_the_env_is_an_action_error(localweb, fmt):
    for label, url in URLS.items():
        error = _navigation_refused(localweb, _goto(fmt, url))
        assert error is not None and error.startswith("could not execute goto"), (label, error)
    # a navigation the browser aborted (ftp) is not waited for at every later step
    assert localweb.unwrapped.backend.evaluate("window.__guiGymLeaving") is not True


@pytest.mark.slow
def test_a_host_file_behind_the_loopback_name_is_refused(localweb):
    error = _navigation_refused(localweb, _goto("uitars", LOOPBACK_FILE_URL))
    assert error is not None and "blocked" in error
    assert not localweb.unwrapped.backend.url.startswith("file:")


def _other_service(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/html")])
    return [b"<p>another service on this machine</p>"]


@pytest.mark.slow
def test_another_loopback_service_is_refused(localweb):
    other = LoopbackServer(_other_service)
    other.start()
    try:
        error = _navigation_refused(localweb, _goto("uitars", other.url + "/"))
    finally:
        other.stop()
    assert error is not None and "blocked" in error
