"""`GUIEnv`: one Gymnasium env for every GUI benchmark, built from a Backend and a TaskSuite.

The contract (docs/env_contract.md) in short: ``reset(seed, options={"task_id"})`` draws or picks a task;
``step`` takes an `Action` or a string in the env's `action_format`; the reward is 0 until
the episode ends, then the task's evaluator score; `terminated` when the agent says
done/fail/answer, `truncated` at the step limit or when the infrastructure fails. A string
that does not parse, or an action past the limits of `gui_gym.actions` (a point off the
screen by more than a screen, a step that types or waits too long), is not an exception:
it is ``info["action_error"]`` and costs a step; what a format accepted but ignored
(AndroidWorld's irrelevant fields) is listed in ``info["action_warnings"]``. A backend call
that outlives the backend's ``step_timeout_s`` is aborted: the step ends truncated with
``info["infra_error"]``.

Tolerance taken for `gymnasium.utils.env_checker.check_env`: ids are registered with
``nondeterministic=True`` because ``info`` carries wall-clock timings (``step_time_s``) that
never repeat and a real browser or desktop is not bit-reproducible across processes; our own
tests check seeded determinism of observations, rewards and the non-timing info instead.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any, Iterator

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gui_gym import snapshots
from gui_gym.action_formats import collect_warnings, get_format, read_actions
from gui_gym.actions import Action
from gui_gym.backends.base import Backend, Observation
from gui_gym.errors import (ActionExecutionError, ActionParseError, InfraError, SnapshotError, SnapshotUnsupportedError,
                            TaskConfigError)
from gui_gym.spaces import ActionSpace, FreeText
from gui_gym.suites.base import Episode, Task, TaskSuite

logger = logging.getLogger(__name__)

TIMING_KEYS = frozenset({"step_time_s", "settle_time_s", "reset_time_s", "evaluate_time_s"})
"""Info keys holding wall-clock timings: the only info that differs between two identical runs."""

DEFAULT_MAX_STEPS = 30


class GUIEnv(gym.Env):
    """A GUI task environment.

    Args:
        backend: the screen (browser, desktop, android, static).
        suite: the task set.
        action_format: how string actions are read ("json", "uitars", "pyautogui",
            "computer_13", "androidworld"). `Action` objects are always accepted.
        format_context: extra arguments for the format's parser (e.g.
            ``{"coordinates": "relative1000"}`` for older UI-TARS); the screen size is
            filled in.
        max_steps: step limit; None uses each task's own.
        time_limit_s: the episode's own clock, from the start of ``reset()``: the agent's
            thinking and the steps it asked for (waits included). A step that ends past it
            truncates the episode, which is scored as it stands; an answer that comes past it
            is not carried out, and the episode is truncated and scored. Set
            ``info["time_limit_reached"]``. Running out of time is the agent's doing, never
            an infrastructure error. None: no limit (the harness sets one below its own
            wall-clock kill, which stays for what hangs).
        observe_a11y: add the accessibility tree text to observations.
        observe_screenshot: False for text-only observations: nothing is captured or
            decoded, and the observation space has no "screenshot" (for a11y-tree policies;
            then set ``observe_a11y=True``). ``render()`` returns None.
        task_ids: restrict the tasks drawn by ``reset()`` without a task id.
        render_mode: None or "rgb_array".
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}
    """One frame per step: a GUI episode replays as a slideshow, not at screen rate."""

    def __init__(self, backend: Backend, suite: TaskSuite, *, action_format: str = "json",
                 format_context: dict[str, Any] | None = None, max_steps: int | None = None,
                 observe_a11y: bool = False, observe_screenshot: bool = True,
                 task_ids: list[str] | None = None, render_mode: str | None = None,
                 time_limit_s: float | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, received {render_mode!r}")
        if max_steps is not None and max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, received {max_steps}")
        get_format(action_format)
        self.backend = backend
        self.suite = suite
        self.action_format = action_format
        self.max_steps = max_steps
        self.time_limit_s = time_limit_s
        self._episode_started = time.monotonic()
        self.observe_a11y = observe_a11y
        self.observe_screenshot = observe_screenshot
        backend.expects_a11y = observe_a11y
        self.render_mode = render_mode
        width, height = backend.screen_size
        self._screen_size_given = "screen_size" in (format_context or {})
        self.format_context = {"screen_size": (width, height), **(format_context or {})}
        if task_ids is not None:
            for task_id in task_ids:
                suite.check_task_id(task_id)
        self._task_pool = list(task_ids) if task_ids is not None else None
        self.action_space = ActionSpace((width, height), action_format, format_context=self.format_context)
        shot_width, shot_height = backend.screenshot_size
        obs_spaces: dict[str, spaces.Space] = {}
        if observe_screenshot:
            # a backend whose screenshots vary in size (static recordings) supplies its own space
            obs_spaces["screenshot"] = (backend.screenshot_space
                                        or spaces.Box(0, 255, (shot_height, shot_width, 3), np.uint8))
        obs_spaces["instruction"] = FreeText()
        if observe_a11y:
            obs_spaces["a11y_tree"] = FreeText()
        for key in self._extra_obs_keys():
            obs_spaces[key] = FreeText()
        self.observation_space = spaces.Dict(obs_spaces)

        self.task: Task | None = None
        self.episode: Episode | None = None
        self._last_obs: Observation | None = None
        self._oracle: Iterator[Action] | None = None
        self._oracle_calls: list[int] = []
        """How many actions the episode held at each `oracle_action` call."""
        self._step_actions: list[int] = []
        """How many actions each step carried (0 for one that did not parse)."""
        self._done = True
        self._started = False
        self._steps = 0
        self.infra_errors = 0

    # ---- public API -------------------------------------------------------------------

    @property
    def task_ids(self) -> list[str]:
        return list(self._task_pool if self._task_pool is not None else self.suite.task_ids)

    @property
    def last_observation(self) -> Observation | None:
        """The backend's latest observation as it came, for wrappers that record it (its
        ``extra`` may hold the screenshot already encoded, ``extra["png"]``)."""
        return self._last_obs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        started = time.perf_counter()
        self._episode_started = time.monotonic()
        options = dict(options or {})
        unknown = set(options) - {"task_id", "instance_seed"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; expected 'task_id' and/or 'instance_seed'")
        pool = self.task_ids
        if not pool:
            raise TaskConfigError(f"suite {self.suite.name!r} has no tasks")
        task_id = options.get("task_id")
        if task_id is None:
            task_id = pool[int(self.np_random.integers(len(pool)))]
        else:
            self.suite.check_task_id(task_id)
        instance_seed = options.get("instance_seed")
        if instance_seed is None:
            instance_seed = int(self.np_random.integers(2**31 - 1))
        self._ensure_started()
        self._begin(task_id, int(instance_seed))
        self._last_obs = self.backend.observe(self.observe_a11y, self.observe_screenshot)
        info = self._task_info()
        info["reset_time_s"] = time.perf_counter() - started
        return self._obs(self._last_obs), info

    def step(self, action: Action | str | dict[str, Any]):
        if self._done or self.task is None or self.episode is None:
            raise gym.error.ResetNeeded("call reset() before step(): the episode has ended or not begun")
        started = time.perf_counter()
        info: dict[str, Any] = {"action_error": None, "parsed_action": None, "infra_error": None,
                                "success": False, "score": None}
        late = self._past_time_limit()
        if late:  # the answer came after the agent's time: nothing of it is carried out
            actions, info["action_warnings"] = [], []
        else:
            with collect_warnings() as info["action_warnings"]:  # what the format accepted but ignored
                actions, info["action_error"] = self._parse(action)
        truncated = False
        if actions:
            info["parsed_action"] = [a.to_dict() for a in actions] if len(actions) > 1 else actions[0].to_dict()
        self.episode.actions.extend(actions)
        self._step_actions.append(len(actions))
        terminated, error, settle_s = self._run_actions(actions)
        if error is not None:
            kind, message = error
            if kind == "infra":
                info["infra_error"] = message
                self.infra_errors += 1
                truncated = True
            else:
                info["action_error"] = message
        self._steps += 1  # every call counts towards the limit, malformed ones included
        steps = self._steps
        if not terminated and not truncated and self.task.ended(self.backend, self.episode):
            terminated = True
        limit = self.max_steps or self.task.max_steps
        if not terminated and not truncated and steps >= limit:
            truncated = True
        if not terminated and not truncated and (late or self._past_time_limit()):
            truncated = info["time_limit_reached"] = True
        if info["infra_error"] is None:
            try:
                self._last_obs = self.backend.observe(self.observe_a11y, self.observe_screenshot)
            except InfraError as exc:
                info["infra_error"] = str(exc)
                self.infra_errors += 1
                truncated = True
        reward = 0.0
        if (terminated or truncated) and info["infra_error"] is None:
            evaluated = time.perf_counter()
            score = float(self.task.evaluate(self.backend, self.episode))
            if not 0.0 <= score <= 1.0:
                raise TaskConfigError(f"task {self.task.task_id!r} evaluator returned {score}, outside [0, 1]")
            info["score"], info["success"], reward = score, score >= 1.0, score
            details = self.task.evaluation_details()
            if details:
                info["evaluation"] = details
            info["evaluate_time_s"] = time.perf_counter() - evaluated
        self._done = terminated or truncated
        info["step"] = steps
        info["settle_time_s"] = settle_s
        info["step_time_s"] = time.perf_counter() - started
        info.update(self._task_info())
        return self._obs(self._last_obs), reward, terminated, truncated, info

    def render(self):
        if self.render_mode == "rgb_array" and self._last_obs is not None and self._last_obs.screenshot is not None:
            return self._last_obs.screenshot.copy()
        return None

    def oracle_action(self) -> Action:
        """The next action of the current task's own solution, computed against the live
        screen; `done` once the solution is exhausted. Raises NotImplementedError for tasks
        with no oracle."""
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        if self._oracle is None:
            self._oracle = iter(self.task.oracle(self.backend))
        assert self.episode is not None
        self._oracle_calls.append(len(self.episode.actions))  # a restore replays the calls where they were
        return next(self._oracle, Action.done())

    def expert_plan(self, task_id: str, instance_seed: int) -> list[str] | None:
        """The expert plan the task instance carries (LocalWeb: ordered steps in words), or None.
        A method rather than a look into the suite so that trainers (BEPA's LEVEL-1) reach it
        the same way through a wrapper or a remote env: ``env.get_wrapper_attr("expert_plan")``.
        Builds the instance without touching the screen."""
        self.suite.check_task_id(task_id)
        plan = self.suite.make_task(task_id, int(instance_seed)).metadata.get("expert_plan")
        return list(plan) if plan else None

    def snapshot(self) -> dict[str, Any]:
        """The current episode as plain JSON-able data, which `restore` continues in this env
        or another of the same id (another process, another machine). Raises
        `SnapshotUnsupportedError` on an env that cannot do it exactly (the OSWorld desktop,
        the live web, a phone). See `gui_gym.snapshots`."""
        reason = snapshots.refusal(self.suite, self.backend)
        if reason is not None:
            raise SnapshotUnsupportedError(f"{self._registered_id() or self.suite.name}: {reason}")
        if self.task is None or self.episode is None or self._last_obs is None:
            raise gym.error.ResetNeeded("call reset() before snapshot(): there is no episode to save")
        return snapshots.encode({
            "env_id": self._registered_id(), "suite": self.suite.name,
            "task_id": self.task.task_id, "seed": self.episode.seed, "instruction": self.task.instruction,
            "steps": self._steps, "done": self._done, "kind": self.backend.snapshot_kind,
            "step_actions": list(self._step_actions), "actions": [action.to_dict() for action in self.episode.actions],
            "oracle_calls": list(self._oracle_calls), "backend": self.backend.save_state(),
            "world": self.suite.snapshot_world(self.task), "milestones": self.milestones_reached(),
            "screenshot_digest": snapshots.screenshot_digest(self._last_obs.screenshot),
        }, self.suite.snapshot_origin())

    def milestones_reached(self) -> list[bool]:
        """Which of the current task's ordered milestones hold now ([] for a task that knows
        none): what a snapshot records, and cheap enough to ask after every step (the
        trainers' branching asks it to know when to snapshot)."""
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() before milestones_reached()")
        return [bool(milestone.check(self.backend)) for milestone in self.task.milestones()]

    def restore(self, snapshot: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Continue the episode of `snapshot` (from `snapshot()`, of an env with this id):
        returns ``(obs, info)`` as `reset` does, the observation the original episode had at
        that point; every later step gives what it would have given there. Raises
        `SnapshotError` for a snapshot of another env id or task, a malformed one, or a
        restore that did not reproduce the state exactly. Through wrappers:
        `gui_gym.snapshots.restore_episode`.

        How: the same task instance is made, then the screen brought to the snapshot's state
        by what the backend declares (`Backend.snapshot_kind`): "replay" runs the episode's
        actions again from the task's start, step by step as `step` ran them, the oracle's
        calls at the same points; "native" loads the state the backend saved (the emulator's
        ``avd snapshot load``). Then the suite loads the snapshot's server-side world and the
        restored state is checked against the snapshot (`snapshots.check_restored`)."""
        started = time.perf_counter()
        reason = snapshots.refusal(self.suite, self.backend)
        if reason is not None:
            raise SnapshotUnsupportedError(f"{self._registered_id() or self.suite.name}: {reason}")
        snapshots.check(snapshot, env_id=self._registered_id(), suite=self.suite.name,
                        task_ids=self.task_ids, kind=self.backend.snapshot_kind)
        self._ensure_started()
        snapshot, actions = snapshots.decode(snapshot, self.suite.snapshot_origin())
        self._begin(snapshot["task_id"], snapshot["seed"])
        self._last_obs = self.backend.observe(self.observe_a11y, self.observe_screenshot)  # as `reset` did
        self._done = True  # until the restore has proven exact
        if snapshot["kind"] == "native":
            self.backend.load_state(snapshot["backend"])
            self.episode.actions.extend(actions)
            self._step_actions = list(snapshot["step_actions"])
            self._oracle_calls = list(snapshot["oracle_calls"])
            self._last_obs = self.backend.observe(self.observe_a11y, self.observe_screenshot)
        else:
            self._replay(actions, snapshot["step_actions"], snapshot["oracle_calls"])
        if self.task.instruction != snapshot["instruction"]:
            raise SnapshotError(f"task {snapshot['task_id']!r} with seed {snapshot['seed']} reads "
                                f"{self.task.instruction!r} here, the snapshot's read {snapshot['instruction']!r}: "
                                "the task set differs")
        if snapshot["world"] is not None:
            self.suite.load_world(self.task, snapshot["world"])
        self._steps = snapshot["steps"]
        snapshots.check_restored(snapshot, world=self.suite.snapshot_world(self.task),
                                 backend_state=self.backend.save_state() if snapshot["kind"] == "replay" else None,
                                 milestones=self.milestones_reached())
        info = self._task_info()
        # a screenshot may differ by a few pixels of anti-aliasing where a page was painted in
        # another order (the same actions from reset differ so on a real browser too): logged, not refused
        info["screenshot_exact"] = snapshots.screenshot_digest(self._last_obs.screenshot) == snapshot["screenshot_digest"]
        if not info["screenshot_exact"]:
            logger.info("restored task %r at step %d: state exact, screenshot differs in its paint",
                        snapshot["task_id"], snapshot["steps"])
        self._done = snapshot["done"]
        info["step"] = self._steps
        info["restore_time_s"] = time.perf_counter() - started
        return self._obs(self._last_obs), info

    def close(self) -> None:
        if self.task is not None:
            self._teardown_quietly()
            self.task = None
        self.suite.close()
        self.backend.close()
        self._started = False
        self._done = True

    # ---- internals ----------------------------------------------------------------------

    def _extra_obs_keys(self) -> tuple[str, ...]:
        """Text observation keys this env adds (``url`` for web, ``app`` for mobile)."""
        return tuple(self.backend.observation_text_keys)

    def _ensure_started(self) -> None:
        if not self._started:
            self.backend.start()
            self.suite.start(self.backend)
            self._started = True

    def _registered_id(self) -> str | None:
        """The id the env was made with (None for an env built by hand)."""
        return self.spec.id if self.spec is not None else None

    def _replay(self, actions: list[Action], step_actions: list[int], oracle_calls: list[int]) -> None:
        """Run a snapshot's actions again from the task's start, grouped by step as `step` ran
        them, with the oracle's calls where they were made."""
        assert self.episode is not None
        calls = Counter(oracle_calls)
        done = 0
        for size in step_actions:
            step = actions[done:done + size]
            for index in range(done, done + size):  # the oracle's calls before this step
                for _ in range(calls.pop(index, 0)):
                    self.oracle_action()
            self.episode.actions.extend(step)
            self._step_actions.append(size)
            _terminated, error, _settle_s = self._run_actions(step)
            if error is not None and error[0] == "infra":
                raise SnapshotError(f"the replay failed on the infrastructure ({error[1]}); the snapshot cannot be "
                                    "restored on this env now")
            done += size
            # as `step` did: a recording advances when looked at
            self._last_obs = self.backend.observe(self.observe_a11y, self.observe_screenshot)
        for _ in range(calls.pop(done, 0)):
            self.oracle_action()

    def _begin(self, task_id: str, instance_seed: int) -> None:
        """The task instance (`task_id`, `instance_seed`) at its start, on a fresh screen."""
        if self.task is not None:
            self._teardown_quietly()
        self.task = self.suite.make_task(task_id, instance_seed)
        self.episode = Episode(task_id=task_id, seed=instance_seed)
        self._oracle = None
        self._oracle_calls = []
        self._step_actions = []
        self._reset_screen()
        self._follow_screen_size()
        self._done = False
        self._steps = 0

    def _run_actions(self, actions: list[Action]) -> tuple[bool, tuple[str, str] | None, float]:
        """Carry out one step's actions, up to a terminal one or the first that fails:
        (terminated, ("action" | "infra", message) or None, seconds spent settling)."""
        settle_s = 0.0
        for act in actions:
            if act.is_terminal:
                break
            try:
                self.backend.execute(act)
            except ActionExecutionError as exc:
                return actions[-1].is_terminal, ("action", f"could not execute {act.kind}: {exc}"), settle_s
            except InfraError as exc:
                return actions[-1].is_terminal, ("infra", str(exc)), settle_s
            settle_s += self.backend.last_settle_s
        return bool(actions) and actions[-1].is_terminal, None, settle_s

    def _past_time_limit(self) -> bool:
        return self.time_limit_s is not None and time.monotonic() - self._episode_started >= self.time_limit_s

    def _reset_screen(self) -> None:
        """Fresh episode on the backend, then task setup. One infrastructure failure is
        answered with a relaunch and a second try; a second failure propagates."""
        assert self.task is not None
        try:
            self.backend.new_episode()
            self.task.setup(self.backend)
        except InfraError as exc:
            self.infra_errors += 1
            logger.warning("infrastructure failure at the reset of %s (%s); relaunching the backend and trying once more",
                           self.task.task_id, exc)
            self.backend.restart()
            self.backend.new_episode()
            self.task.setup(self.backend)

    def _parse(self, action: Any) -> tuple[list[Action], str | None]:
        try:
            return read_actions(action, self.action_format, **self.format_context), None
        except ActionParseError as exc:
            return [], str(exc)
        except Exception as exc:  # a parser bug must not take the episode down; the fuzz tests find none
            logger.error("the %s parser failed on an agent output instead of rejecting it", self.action_format,
                         exc_info=True)
            return [], f"{type(exc).__name__} while parsing the action: {exc}"

    def _follow_screen_size(self) -> None:
        """Recordings differ in size from one episode to the next (static backend): agent
        coordinates are read against the screen of this episode, unless the caller fixed
        ``format_context["screen_size"]``."""
        size = tuple(self.backend.screen_size)
        if self._screen_size_given or self.format_context["screen_size"] == size:
            return
        self.format_context["screen_size"] = size
        self.action_space.screen_size = size
        self.action_space.format_context["screen_size"] = size

    def _task_info(self) -> dict[str, Any]:
        assert self.task is not None and self.episode is not None
        return {"task_id": self.task.task_id, "instruction": self.task.instruction,
                "domain": self.task.domain, "seed": self.episode.seed}

    def _obs(self, observation: Observation) -> dict[str, Any]:
        assert self.task is not None
        obs: dict[str, Any] = {}
        if self.observe_screenshot:
            obs["screenshot"] = observation.screenshot.copy()
        obs["instruction"] = self.task.instruction
        if self.observe_a11y:
            obs["a11y_tree"] = observation.a11y_tree or ""
        for key in self._extra_obs_keys():
            obs[key] = getattr(observation, key) or ""
        return obs

    def _teardown_quietly(self) -> None:
        assert self.task is not None
        try:
            self.task.teardown(self.backend)
        except InfraError as exc:
            logger.warning("the teardown of %s failed (%s); the backend is relaunched at the next reset",
                           self.task.task_id, exc)
            self.backend.healthy = False
