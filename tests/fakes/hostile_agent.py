"""What a hostile agent tries on a browser env, as one function each suite's tests run: open a
host file, the browser's own pages, a closed loopback port, a malformed URL. Every try must be
the agent's own ``action_error`` (never an ``infra_error``, which `gui-bench` would retry and
leave out of the success rate), show nothing of the host, and leave an env that resets at once.
"""

from __future__ import annotations

import socket
import time

import numpy as np

from gui_gym import Action

HOST_SECRET = "root:x:0:0"
"""A line of the host's /etc/passwd: if it reaches an observation, the host file leaked."""
RESET_BOUND_S = 60.0
"""A reset takes about a second; this only catches a hang (one was inside BrowserContext.close)."""


def closed_loopback_url() -> str:
    """An http URL on loopback where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def attack_urls(own_url: str) -> list[str]:
    return ["file://127.0.0.1/etc/passwd", "file:///etc/passwd", "file://localhost/etc/passwd",
            f"view-source:{own_url}", "chrome://127.0.0.1/", "chrome://version/", closed_loopback_url(),
            "http://127.0.0.1:99999/", "http://[::1", "javascript:location='file:///etc/passwd'"]


def run_navigation_attacks(env, task_id: str) -> None:
    """Each attack in a fresh episode of `task_id`; asserts everything the module docstring says."""
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    infra_errors, relaunches = env.unwrapped.infra_errors, env.unwrapped.backend.relaunches
    for url in attack_urls(obs["url"]):
        started = time.monotonic()
        obs, _ = env.reset(seed=0, options={"task_id": task_id})
        assert time.monotonic() - started < RESET_BOUND_S, f"reset after {url!r} took {time.monotonic() - started:.0f} s"
        after, reward, terminated, truncated, info = env.step(Action.goto(url))
        assert info["infra_error"] is None and not truncated and not terminated, (url, info["infra_error"])
        assert "is blocked" in info["action_error"], (url, info["action_error"])
        assert after["url"] == obs["url"], url
        assert HOST_SECRET not in after.get("a11y_tree", "") and HOST_SECRET not in after["url"], url
        assert np.array_equal(after["screenshot"], obs["screenshot"]), f"the screen changed after {url!r}"
    started = time.monotonic()
    env.reset(seed=0, options={"task_id": task_id})
    assert time.monotonic() - started < RESET_BOUND_S
    assert (env.unwrapped.infra_errors, env.unwrapped.backend.relaunches) == (infra_errors, relaunches)
