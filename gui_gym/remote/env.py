"""`RemoteEnv`: a Gymnasium env whose real env lives in a Ray actor, anywhere on the cluster.

One line from user code::

    env = gui_gym.remote.make("GUI/OSWorld-v0", remote={"resources": {"osworld_vm": 1}}, provider="docker")

gives an env with the real env's spaces and the same ``reset``/``step``/``close`` contract
(``check_env`` passes); Ray's own scheduler places the actor on a node that offers the
resources asked for (`RemoteOptions`). Observations come back as they are, numpy screenshots
through Ray's object store.

What the network between adds, and how it is answered (as android_env's coordinator answers it; docs/reliability.md):
every call has a timeout; an actor that dies (its process, its node) or overruns a call is
killed and forgotten, the episode it was running ends ``truncated`` with
``info["infra_error"]`` (never a task failure), and the next ``reset`` starts a fresh actor and
counts a relaunch (`relaunches`). A reset that fails that way is tried once more on a fresh
actor; too many fresh actors in a row that cannot even start raise `InfraError`.

Anything else the env offers is reached generically: ``env.call("snapshot")``,
``env.get_wrapper_attr("task_ids")`` (a method comes back as a function that calls through),
so an env method added later works remotely without a change here. A snapshot is restored
with `gui_gym.snapshots.restore_episode(env, snapshot)` as for a local env (`RemoteEnv.restore`
restores through the wrappers in the actor).

Wrappers that need the real env under them (PAGE's `ProgressReward` and `SubtaskAnnotation`
with the `OracleJudge`, which reads ``env.unwrapped.task``) go into the actor with ``wrap=``,
a function env -> env that Ray pickles over with the env's id and kwargs::

    env = gui_gym.remote.make("GUI/LocalWeb-v0", wrap=partial(gui_gym.trainers.page.wrap_env, judge=OracleJudge(), cfg=cfg))
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import gymnasium as gym

from gui_gym.errors import InfraError, UsageError
from gui_gym.extras import require_extra
from gui_gym.remote.host import CALLABLE, EnvHost
from gui_gym.remote.ray_auth import check_token, client_mode_from_token

logger = logging.getLogger(__name__)

TASK_INFO_KEYS = ("task_id", "instruction", "domain", "seed")
"""The reset info an infrastructure-truncated step repeats (as `GUIEnv`'s every step does)."""


@dataclass
class RemoteOptions:
    """Where and how the actor runs, and how long each call may take."""

    num_cpus: float = 1.0
    """CPUs the actor reserves (a browser env: about one; see docs/distributed.md)."""
    num_gpus: float = 0.0
    resources: dict[str, float] = field(default_factory=dict)
    """Custom resources, e.g. ``{"osworld_vm": 1}``: only nodes started with them take the actor."""
    call_timeout_s: float = 120.0
    """Limit of one reset, step, render or call; past it the actor is killed."""
    start_timeout_s: float = 300.0
    """Limit for a new actor to be placed and to build its env (a cluster may be scaling up)."""
    max_failed_starts: int = 3
    """Fresh actors in a row that may fail to start or to reset before `InfraError`."""
    address: str | None = None
    """``ray.init(address=...)`` when Ray is not initialized yet (None: Ray's default)."""
    actor_options: dict[str, Any] = field(default_factory=dict)
    """Further ``.options(...)`` of the actor (``scheduling_strategy``, ``runtime_env``, ...)."""

    def __post_init__(self) -> None:
        if self.call_timeout_s <= 0 or self.start_timeout_s <= 0 or self.max_failed_starts < 1:
            raise ValueError(f"expected call_timeout_s > 0, start_timeout_s > 0, max_failed_starts >= 1, received "
                             f"{self.call_timeout_s}, {self.start_timeout_s}, {self.max_failed_starts}")


class ActorLost(InfraError):
    """The actor died or overran a call; it has been killed and forgotten."""


def _ray() -> Any:
    require_extra("distributed", "gui_gym.remote (remote envs, --ray)")
    import ray

    return ray


def connect(address: str | None = None) -> None:
    """``ray.init(address)`` unless this process is connected already. Call it once before
    making envs from several threads at once (a pool): the first `RemoteEnv` would otherwise
    race the others to it. A token handed through ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``
    turns token authentication on (`gui_gym.remote.ray_auth`)."""
    ray = _ray()
    if not ray.is_initialized():
        client_mode_from_token()
        check_token(address)
        ray.init(address=address, logging_level="WARNING")


class RemoteEnv(gym.Env):
    """``gym.make(env_id, **env_kwargs)`` run in a Ray actor (see the module docstring)."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any] | None = None, options: RemoteOptions | None = None,
                 wrap: Callable[[gym.Env], gym.Env] | None = None):
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})
        self.options = options or RemoteOptions()
        self.wrap = wrap
        """Applied to the env in the actor, after ``gym.make`` (see the module docstring)."""
        connect(self.options.address)
        self.relaunches = 0
        """Fresh actors started after the first (each after a lost one)."""
        self.infra_errors = 0
        self.host: dict[str, Any] = {}
        """Where the current actor runs: ``pid`` and Ray ``node_id``."""
        self._actor: Any = None
        self._done = True
        self._last_obs: Any = None
        self._task_info: dict[str, Any] = {}
        self._steps = 0
        described = self._start()
        self.observation_space = described["observation_space"]
        self.action_space = described["action_space"]
        self.metadata = described["metadata"]
        self.spec = described["spec"]
        self.render_mode = described["render_mode"]

    @property
    def actor(self) -> Any:
        """The current actor's handle (None after it was lost, until the next reset)."""
        return self._actor

    # ---- the env contract ------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        return self._begin("reset", seed, options)

    def restore(self, snapshot: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Take up the episode `snapshot` was taken in (``env.call("snapshot")``), as
        `gui_gym.snapshots.restore_episode` does for a local env: in the actor, through its
        wrappers; on a fresh actor when the last one was lost (a snapshot replays anywhere)."""
        return self._begin("restore", snapshot)

    def _begin(self, what: str, *args: Any) -> tuple[Any, dict[str, Any]]:
        """An episode begun by the actor's `what` (reset or restore); tried once more on a
        fresh actor when the actor is lost on the way."""
        if self._actor is None:
            self._relaunch()
        try:
            obs, info = self._get(getattr(self._actor, what).remote(*args), what)
        except ActorLost as lost:
            logger.warning("%s; trying the %s once more on a fresh actor", lost, what)
            self.infra_errors += 1
            self._relaunch()
            obs, info = self._get(getattr(self._actor, what).remote(*args), what)
        self._last_obs, self._done, self._steps = obs, False, int(info.get("step", 0))
        self._task_info = {key: info[key] for key in TASK_INFO_KEYS if key in info}
        return obs, info

    def step(self, action: Any):
        if self._done:
            raise gym.error.ResetNeeded("call reset() before step(): the episode has ended or not begun")
        started = time.perf_counter()
        self._steps += 1
        try:
            obs, reward, terminated, truncated, info = self._get(self._actor.step.remote(action), "step")
        except ActorLost as lost:
            logger.warning("%s; the episode ends truncated and the next reset starts a fresh actor", lost)
            self.infra_errors += 1
            self._done = True
            info = {"action_error": None, "parsed_action": None, "infra_error": str(lost), "success": False,
                    "score": None, "step": self._steps, "settle_time_s": 0.0,
                    "step_time_s": time.perf_counter() - started, **self._task_info}
            return self._last_obs, 0.0, False, True, info
        self._last_obs, self._done = obs, terminated or truncated
        return obs, reward, terminated, truncated, info

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        return self._get(self._live().render.remote(), "render")

    def close(self) -> None:
        """Close the env in its actor, then end the actor; safe to call twice."""
        if self._actor is None:
            return
        try:
            self._get(self._actor.close.remote(), "close")
        except ActorLost as lost:
            logger.info("%s while closing; nothing is left to close", lost)
        self._forget()
        self._done = True

    # ---- everything else the env offers ------------------------------------------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """``env.<name>(*args, **kwargs)`` on the real env or a wrapper of it, in its actor, with
        the call timeout. A lost actor raises `ActorLost` (an `InfraError`) and ends the
        episode (the next reset starts a fresh actor)."""
        try:
            return self._get(self._live().call.remote(name, args, kwargs), name)
        except ActorLost:
            self._done = True
            raise

    def get_wrapper_attr(self, name: str) -> Any:
        """Gymnasium's way to reach an attribute of the env under the wrappers, across the
        actor: a value comes back by value, a method as a function calling `call`."""
        if name in self.__dict__ or hasattr(type(self), name):
            return getattr(self, name)
        value = self._get(self._live().get_attr.remote(name), f"get_wrapper_attr({name!r})")
        if value == CALLABLE:
            return _method(self, name)
        return value

    # ---- the actor ---------------------------------------------------------------------------

    def _start(self) -> dict[str, Any]:
        """A new actor, placed by Ray, with its env built; its description."""
        ray = _ray()
        opts = self.options
        actor_class = ray.remote(EnvHost).options(num_cpus=opts.num_cpus, num_gpus=opts.num_gpus,
                                                  resources=dict(opts.resources) or None, max_restarts=0,
                                                  max_task_retries=0, **opts.actor_options)
        failures = 0
        while True:
            self._actor = actor_class.remote(self.env_id, self.env_kwargs, self.wrap)
            try:
                described = self._get(self._actor.describe.remote(), "start", self.options.start_timeout_s)
            except ActorLost as lost:
                failures += 1
                if failures >= opts.max_failed_starts:
                    raise InfraError(f"{failures} actors in a row for {self.env_id} failed to start (the last: {lost}); "
                                     f"is there a node with num_cpus={opts.num_cpus:g}, num_gpus={opts.num_gpus:g} "
                                     f"and resources {opts.resources} free?") from None
                logger.warning("%s; starting another actor", lost)
                continue
            self.host = {"pid": described["pid"], "node_id": described["node_id"]}
            return described

    def _relaunch(self) -> None:
        self._forget()
        self.relaunches += 1
        logger.warning("starting a fresh actor for %s (relaunch %d)", self.env_id, self.relaunches)
        self._start()

    def _live(self) -> Any:
        if self._actor is None:
            raise ActorLost(f"the actor of {self.env_id} was lost; reset() starts a fresh one")
        return self._actor

    def _get(self, ref: Any, what: str, timeout_s: float | None = None) -> Any:
        """``ray.get(ref)`` within the call timeout; a lost or overrunning actor is killed,
        forgotten and reported as `ActorLost`. The env's own exceptions pass through as they
        are (Ray raises them as instances of their own class)."""
        ray = _ray()
        timeout_s = timeout_s or self.options.call_timeout_s
        try:
            return ray.get(ref, timeout=timeout_s)
        except ray.exceptions.GetTimeoutError:
            reason = f"the actor of {self.env_id} did not answer {what} within {timeout_s:g} s and was killed"
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError) as exc:
            if getattr(exc, "actor_init_failed", False):  # the env itself could not be made: no retry helps
                self._forget()
                raise UsageError(f"cannot make {self.env_id!r} in its actor: {init_failure(exc)} (the whole "
                                 f"traceback is in the Ray worker's log)") from None
            reason = f"the actor of {self.env_id} died during {what} ({type(exc).__name__})"
        self._forget()
        raise ActorLost(reason)

    def _forget(self) -> None:
        if self._actor is not None:
            _ray().kill(self._actor, no_restart=True)
            self._actor = None


def init_failure(exc: Exception) -> str:
    """What made an actor's constructor fail, in one line: the last line of the traceback Ray
    wraps into its error (``TypeError: ... unexpected keyword argument ...``), colours taken out."""
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


def _method(env: RemoteEnv, name: str) -> Callable[..., Any]:
    def method(*args: Any, **kwargs: Any) -> Any:
        return env.call(name, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``{name}`` of the env in the actor of {env.env_id}, called through `RemoteEnv.call`."
    return method


def make(env_id: str, *, remote: RemoteOptions | dict[str, Any] | None = None,
         wrap: Callable[[gym.Env], gym.Env] | None = None, **env_kwargs: Any) -> RemoteEnv:
    """``gym.make(env_id, **env_kwargs)``, run in a Ray actor: `remote` is a `RemoteOptions`
    or a dict of its fields (resources, timeouts, the cluster's address); `wrap` (env -> env)
    wraps the env in the actor."""
    options = remote if isinstance(remote, RemoteOptions) else RemoteOptions(**(remote or {}))
    return RemoteEnv(env_id, env_kwargs, options, wrap)
