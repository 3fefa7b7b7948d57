"""Ray's token authentication, as gui-gym's clusters and clients use it.

A Ray cluster runs whatever code its clients send, so a cluster that runs agents' environments
should require a token. Ray 2.60 reads the mode from ``RAY_AUTH_MODE`` ("token" or "disabled")
and the token from ``RAY_AUTH_TOKEN`` (the value), else ``RAY_AUTH_TOKEN_PATH`` (a file), else
``~/.ray/auth_token``. Left to itself it does not agree with itself: a new ``ray.init()``
cluster turns token mode on and writes ``~/.ray/auth_token``, after which ``ray start --head``
turns it on too (a token file exists), while ``ray start --address`` and ``ray.init(address=...)``
keep it off, and are refused (``InvalidAuthToken ... RAY_AUTH_MODE is currently 'disabled'``).

So gui-gym says it explicitly, everywhere:

- a cluster gui-gym starts (`gui_gym.benchmarks.harness.local_cluster`) draws its own token
  into a file of its own (`new_token_file`), and every node it starts and the driver get
  ``RAY_AUTH_MODE=token`` with that file (`token_env`, `use_token`); what ``~/.ray`` holds
  plays no part;
- a client joining a cluster by address (`gui_gym.remote.connect`, so ``gui-bench run --ray
  ADDRESS`` and `RemoteEnv`) turns token mode on when it was handed a token
  (``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``) and no mode (`client_mode_from_token`), and
  is told at once when the cluster refuses its token (`check_token`).
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path
from typing import Mapping

from gui_gym.errors import GUIGymError

MODE_ENV = "RAY_AUTH_MODE"
TOKEN_ENV = "RAY_AUTH_TOKEN"
TOKEN_PATH_ENV = "RAY_AUTH_TOKEN_PATH"
TOKEN_FILE = "auth_token"


def new_token_file(folder: str | os.PathLike) -> Path:
    """A fresh random token in ``folder/auth_token``, readable by this user only."""
    path = Path(folder) / TOKEN_FILE
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secrets.token_hex(32))
    return path


def token_env(token_path: str | os.PathLike, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with token mode on and the token read from
    `token_path` only: a ``RAY_AUTH_TOKEN`` value would take precedence over the file, so it
    is left out."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k != TOKEN_ENV}
    return {**env, MODE_ENV: "token", TOKEN_PATH_ENV: str(token_path)}


def use_token(token_path: str | os.PathLike) -> dict[str, str | None]:
    """Make this process a token-mode Ray client with the token at `token_path` (before its
    ``ray.init``); returns the variables it replaced, for `restore`."""
    previous = {name: os.environ.get(name) for name in (MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV)}
    os.environ.pop(TOKEN_ENV, None)
    os.environ.update({MODE_ENV: "token", TOKEN_PATH_ENV: str(token_path)})
    _reload_ray_settings()
    return previous


def restore(previous: Mapping[str, str | None]) -> None:
    """Put back the variables `use_token` replaced."""
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _reload_ray_settings()


def client_mode_from_token() -> bool:
    """Turn token mode on for this process when a token was handed to it (``RAY_AUTH_TOKEN``
    or ``RAY_AUTH_TOKEN_PATH``) and no mode was named; returns whether token mode is on. Ray
    itself keeps a client that joins by address in disabled mode, whatever token it holds."""
    if os.environ.get(MODE_ENV) is None and (os.environ.get(TOKEN_ENV) or os.environ.get(TOKEN_PATH_ENV)):
        os.environ[MODE_ENV] = "token"
        _reload_ray_settings()
    return os.environ.get(MODE_ENV, "").lower() == "token"


PROBE_TIMEOUT_S = 5.0
"""How long `check_token` waits for the cluster's answer before leaving the join to Ray."""


class TokenRefused(GUIGymError, ConnectionError):
    """The cluster refused this client's token (none, ``~/.ray``'s, or another cluster's)."""


def check_token(address: str | None, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Raise `TokenRefused` at once when the cluster at `address` (``host:port``) refuses this
    client's token. ``ray.init(address=...)`` retries a refused token once a second for about
    20 s and then reports only "Failed to connect"; one call to the cluster's GCS answers in
    milliseconds. Anything else (no answer within `timeout_s`, an address that is not
    ``host:port``, a Ray without that call) leaves the join, and its errors, to Ray."""
    if not address or "://" in address or ":" not in address:
        return
    try:
        from ray._raylet import GcsClient
        from ray.exceptions import AuthenticationError
    except ImportError:
        return
    refused: list[Exception] = []

    def probe() -> None:
        try:
            GcsClient(address=address).cluster_id
        except AuthenticationError as exc:
            refused.append(exc)
        except Exception:  # noqa: BLE001 - unreachable, not ready: Ray's join reports it
            pass
    # A thread: an unreachable address holds the call for Ray's own connect timeout (~40 s).
    thread = threading.Thread(target=probe, name="ray-token-check", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if refused:
        reason = str(refused[0]).splitlines()[0][:200]
        raise TokenRefused(f"the Ray cluster at {address} refused this client's token: hand the client the "
                           f"cluster's token with {TOKEN_PATH_ENV} (a file) or {TOKEN_ENV} (docs/distributed.md, "
                           f"'The token'). Ray: {reason}")


def _reload_ray_settings() -> None:
    """Ray caches its settings and the token it loaded: make it read the environment again."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
    except ImportError:  # Ray not installed, or a build without token auth: nothing is cached
        return
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()
